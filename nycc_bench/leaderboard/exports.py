"""The leaderboard's downloads: every run and metric as CSV and JSON records."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from ..results import run_id
from ..standings import task_judges, with_pooled
from ..tasks.scores import metrics
from .store import write_atomic


def export_records(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The whole leaderboard as plain records (every run, every metric, original scale) for the downloads."""
    out = []
    for result in sorted(with_pooled(results), key=run_id):
        model = result.get("model", {})
        judges = task_judges(result)
        record: dict[str, Any] = {
            "run_id": run_id(result), "model": model.get("name") or model.get("spec"), "spec": model.get("spec"),
            "type": model.get("type"), "parameters": model.get("parameters"),
            "revision": model.get("commit") or model.get("revision"),
            "sample_data": bool(result.get("dataset", {}).get("sample")),
            "dataset_fingerprint": result.get("dataset", {}).get("fingerprint"),
            "nycc_bench_version": result.get("nycc_bench_version"), "created_at": result.get("created_at")}
        for metric in metrics():
            value, low, high, n = metric.extract((result.get("tasks", {}).get(metric.task) or {}).get("scores"))
            record.update({metric.key: value, f"{metric.key}:ci_low": low, f"{metric.key}:ci_high": high,
                           f"{metric.key}:n": n,
                           f"{metric.key}:judge": judges.get(metric.task) if metric.judged else None})
        out.append(record)
    return out


def write_exports(results: list[dict[str, Any]], folder: Path) -> list[str]:
    """`leaderboard.csv` and `leaderboard.json` of every run (unfiltered), written atomically into `folder`."""
    records = export_records(results)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    columns = list(records[0]) if records else ["run_id"]
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    write_atomic(folder / "leaderboard.csv", text.getvalue())
    write_atomic(folder / "leaderboard.json", json.dumps(records, indent=2, ensure_ascii=False) + "\n")
    return [str(folder / "leaderboard.csv"), str(folder / "leaderboard.json")]
