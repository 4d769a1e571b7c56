"""The build command's helpers: where a source is (`sample`, `upstream`, a folder) and the table it prints."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .errors import NyccBenchError
from .paths import SAMPLE_DIR


def resolve_source(source: str, progress: bool = True) -> list[Path]:
    """`sample` → the embedded sample (package data); `upstream` → download the real sources (or, with
    `NYCC_BENCH_UPSTREAM_DIR` set, read that folder: an offline mirror of the upstream files); else a folder."""
    if source == "sample":
        return [SAMPLE_DIR]
    if source == "upstream" and (mirror := os.environ.get("NYCC_BENCH_UPSTREAM_DIR")):
        if not Path(mirror).is_dir():
            raise NyccBenchError(f"NYCC_BENCH_UPSTREAM_DIR: {mirror} is not a folder; unset it to download")
        return [Path(mirror)]
    if source == "upstream":
        from .builders.download import fetch_upstream

        return fetch_upstream(progress=progress)
    return [Path(source)]


def summary_table(report: Any) -> str:
    """A plain-text table of configs and their split sizes, as printed after a build."""
    splits = ("train", "validation", "test")
    header = f"{'config':<28}" + "".join(f"{s:>12}" for s in splits)
    lines = [header, "-" * len(header)]
    for name, rows in report.rows.items():
        lines.append(f"{name:<28}" + "".join(f"{rows[s]:>12,}" if s in rows else f"{'-':>12}" for s in splits))
    if report.skipped:
        lines.append(f"no source for: {', '.join(report.skipped)}")
    lines.append(f"written to {report.out_dir}  (load with datasets.load_dataset({str(report.out_dir)!r}, CONFIG))")
    return "\n".join(lines)
