"""Predictions files: JSONL, one record per instance, and the `<file>.meta.json` sidecar that says what made them.

A record is `{"instance_id", "status", "prediction", "raw", "prompt_version", "system", "messages", "gold",
"correct"}` (+ `"error"`; `gold` is the reference the answer is scored against, `correct` its verdict where one item
has one, a choice task's, else null;
`messages` references the prompt's messages in `<file>.messages.jsonl.gz`, see `attach_messages`), where
status is `ok` (parsed), `unparsed` (a reply was received but the task's parser could not read it: counted in
`n_unparsed`; the prediction is null, or for Hessel's choice tasks the answer extractor's or seeded fallback
letter, with `answer_source` saying which, as upstream scores it) or
`failed` (no reply: transport or API failure; retried by the next run, never scored as an answer). A later
record of the same instance replaces an earlier one (a retried failure appends its answer).
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from pathlib import Path
from typing import Any

from .errors import NyccBenchError
from .secrets import scrub_data

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
    `repair` is set (the runner resuming); readers that score never write to what they read.

    The file is streamed line by line: memory holds the last record of each instance, whatever the number of
    lines (a long resumed run's retries)."""
    path = Path(path)
    if not path.exists():
        return {}
    records: dict[str, dict[str, Any]] = {}
    good_bytes = size = 0
    with open(path, "rb") as f:
        lines = iter(f)
        line, number = next(lines, b""), 1
        while line:
            following = next(lines, b"")
            size += len(line)
            if line.isspace():
                good_bytes += len(line)
            else:
                record = _record(line, path, number) if line.endswith(b"\n") else None  # no newline: torn
                if record is None:
                    if following:
                        raise NyccBenchError(f"predictions: {path}, line {number} is not JSON; the file is damaged "
                                             "(delete that line, and `nycc-bench run` answers its instance again)")
                    break
                records[record["instance_id"]] = record
                good_bytes += len(line)
            line, number = following, number + 1
    if repair and good_bytes < size:
        with open(path, "r+b") as f:
            f.truncate(good_bytes)
    return records


def first_error(files: list[Path]) -> str | None:
    """The error of the first failed item in predictions files (what a failed run is reported with); files that
    are missing or damaged are passed over."""
    for path in files:
        try:
            records = read_predictions(path)
        except (OSError, NyccBenchError):
            continue
        if failed := next((r for r in records.values() if r.get("status") == FAILED), None):
            return str(failed.get("error") or "no reply")
    return None


# ---- prompts in the logs ---------------------------------------------------------------------------------------
# Each record keeps the messages it was answered from as `"messages": [<ref>, ...]`, one reference per message; the
# messages themselves are stored once per predictions file in `<file>.messages.jsonl.gz` (`{"ref", "role",
# "content"}` per line, one gzip member appended per batch), since most are shared (Hessel's system and
# instruction turns, HumorBench's prompt of every element of a caption) and the rest share their template, which
# gzip folds (benchmarks/prompt_log_size.py). A message sent with the cartoon says so (`"image": true`).


def messages_path(path: str | Path) -> Path:
    """The message store of a predictions file."""
    path = Path(path)
    return path.with_name(path.name + ".messages.jsonl.gz")


def message_ref(message: dict[str, Any]) -> str:
    """A message's content address: 16 hex digits of the sha256 of its role, text and image flag."""
    import hashlib

    key = json.dumps([message.get("role"), message.get("content"), bool(message.get("image"))], ensure_ascii=False)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def read_messages(path: str | Path) -> dict[str, dict[str, Any]]:
    """The message store of a predictions file by reference (empty when it has none; a torn last member skipped)."""
    store = messages_path(path)
    if not store.exists():
        return {}
    return _entries(_gunzip_members(store.read_bytes())[0])


def _entries(text: bytes) -> dict[str, dict[str, Any]]:
    out = {}
    for line in text.decode("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        out[entry["ref"]] = entry
    return out


def _gunzip_members(data: bytes) -> tuple[bytes, int]:
    """The text of every whole gzip member, in order, and how many bytes they take; a torn last member (a
    killed run, a full disk) is left out."""
    out, good = [], 0
    while good < len(data):
        member = zlib.decompressobj(wbits=31)
        try:
            text = member.decompress(memoryview(data)[good:])
        except zlib.error:
            break
        if not member.eof:
            break
        out.append(text)
        good = len(data) - len(member.unused_data)
    return b"".join(out), good


def _append_member(store: Path, member: bytes, good: int) -> None:
    """Append one gzip member whole or not at all after the `good` bytes of whole members: a torn tail left by a
    killed run is cut off first, and a write that fails (a full disk) is cut back, so the members before it, and
    those appended later, stay readable."""
    with open(store, "r+b" if store.exists() else "w+b", buffering=0) as f:
        f.truncate(good)
        f.seek(good)
        try:
            view = memoryview(member)
            while view:
                view = view[f.write(view) or 0:]
            os.fsync(f.fileno())
        except OSError:
            f.truncate(good)
            raise


def attach_messages(path: str | Path, instances: list[Any], records: list[dict[str, Any]]) -> None:
    """Store the messages of a batch (those not stored yet) and give each record its references; called by the
    runner before it writes the records, so a record never names a message the store lacks."""
    store = messages_path(path)
    text, good = _gunzip_members(store.read_bytes()) if store.exists() else (b"", 0)
    known = set(_entries(text))
    new: dict[str, dict[str, Any]] = {}
    for inst, record in zip(instances, records, strict=True):
        refs = []
        messages = inst.messages()
        for k, message in enumerate(messages):
            entry = {"role": message["role"], "content": scrub_data(message["content"])}
            if k == len(messages) - 1 and getattr(inst, "image", None) is not None:
                entry["image"] = True  # the last user turn is sent with the cartoon
            ref = message_ref(entry)
            refs.append(ref)
            if ref not in known:
                new[ref] = {"ref": ref, **entry}
        record["messages"] = refs
    if new:
        store.parent.mkdir(parents=True, exist_ok=True)
        _append_member(store, gzip.compress("".join(json.dumps(e, ensure_ascii=False) + "\n"
                                                    for e in new.values()).encode(), mtime=0), good)


def record_messages(path: str | Path, record: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The messages a record was answered from (None for a record written before prompts were kept)."""
    refs = record.get("messages")
    if refs is None:
        return None
    store = read_messages(path)
    missing = [r for r in refs if r not in store]
    if missing:
        raise NyccBenchError(f"predictions: {messages_path(path)} lacks message {missing[0]}; the store was "
                             "deleted or cut short (re-run into a new file to keep the prompts)")
    return [{k: v for k, v in store[r].items() if k != "ref"} for r in refs]


# ---- judge verdicts per item -------------------------------------------------------------------------------------
# A judged task's verdicts are made when it is scored, after the predictions; `evaluate` keeps them per item in
# `<file>.judged.jsonl` (`{"instance_id", "judge", "correct", "verdicts": [{..., "verdict", "reasoning"}]}`),
# rewritten whole at each scoring (removed when a task is scored without a judge), so a viewer or a dataframe
# shows them without calling the judge again.


def judged_path(path: str | Path) -> Path:
    """The per-item judge verdicts of a predictions file."""
    path = Path(path)
    return path.with_name(path.name + ".judged.jsonl")


def write_judged(path: str | Path, items: dict[str, dict[str, Any]] | None) -> None:
    """Replace a predictions file's judge verdicts (atomically); None or empty removes them."""
    target = judged_path(path)
    if not items:
        target.unlink(missing_ok=True)
        return
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text("".join(json.dumps({"instance_id": k, **v}, ensure_ascii=False, default=str) + "\n"
                           for k, v in items.items()), encoding="utf-8")
    os.replace(tmp, target)


def read_judged(path: str | Path) -> dict[str, dict[str, Any]]:
    """A predictions file's judge verdicts by instance id (empty when it has none)."""
    target = judged_path(path)
    if not target.exists():
        return {}
    out = {}
    for number, line in enumerate(target.read_text(encoding="utf-8").splitlines(), 1):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            raise NyccBenchError(f"predictions: {target}, line {number} is not JSON; delete the file and score "
                                 "again (`nycc-bench evaluate` rewrites it)") from None
        out[str(entry.get("instance_id"))] = entry
    return out


def read_items(path: str | Path) -> dict[str, dict[str, Any]]:
    """The records of a predictions file with their judge verdicts joined: `judge` and `verdicts` added, and
    `correct` taken from the judge where the record has none (what the viewer and pushed details show)."""
    judged = read_judged(path)
    out = {}
    for instance_id, record in read_predictions(path).items():
        found = judged.get(instance_id) or {}
        correct = record.get("correct") if record.get("correct") is not None else found.get("correct")
        out[instance_id] = {**record, "correct": correct, "judge": found.get("judge"),
                            "verdicts": found.get("verdicts") or []}
    return out


def as_text(value: Any) -> str | None:
    """A reply, answer or reference as one string (lists and objects as JSON), for a page or a table column."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
