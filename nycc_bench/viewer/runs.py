"""A run folder as the viewer shows it: its results record (scores, status; None while a run has none yet) and
every predictions file's items, each with its prompt (from the message store), reply, parsed answer, gold,
correctness and the judge's verdicts, read from what the run wrote; nothing is re-scored or re-built."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import NyccBenchError
from ..predictions import as_text, judged_path, read_items, read_messages, read_meta
from ..results import ResultsError, read_results

PREDICTIONS = re.compile(r"(?P<task>.+?)(?:_fold(?P<fold>\d+))?\.jsonl")


@dataclass
class RunView:
    """One run folder: its record (or the reason it has none) and items by task."""

    folder: Path
    label: str
    record: dict[str, Any] | None
    problem: str | None
    items: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)


def load_run(folder: str | Path) -> RunView:
    """Read one run folder of `nycc-bench evaluate` (a folder with predictions but no results yet is shown too)."""
    folder = Path(folder)
    if folder.name == "results.json" and folder.is_file():  # the record itself: its run folder
        folder = folder.parent
    if not folder.is_dir():
        raise NyccBenchError(f"run: {folder} is not a folder; pass run folders of `nycc-bench evaluate` "
                             "(each holds results.json and predictions/)")
    found = sorted((folder / "predictions").glob("*.jsonl"))
    sidecars = {judged_path(f) for f in found}  # a judged task's verdicts file is its task's, never a task
    files = [f for f in found if f not in sidecars]
    if not files and not (folder / "results.json").exists():
        raise NyccBenchError(f"run: {folder} has neither results.json nor predictions/*.jsonl; pass a run folder of "
                             "`nycc-bench evaluate`")
    record, problem = None, None
    try:
        record = read_results(folder)
    except ResultsError as err:
        problem = "no results.json yet (a run in progress?)" if not (folder / "results.json").exists() else str(err)
    model = (record or {}).get("model") or {}
    view = RunView(folder, str(model.get("name") or model.get("spec") or folder.name), record, problem)
    for path in files:
        match = PREDICTIONS.fullmatch(path.name)
        if match is None:
            continue
        meta = read_meta(path) or {}
        task, fold = str(meta.get("task") or match["task"]), int(meta.get("fold", match["fold"] or 0))
        for ref, message in read_messages(path).items():
            view.messages.setdefault(ref, {k: message.get(k) for k in ("role", "content", "image")})
        if view.label == folder.name and meta.get("system"):
            view.label = str(meta["system"].get("spec") or folder.name)
        for instance_id, r in read_items(path).items():
            view.items.setdefault(task, []).append({
                "key": f"{fold}:{instance_id}", "id": instance_id, "contest": r.get("contest"), "fold": fold,
                "status": r.get("status"),
                "prompt": r.get("messages") or [], "reply": as_text(r.get("raw")),
                "parsed": as_text(r.get("prediction")), "source": r.get("answer_source"),
                "gold": as_text(r.get("gold")), "correct": r["correct"],
                "error": r.get("error"), "judge": r["judge"], "verdicts": r["verdicts"]})
    return view


def load_runs(folders: list[str | Path]) -> list[RunView]:
    """Every run folder given, labels made distinct (the same model twice is told apart by its folder)."""
    views = [load_run(f) for f in folders]
    labels = [v.label for v in views]
    for v in views:
        if labels.count(v.label) > 1:
            v.label = f"{v.label} ({v.folder.name})"
    return views


def find_item(views: list[RunView], run: int, task: str, key: str) -> dict[str, Any] | None:
    """One item of one run (by the run's position, the task and the item's key), or None."""
    if not 0 <= run < len(views):
        return None
    return next((i for i in views[run].items.get(task, []) if i["key"] == key), None)
