"""Predictions files: JSONL, one record per instance, and the `<file>.meta.json` sidecar that says what made them.

A record is `{"instance_id", "status", "prediction", "raw", "prompt_version", "system"}` (+ `"error"`), where
status is `ok` (parsed), `unparsed` (a reply was received but the task's parser could not read it: counted in
`n_unparsed`; the prediction is null, or for Hessel's choice tasks the answer extractor's or seeded fallback
letter, with `answer_source` saying which, as upstream scores it) or
`failed` (no reply: transport or API failure; retried by the next run, never scored as an answer). A later
record of the same instance replaces an earlier one (a retried failure appends its answer).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import NyccBenchError

OK, UNPARSED, FAILED = "ok", "unparsed", "failed"
STATUSES = (OK, UNPARSED, FAILED)


def meta_path(path: str | Path) -> Path:
    """The sidecar of a predictions file."""
    path = Path(path)
    return path.with_name(path.name + ".meta.json")


def read_meta(path: str | Path) -> dict[str, Any] | None:
    """A predictions file's sidecar, or None when it has none (e.g. a Hessel-style JSON file)."""
    meta = meta_path(path)
    if not meta.exists():
        return None
    try:
        return json.loads(meta.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise NyccBenchError(f"predictions: {meta} is not JSON ({err}); delete it and re-run") from None


def _record(line: bytes, path: Path, number: int) -> dict[str, Any] | None:
    """One parsed line; None for a torn one."""
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("instance_id"), str):
        raise NyccBenchError(f"predictions: {path}, line {number}: a record needs a string instance_id; "
                             "write one JSON object per line as `nycc-bench run` does")
    status = record.setdefault("status", OK if record.get("prediction") is not None else UNPARSED)
    if status not in STATUSES:
        raise NyccBenchError(f"predictions: {path}, line {number}: status {status!r} is not one of "
                             f"{', '.join(STATUSES)}")
    return record


def read_predictions(path: str | Path, repair: bool = False) -> dict[str, dict[str, Any]]:
    """Records by instance id. A torn last line (a killed run) is ignored, and cut off the file only when
    `repair` is set (the runner resuming); readers that score never write to what they read."""
    path = Path(path)
    if not path.exists():
        return {}
    records: dict[str, dict[str, Any]] = {}
    data = path.read_bytes()
    lines = data.split(b"\n")
    good_bytes = 0
    for number, line in enumerate(lines, 1):
        last = number == len(lines) or (number == len(lines) - 1 and not lines[-1])
        if not line.strip():
            good_bytes += len(line) + (0 if number == len(lines) else 1)
            continue
        record = _record(line, path, number) if number != len(lines) else None  # no newline: torn
        if record is None:
            if not last:
                raise NyccBenchError(f"predictions: {path}, line {number} is not JSON; the file is damaged (delete "
                                     "that line, and `nycc-bench run` answers its instance again)")
            break
        records[record["instance_id"]] = record
        good_bytes += len(line) + 1
    if repair and good_bytes < len(data):
        with open(path, "r+b") as f:
            f.truncate(good_bytes)
    return records
