"""`nycc-bench tasks check`, end to end: a `random` run of a task on a dataset (the sample by default) whose
instance ids are unique and every one of whose `scores:` paths resolves in the metric's output (judged scores
with the offline judges, when given). The static half is `nycc_bench.kinds.check.check_task`."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import NyccBenchError
from .evaluation import evaluate
from .kinds.check import check_task
from .tasks import get_task
from .tasks.definition import lookup


def check_run(name: str, dataset: str, judges: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A `random` run of one task on `dataset`: every score the task lists must come out (judged ones only
    with a judge). Returns {task, n, scores, unchecked}; raises NyccBenchError naming what is wrong."""
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
    # a pooled score is computed over runs (`standings`): its path must hold this run's per-item verdicts
    found = lambda s: isinstance(lookup(entry["details"], s.path), dict) if s.pooled else s.key in entry["scores"]  # noqa: E731
    if missing := [s for s in wanted if not found(s) and s.path.split(".")[0] not in task.checks]:
        raise NyccBenchError(f"task file {task.source}: scores.path {missing[0].path!r} ({missing[0].key}) is not in "
                             f"the metric's output; it has {', '.join(sorted(entry['details']))}")
    return {"task": name, "n": entry["n"], "scores": sorted([*entry["scores"], *(s.key for s in wanted if s.pooled)]),
            "unchecked": [s.key for s in task.scores if s not in wanted]}
