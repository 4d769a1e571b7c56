"""Space face of the metric: its class lives in the package (`nycc_bench.metrics`), imported here.

evaluate.load takes the first EvaluationModule subclass it finds in this file's namespace: the one imported here.
"""

from nycc_bench.metrics.element_autograder import ElementAutograder

__all__ = ["ElementAutograder"]
