"""`nycc-bench tasks check`: a task file is checked before anything runs on it, and once end to end.

`check_task` (static, at every `evaluate`): the instance builder, parser, scorer and metric names exist. The
end-to-end half, a random run whose every `scores:` path resolves, is `nycc_bench.checking.check_run`.
"""

from __future__ import annotations

import difflib
from typing import Any

from ..errors import NyccBenchError
from .definition import Task


def _known(kind: str, name: str, names: Any, task: Task) -> None:
    """A one-line error for a name that is not registered, with the nearest registered one."""
    if name not in names:
        near = difflib.get_close_matches(name, list(names), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else f"; known: {', '.join(names)}"
        raise NyccBenchError(f"task file {task.source}: unknown {kind} {name!r}{hint}")


def check_task(task: Task) -> None:
    """Refuse a task whose builder, parser, scorer or metric is not registered (names the file and the key)."""
    from ..metrics import METRIC_NAMES
    from .kinds import BUILDERS, PARSERS, SCORERS

    _known("instances builder", task.instances, BUILDERS, task)
    _known("parser", task.parser, PARSERS, task)
    _known("scorer", task.scorer, SCORERS, task)
    _known("metric", task.metric, METRIC_NAMES, task)
    if judged := task.judge.get("judged_metric"):
        _known("judged_metric", judged, METRIC_NAMES, task)
