"""The six evaluate metric modules of nycc-bench, shipped inside the package (no checkout or network needed).

Each `nycc_bench/metrics/<name>.py` holds one `evaluate.Metric` class and imports only absolute
`nycc_bench...` modules, so `evaluate.load(str(module_path(name)))` (which copies the file into evaluate's
module cache and imports it on its own) works from any folder and from an installed wheel. The Hub Spaces
under `metrics/<name>/` are thin faces that import these classes. Submodules are imported on first use:
they pull in `evaluate` and `datasets`, which a CLI start-up should not pay for. `compute_metric` scores through
the metrics' rules (`metrics/rules.py`) without importing `evaluate`, which pulls in torch.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nycc_bench.errors import NyccBenchError

if TYPE_CHECKING:
    import evaluate

METRIC_NAMES = (
    "nycc_accuracy",
    "crowd_ny_accuracy",
    "explanation_overlap",
    "ead_diversity",
    "group_win_rate",
    "element_autograder",
)
_CLASS_NAMES = {
    "nycc_accuracy": "NyccAccuracy",
    "crowd_ny_accuracy": "CrowdNyAccuracy",
    "explanation_overlap": "ExplanationOverlap",
    "ead_diversity": "EadDiversity",
    "group_win_rate": "GroupWinRate",
    "element_autograder": "ElementAutograder",
}


def module_path(name: str) -> Path:
    """The metric's module file inside the installed package, for `evaluate.load(str(module_path(name)))`."""
    return Path(__file__).resolve().with_name(f"{check_metric_name(name)}.py")


def metric_class(name: str) -> type[evaluate.EvaluationModule]:
    """The metric's `evaluate.Metric` subclass (instantiate it for a private, unshared instance)."""
    module = importlib.import_module(f"{__name__}.{check_metric_name(name)}")
    return getattr(module, _CLASS_NAMES[name])


def load_metric(name: str) -> evaluate.EvaluationModule:
    """The metric, ready to `compute` (one shared in-memory instance per name: no cache files, no network).

    The same class `evaluate.load(str(module_path(name)))` gives. The shared instance is not for concurrent
    `add_batch` use from several threads; build a private one with `metric_class(name)()` for that.
    """
    return _shared(check_metric_name(name))


@cache
def _shared(name: str) -> evaluate.EvaluationModule:
    return metric_class(name)(keep_in_memory=True)


def compute_metric(name: str, **kwargs: Any) -> dict[str, Any]:
    """What `load_metric(name).compute(**kwargs)` returns, scored by the metric's rule without importing `evaluate`
    (and with it transformers and torch); a call the rule does not cover (a metric calling its judge inside
    `compute`, an argument the rule does not take) goes through the metric class, which runs or refuses it."""
    from . import rules

    rule = rules.RULES.get(check_metric_name(name))
    if rule is not None and set(kwargs) <= set(inspect.signature(rule).parameters):
        return rule(**kwargs)
    return load_metric(name).compute(**kwargs)


def check_metric_name(name: object) -> str:
    """`name` if it is one of METRIC_NAMES, else an error naming the nearest one."""
    if isinstance(name, str) and name in METRIC_NAMES:
        return name
    near = difflib.get_close_matches(str(name), METRIC_NAMES, n=1, cutoff=0.3)
    hint = f"did you mean {near[0]!r}?" if near else f"expected one of {', '.join(METRIC_NAMES)}"
    raise NyccBenchError(f"metric: no metric named {name!r}; {hint}")


__all__ = ["METRIC_NAMES", "check_metric_name", "compute_metric", "load_metric", "metric_class", "module_path"]
