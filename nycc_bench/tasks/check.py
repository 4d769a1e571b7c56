"""`nycc-bench tasks check`: a task file is checked before anything runs on it, and once end to end.

`check_task` (static, at every `evaluate`, `run` and `score`): the instance builder, parser, scorer and metric
names exist. `check_run` (the command, and a test over every task file): a `random` run on the sample dataset
whose instance ids are unique and every one of whose `scores:` paths resolves in the metric's output (judged
scores with the offline judges, when given).
"""

from __future__ import annotations

import difflib
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import NyccBenchError
from .definition import Task
from .registry import get_task


def _known(kind: str, name: str, names: Any, task: Task) -> None:
    """A one-line error for a name that is not registered, with the nearest registered one."""
    if name not in names:
        near = difflib.get_close_matches(name, list(names), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else f"; known: {', '.join(names)}"
        raise NyccBenchError(f"task file {task.source}: unknown {kind} {name!r}{hint}")


def check_task(task: Task) -> None:
    """Refuse a task whose builder, parser, scorer or metric is not registered (names the file and the key)."""
    from ..metrics import METRIC_NAMES
    from ..scorers import SCORERS
    from .instances import BUILDERS
    from .parsing import PARSERS

    _known("instances builder", task.instances, BUILDERS, task)
    _known("parser", task.parser, PARSERS, task)
    _known("scorer", task.scorer, SCORERS, task)
    _known("metric", task.metric, METRIC_NAMES, task)
    if judged := task.judge.get("judged_metric"):
        _known("judged_metric", judged, METRIC_NAMES, task)


def check_run(name: str, dataset: str, judges: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A `random` run of one task on `dataset`: every score the task lists must come out (judged ones only
    with a judge). Returns {task, n, scores, unchecked}; raises NyccBenchError naming what is wrong."""
    from ..evaluation import evaluate

    task = get_task(name)
    check_task(task)
    judge = (judges or {}).get(name)
    with tempfile.TemporaryDirectory(prefix="nycc-tasks-check-") as out:
        run = evaluate("random", [name], dataset, judge=judge, out=Path(out) / "run", progress=False, folds=[0])
    entry = run.record["tasks"].get(name)
    if entry is None and judge is None and task.needs_judge and name in run.record["skipped"]:
        return {"task": name, "n": 0, "scores": [], "unchecked": [s.key for s in task.scores]}
    if entry is None:
        why = run.record["skipped"].get(name) or run.record["errors"].get(name)
        raise NyccBenchError(f"task {name}: a random run produced no scores ({why})")
    wanted = [s for s in task.scores if not s.judged or judge is not None]
    # scores read from an extra check's output (`checks: [novelty]`) may be absent where the check cannot run
    if missing := [s for s in wanted if s.key not in entry["scores"] and s.path.split(".")[0] not in task.checks]:
        raise NyccBenchError(f"task file {task.source}: scores.path {missing[0].path!r} ({missing[0].key}) is not in "
                             f"the metric's output; it has {', '.join(sorted(entry['details']))}")
    return {"task": name, "n": entry["n"], "scores": sorted(entry["scores"]),
            "unchecked": [s.key for s in task.scores if s not in wanted]}
