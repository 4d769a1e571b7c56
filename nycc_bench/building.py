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
        from .builders.download import DownloadError, fetch_upstream

        try:
            return fetch_upstream(progress=progress)
        except DownloadError as err:
            raise DownloadError(f"{err}; {OFFLINE_HINT}") from None
    return [Path(source)]


OFFLINE_HINT = ("offline? set NYCC_BENCH_UPSTREAM_DIR to a local folder holding the upstream files (`nycc-bench "
                "sources` lists them) and run `NYCC_BENCH_UPSTREAM_DIR=DIR nycc-bench build --source upstream --out "
                "OUT`, or point HF_ENDPOINT (and NYCC_GITHUB_API/NYCC_GITHUB_RAW) at mirrors")


def source_label(source: str) -> str:
    """How a `--source` value is recorded on the card: `sample`, `upstream`, or the folder's absolute path."""
    return source if source in ("sample", "upstream") else str(Path(source).resolve())


def recorded_source(dataset: str | Path, config: str | None = None) -> str:
    """The `--source` a built folder's card records (for `config`, else the first config), else `upstream`.

    Hints that tell the user to build a missing config name this source, so following them adds to the dataset
    from the same source instead of mixing in (or being refused for) another one.
    """
    from .builders.merge import read_existing

    try:
        existing = read_existing(Path(dataset))
    except NyccBenchError:
        return "upstream"
    sources = [e.source for name, e in existing.items() if config in (None, name)] or \
        [e.source for e in existing.values()]
    known = [s for s in sources if s == "sample" or s == "upstream" or Path(s).is_dir()]
    return known[0] if known else "upstream"


def build_command(dataset: str | Path, configs: list[str] | str) -> str:
    """The full command that adds `configs` to the built folder `dataset`, `--source` included."""
    names = [configs] if isinstance(configs, str) else list(configs)
    return f"nycc-bench build --source {recorded_source(dataset)} --out {dataset} --configs {' '.join(names)}"


def summary_table(report: Any) -> str:
    """A plain-text table of configs and their split sizes, as printed after a build."""
    splits = ("train", "validation", "test")
    header = f"{'config':<28}" + "".join(f"{s:>12}" for s in splits)
    lines = [header, "-" * len(header)]
    for name, rows in report.rows.items():
        lines.append(f"{name:<28}" + "".join(f"{rows[s]:>12,}" if s in rows else f"{'-':>12}" for s in splits))
    if report.skipped:
        lines.append(f"no source for: {', '.join(report.skipped)}")
    if report.kept:
        lines.append(f"kept as they were: {', '.join(report.kept)}")
    lines.append(f"written to {report.out_dir}  (load with datasets.load_dataset({str(report.out_dir)!r}, CONFIG))")
    return "\n".join(lines)
