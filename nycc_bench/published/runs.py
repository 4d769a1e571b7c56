"""What every published run shares: its provenance block (the authors' repository, pinned commit, file, sha256;
never a local path), the results record around its task entries, and the run folder it is written to."""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..predictions import OK
from ..reproducing.inputs import Needed
from ..run_folder import predictions_path
from ..secrets import scrub

PUBLISHED_BY = "published by the authors"
SOURCE = "published"


def provenance(need: Needed, path: Path) -> dict[str, str]:
    """One published file as the record names it: the repository, the pinned commit, the path in the repository
    and the sha256 of the bytes read (never where it sits on this machine)."""
    return {"published_by": PUBLISHED_BY, "repo": need.repo, "commit": need.commit, "path": need.path,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


@dataclass
class PublishedRun:
    """One published system, ready to be written: its run id, the paper's name, its task entries and files."""

    run_id: str
    name: str
    paper: str
    entries: dict[str, dict[str, Any]]
    predictions: dict[str, list[dict[str, Any]]]  # task -> predictions records
    judged: dict[str, dict[str, dict[str, Any]]]  # task -> instance id -> the stored verdicts
    files: list[dict[str, str]]  # provenance of each file read
    judge: dict[str, Any] | None
    notes: list[str]
    extra: dict[str, Any]

    @property
    def spec(self) -> str:
        """The system spec the record names (no system of this toolkit answered: the authors' outputs did)."""
        return f"{SOURCE}:{self.run_id}"


def prediction_lines(run: PublishedRun, task: Any, items: Sequence[tuple[str, Any]]) -> list[dict[str, Any]]:
    """The predictions records of one task, as the runner writes them, answered by the authors' stored outputs."""
    return [{"instance_id": iid, "status": OK, "prediction": prediction, "raw": None, "answer_source": SOURCE,
             "prompt_version": task.prompt_version, "system": run.spec} for iid, prediction in items]


def write_run(run: PublishedRun, out: Path, source_label: str, command: Sequence[str]) -> Any:
    """Write `out/<run id>/results.json` and its predictions (and stored verdicts); returns the RunResult."""
    from ..evaluation import RunResult
    from ..predictions import write_judged
    from ..results import SCHEMA, validate_results

    folder = out / run.run_id
    entries = {}
    for task_name, entry in run.entries.items():
        target = predictions_path(folder, task_name, 0)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(scrub("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                        for r in run.predictions[task_name])), encoding="utf-8")
        write_judged(target, run.judged.get(task_name))
        entries[task_name] = {**entry, "predictions": [target.relative_to(folder).as_posix()]}
    record = {
        "schema": SCHEMA, "nycc_bench_version": __version__, "git_commit": None, "created_at": "published",
        "model": {"spec": run.spec, "name": run.name, "source": SOURCE, "type": SOURCE, "revision": None,
                  "fingerprint": None, "parameters": None},
        "dataset": {"name": source_label, "revision": None, "fingerprint": None, "sample": False},
        "environment": {k: None for k in ("python", "torch", "transformers", "datasets", "evaluate", "platform",
                                          "device")},
        "judge": run.judge, "tasks": entries, "skipped": {}, "errors": {},
        "commands": [shlex.join(command)], "notes": run.notes,
        "extra": {"run_id": run.run_id, "provenance": {"published_by": PUBLISHED_BY, "paper": run.paper,
                                                       "files": run.files}, **run.extra},
    }
    result = RunResult(validate_results(record))
    result.save(folder / "results.json")
    return result


def published_task(scorer: str) -> Any:
    """The task the authors' outputs answer: the one scored by `scorer` on the whole of its dataset config (the
    task named as its config; a variant has another name), read from the task files rather than named here."""
    from ..tasks import all_tasks

    tasks = [t for t in all_tasks().values() if t.scorer == scorer]
    return min(tasks, key=lambda t: (t.name != t.config, t.name))


def status_fields(task: Any, entry: Mapping[str, Any], judge: Any) -> dict[str, str]:
    """The entry's status by the one wholeness rule (`wholeness.judge_status`)."""
    from ..wholeness import judge_status

    return judge_status(task, entry, judge).fields()
