"""A run folder (`--out`): where each task's predictions go, which folds run, and the rules for running into a folder
that already holds a run.

A second `evaluate` into the same folder never loses or mixes results: the tasks it does not run are kept as they
were; predictions or a record made by another system, endpoint, served checkpoint or code version are refused in
one line that names the difference and the fix (a new `--out`, or `--overwrite TASK`, which deletes that task's
predictions and entry first); and a task re-scored without a judge from unchanged predictions keeps its judged
entry.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .errors import NyccBenchError
from .tasks import config_name, get_task

log = logging.getLogger("nycc_bench")

IDENTITY = {"spec": "system", "endpoint": "endpoint", "served": "served model", "revision": "revision",
            "fingerprint": "checkpoint fingerprint"}
"""What makes two runs the same system, as records and predictions sidecars name it (key -> how it is said)."""


def predictions_path(out: Path, task: str, fold: int) -> Path:
    """Where one task's (and fold's) predictions go in a run folder."""
    return out / "predictions" / (f"{task}.jsonl" if fold == 0 else f"{task}_fold{fold}.jsonl")


def available_folds(task_name: str, dataset: str, wanted: Sequence[int] | None) -> list[int]:
    """The folds to run: those asked for, else every fold of the task that the dataset has."""
    task = get_task(task_name)
    if not task.has_folds:
        return [0]
    if wanted is not None:
        return [f for f in wanted if config_name(task, f)]  # config_name rejects a fold the task lacks
    root = Path(dataset)
    if root.is_dir():
        present = [f for f in task.folds if (root / "data" / config_name(task, f)).is_dir()]
        return present or [0]
    return list(task.folds)


def identity_difference(old: Mapping[str, Any], new: Mapping[str, Any]) -> str | None:
    """How two systems differ (`system 'a', now 'b'`), or None when they are the same one. A served model's
    identity is compared only when both sides know it."""
    for key, said in IDENTITY.items():
        before, now = old.get(key), new.get(key)
        if key == "served" and (not before or not now):
            continue
        if before != now:
            return f"{said} {before!r}, now {now!r}"
    return None


def refusal(out: Path, what: str, tasks: Sequence[str]) -> NyccBenchError:
    """The one-line refusal to mix runs, naming the difference and both fixes."""
    return NyccBenchError(f"out: {out} holds {what}; pass a new --out, or --overwrite {','.join(tasks)} to replace "
                          "them")


def previous_record(out: Path) -> dict[str, Any] | None:
    """The record already in the folder, or None; an unreadable one is refused (never silently replaced)."""
    from .results import ResultsError, read_results

    path = out / "results.json"
    if not path.exists():
        return None
    try:
        return read_results(path)
    except ResultsError as err:
        raise NyccBenchError(f"out: {path} cannot be read ({str(err).splitlines()[0]}); pass a new --out, or "
                             "delete it to start over") from None


def check_previous(out: Path, previous: Mapping[str, Any] | None, model: Mapping[str, Any], dataset: str,
                   overwrite: Sequence[str]) -> None:
    """Refuse to write into a folder whose record is another system's or another dataset's, unless every task it
    holds is overwritten."""
    if previous is None:
        return
    held = sorted({*previous.get("tasks", {}), *(previous.get("skipped") or {}), *(previous.get("errors") or {})}
                  - set(overwrite))
    if not held:
        return
    if difference := identity_difference(previous["model"], model):
        raise refusal(out, f"results of another system ({difference}) for {', '.join(held)}", held)
    before = (previous.get("dataset") or {}).get("name")
    if before and not same_dataset(before, dataset):
        raise refusal(out, f"results on dataset {before!r}, not {dataset!r}, for {', '.join(held)}", held)


def same_dataset(a: str, b: str) -> bool:
    """Whether two dataset names mean the same thing (folders compared by their resolved path)."""
    pa, pb = Path(a), Path(b)
    if pa.exists() and pb.exists():
        return pa.resolve() == pb.resolve()
    return a == b


def remove_task(out: Path, task: str) -> list[Path]:
    """Delete a task's predictions (every fold, with their sidecars and prompt logs) for `--overwrite`."""
    folder = out / "predictions"
    gone = [p for pattern in (f"{task}.jsonl*", f"{task}_fold*.jsonl*") for p in folder.glob(pattern)
            if p.name.split(".jsonl")[0] in (task, *(f"{task}_fold{k}" for k in range(100)))]
    for path in gone:
        path.unlink()
    if gone:
        log.warning("--overwrite %s: deleted %d predictions files", task, len(gone))
    return gone


def judged(entry: Mapping[str, Any]) -> bool:
    """Whether a task entry was scored by a judge."""
    return bool(((entry.get("config") or {}).get("judge") or {}).get("name"))


def judge_by_task(record: Mapping[str, Any]) -> dict[str, Any]:
    """task -> how the record describes its judge (a record holds one judge for all, or one per task)."""
    judge = record.get("judge")
    if not isinstance(judge, dict) or not judge:
        return {}
    if "backend" in judge or "name" in judge:
        return dict.fromkeys(record.get("tasks", {}), judge)
    return {t: j for t, j in judge.items() if j is not None}


def merged(previous: Mapping[str, Any] | None, record: dict[str, Any], ran: Sequence[str],
           overwrite: Sequence[str]) -> dict[str, Any]:
    """The new record with the earlier record's tasks that this run neither ran nor overwrote, their judges,
    commands and notes kept (the tasks not in the new run are never dropped)."""
    if previous is None:
        return record
    gone = {*ran, *overwrite}
    kept = {t: e for t, e in previous.get("tasks", {}).items() if t not in gone and t not in record["tasks"]}
    if not kept and not (previous.get("skipped") or previous.get("errors")):
        return record
    out = dict(record)
    out["tasks"] = {**kept, **record["tasks"]}
    for key in ("skipped", "errors"):
        old = {t: why for t, why in (previous.get(key) or {}).items() if t not in gone and t not in out["tasks"]}
        out[key] = {**old, **record.get(key, {})}
    judges = {**{t: j for t, j in judge_by_task(previous).items() if t in kept}, **judge_by_task(record)}
    distinct = {repr(sorted(j.items())) if isinstance(j, dict) else repr(j) for j in judges.values()}
    out["judge"] = (next(iter(judges.values())) if len(distinct) == 1 else judges) if judges else None
    out["commands"] = list(dict.fromkeys([*previous.get("commands", []), *record["commands"]]))
    out["notes"] = list(dict.fromkeys([*previous.get("notes", []), *record.get("notes", [])]))
    if kept:
        out["notes"].append(f"Kept from the earlier run in this folder: {', '.join(sorted(kept))}.")
    return out
