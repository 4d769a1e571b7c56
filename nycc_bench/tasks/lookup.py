"""A task's reported scores, read out of its metric's output by the task file's `scores:` list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .definition import Score, Task, lookup


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def extract(score: Score, details: Mapping[str, Any]) -> dict[str, Any] | None:
    """`{value, ci_low, ci_high, n}` of one score; None when the metric did not produce it (a pooled score is
    never read from one run: the standings compute it over a store's runs)."""
    if score.pooled:
        return None
    value = _number(lookup(details, score.path))
    if value is None:
        return None
    parent = score.path.rpartition(".")[0]
    sibling = lambda key: lookup(details, f"{parent}.{key}" if parent else key) if key else None  # noqa: E731
    parts = [sibling(k) for k in score.n.split("+")]
    n = sum(parts) if all(isinstance(p, int) and not isinstance(p, bool) for p in parts) else None
    return {"value": value, "ci_low": _number(sibling(score.low)), "ci_high": _number(sibling(score.high)), "n": n}


def extract_scores(task: Task, details: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every score the task reports that its metric produced."""
    return {s.key: found for s in task.scores if (found := extract(s, details)) is not None}
