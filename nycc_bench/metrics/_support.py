"""What every metric class shares: refusing unknown arguments and an empty compute, before evaluate runs.

Functions only: evaluate finds a module's metric as the first EvaluationModule subclass in it, so no base
class may be imported into a metric module.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any

import evaluate

from nycc_bench.errors import NyccBenchError
from nycc_bench.scoring.checks import check_arguments


def check_compute_call(metric: evaluate.EvaluationModule, inputs: Mapping[str, Any], kwargs: Mapping[str, Any],
                       extra: Iterable[str] = ()) -> None:
    """Refuse an argument `_compute` (or the metric's own `compute`, `extra`) does not take, and a compute with
    no input given and nothing added: evaluate would raise a message naming no argument."""
    accepted = set(inspect.signature(metric._compute).parameters) | set(inputs) | set(extra)
    check_arguments(kwargs, accepted, metric.name)
    if all(value is None for value in inputs.values()) and metric.writer is None:
        first = next(iter(inputs))
        raise NyccBenchError(f"{first}: nothing to score; pass {', '.join(inputs)} (or call add_batch first)")


def check_add_call(metric: evaluate.EvaluationModule, kwargs: Mapping[str, Any]) -> None:
    """Refuse an argument of add/add_batch that is not one of the metric's inputs."""
    check_arguments(kwargs, metric._feature_names(), metric.name)
