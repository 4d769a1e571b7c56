"""`nycc-bench tasks check`: a task file is checked before anything runs on it, and once end to end.

`check_task` (static, at every `evaluate`): the instance builder, parser, scorer and metric names exist, and the
task's family checks what it needs of its task files (`Hooks.check`). The end-to-end half, a random run whose every
`scores:` path resolves, is `nycc_bench.checking.check_run`.
"""

from __future__ import annotations

import difflib
from typing import Any

from ..errors import NyccBenchError
from ..tasks.definition import Task
from .loader import builders, hooks, parsers, scorers


def _known(kind: str, name: str, names: Any, task: Task) -> None:
    """A one-line error for a name that is not registered, with the nearest registered one."""
    if name not in names:
        near = difflib.get_close_matches(name, list(names), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else f"; known: {', '.join(names)}"
        raise NyccBenchError(f"task file {task.source}: unknown {kind} {name!r}{hint}")


def check_task(task: Task) -> None:
    """Refuse a task whose builder, parser, scorer or metric is not registered (names the file and the key)."""
    from ..metrics import METRIC_NAMES
    _known("instances builder", task.instances, builders(), task)
    _known("parser", task.parser, parsers(), task)
    _known("scorer", task.scorer, scorers(), task)
    _known("metric", task.metric, METRIC_NAMES, task)
    if judged := task.judge.get("judged_metric"):
        _known("judged_metric", judged, METRIC_NAMES, task)
    if (check := hooks(task).check) is not None:  # what the task's family checks of its own task files
        check(task)
