"""Generated captions of a `caption_generation` predictions file, read strictly and without touching the file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import NyccBenchError


@dataclass
class Generated:
    """One model's captions by contest, and how many instances had none (failed or unparsed)."""

    name: str
    source: str
    captions: dict[int, list[str]] = field(default_factory=dict)
    n_instances: int = 0
    n_without_captions: int = 0


def _contest(instance_id: object, where: str) -> int:
    """A caption_generation instance id is its contest number."""
    try:
        return int(str(instance_id))
    except ValueError:
        raise NyccBenchError(f"{where}: instance_id {instance_id!r} is not a contest number; pass predictions of "
                             "the caption_generation task") from None


def _captions(prediction: object, where: str) -> list[str]:
    """A prediction is a list of caption strings (or null); blank strings are not captions."""
    if prediction is None:
        return []
    if not isinstance(prediction, list) or not all(isinstance(c, str) for c in prediction):
        raise NyccBenchError(f"{where}: prediction must be a list of caption strings or null, got "
                             f"{type(prediction).__name__}; pass predictions of the caption_generation task")
    return [c for c in prediction if c.strip()]


def from_mapping(mapping: Mapping[str, object], name: str, source: str = "<mapping>") -> Generated:
    """instance_id → list of captions (or None), e.g. what a runner holds in memory."""
    out = Generated(name, source)
    for instance_id, prediction in mapping.items():
        where = f"predictions: {source} instance {instance_id!r}"
        captions = _captions(prediction, where)
        out.captions[_contest(instance_id, where)] = captions
        out.n_instances += 1
        out.n_without_captions += not captions
    return out


def read_predictions_file(path: str | Path) -> Generated:
    """Runner JSONL (`instance_id`, `prediction`, optional `status`/`system`), or one JSON object contest → captions."""
    path = Path(path)
    if not path.is_file():
        raise NyccBenchError(f"predictions: {path} does not exist; pass the JSONL written by `nycc-bench run`")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise NyccBenchError(f"predictions: {path} is not UTF-8 text; pass the JSONL written by `nycc-bench run`"
                             ) from None
    stripped = text.strip()
    if stripped.startswith("{") and "\n" not in stripped:
        try:
            whole = json.loads(stripped)
        except json.JSONDecodeError:
            whole = None
        if isinstance(whole, dict) and whole and all(str(k).isdigit() for k in whole):
            return from_mapping(whole, path.stem, str(path))
    out = Generated(path.stem, str(path))
    records: dict[int, list[str]] = {}
    systems: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"predictions: {path} line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise NyccBenchError(f"{where} is not JSON ({e.msg}); fix or delete the line") from None
        if not isinstance(record, dict) or "instance_id" not in record:
            raise NyccBenchError(f"{where} has no instance_id; each line must be a JSON object with instance_id "
                                 "and prediction")
        failed = record.get("status") == "failed"
        records[_contest(record["instance_id"], where)] = [] if failed else _captions(record.get("prediction"), where)
        if isinstance(record.get("system"), str):
            systems.add(record["system"])
    if not records:
        raise NyccBenchError(f"predictions: {path} holds no records; run `nycc-bench run --task caption_generation`")
    out.captions = records
    out.n_instances = len(records)
    out.n_without_captions = sum(not c for c in records.values())
    if len(systems) == 1:
        out.name = systems.pop()
    return out
