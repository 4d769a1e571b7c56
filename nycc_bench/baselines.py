"""The baselines on a dataset, the one run that the leaderboard seed, the model cards and the demo share: each
system on the tasks it answers (`systems.registry.answered`: its class's declarations), through
`nycc_bench.evaluate`, judged by the offline judges. A record to publish writes its folders as the placeholders
`DATASET` and `RUN`, after the build command (`placeholders`), so its commands rerun as written in an empty
folder."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .evaluation import evaluate
from .judging import JudgeSpec
from .systems import BASELINES
from .systems.registry import answered, lookup

DATASET, RUN = "DATASET", "RUN"
"""The placeholders of the built dataset's folder and of the runs' folder in a baselines record."""


@dataclass(frozen=True)
class BaselineRun:
    """One system's run: its run id (the folder under the runs), the run folder, and its record as evaluated."""

    spec: str
    run_id: str
    folder: Path
    record: dict[str, Any]


def placeholders(record: dict[str, Any], dataset: Path, runs: Path, source: str) -> dict[str, Any]:
    """The record with the dataset and runs folders written as `DATASET` and `RUN`, and the build command first."""
    text = json.dumps(record)
    for folder, name in ((dataset, DATASET), (runs, RUN)):
        text = text.replace(json.dumps(str(folder))[1:-1], name)
    out = json.loads(text)
    out["commands"] = [f"nycc-bench build --source {source} --out {DATASET}", *out["commands"]]
    return out


def run_baselines(dataset: Path, runs: Path, judges: Mapping[str, JudgeSpec] | None,
                  systems: Sequence[str] | None = None, progress: bool = False,
                  run_id: Any = None) -> list[BaselineRun]:
    """Evaluate each system (default: every registered baseline) on the tasks it answers into
    `runs/<run id>` (`run_id(spec)`, default the spec's kind), judged by `judges` (task -> judge)."""
    out = []
    for spec in systems if systems is not None else list(BASELINES):
        name = run_id(spec) if run_id else spec.split(":")[0]
        title = BASELINES.get(spec)
        model = {"name": spec, "type": "baseline", "license": "n/a (baseline)", "title": title} if title else \
            {"name": spec}
        tasks = answered(lookup(spec))
        judge = {t: j for t, j in judges.items() if t in tasks} if judges is not None else None  # named: what runs
        result = evaluate(spec, tasks, dataset=str(dataset), judge=judge, out=runs / name, progress=progress,
                          model=model, extra={"run_id": name, "options": {}})
        out.append(BaselineRun(spec, name, runs / name, result.record))
    return out
