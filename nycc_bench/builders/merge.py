"""Building into an existing dataset: keep the configs this build does not make, refuse to overwrite another source's.

The card records, per config, the source it was built from (`sample`, `upstream` or a folder) and its license
in the YAML key `nycc_bench_configs`; a later build reads that record back, so the kept configs stay on the card
with their sizes, licenses and sources, and their parquet files are hard-linked into the new output.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..dataset_info import ConfigInfo, infos_from_card
from ..errors import NyccBenchError
from .card_file import card_data
from .writer import BuiltConfig, ConfigSpec

RECORD_KEY = "nycc_bench_configs"  # card YAML: {config: {source: ..., license: ...}}
SOURCE_COLUMNS = ("image_source", "hessel_source", "gpt4o_source")  # what the card's source_datasets reads
FLAG_COLUMNS = ("is_repeated_row", "is_duplicate_text", "is_empty_text", "has_line_break")  # counted by the card
UNKNOWN = "unknown (card written before sources were recorded)"


@dataclass
class Existing:
    """A config already in the output folder: its recorded source and license, and its info as the card holds it."""

    name: str
    source: str
    license: str | None
    info: ConfigInfo
    upstream_files: dict[str, list[str]] = field(default_factory=dict)  # split -> the upstream files it was read from


def read_existing(out_dir: Path) -> dict[str, Existing]:
    """The configs an existing output's card lists, with the source each was built from (empty when none)."""
    card_path = Path(out_dir) / "README.md"
    if not card_path.is_file():
        return {}
    try:
        data = card_data(card_path)
    except Exception as err:  # any unreadable card: we cannot tell what a build would destroy
        raise NyccBenchError(f"out: {card_path} is not a readable dataset card ({err}); pass another --out "
                             "or move that folder away") from None
    record = data.get(RECORD_KEY) or {}
    infos = infos_from_card(data)
    sample = "sample-data" in (data.get("tags") or [])
    out = {}
    for entry in data.get("configs") or []:
        name = entry["config_name"]
        rec = record.get(name) or {}
        source = rec.get("source") or ("sample" if sample else UNKNOWN)
        out[name] = Existing(name, source, rec.get("license"), infos.get(name) or ConfigInfo(name, None),
                             rec.get("upstream_files") or {})
    return out


def conflicts(existing: dict[str, Existing], names: list[str] | set[str], source: str) -> list[Existing]:
    """Configs this build would replace that were built from a different source."""
    return [existing[n] for n in sorted(names) if n in existing and existing[n].source != source]


def refuse_conflicts(existing: dict[str, Existing], names: list[str] | set[str], source: str,
                     out_dir: Path) -> None:
    """Raise (one line naming each config, both sources and the full commands out) unless nothing conflicts."""
    clash = conflicts(existing, names, source)
    if not clash:
        return
    what = "; ".join(f"{c.name} (built from {c.source})" for c in clash)
    command = f"nycc-bench build --source {source} --out {out_dir}"
    keep = sorted(set(names) - {c.name for c in clash})
    others = f", or build only the others with `{command} --configs {' '.join(keep)}`" if keep else ""
    raise NyccBenchError(f"out: {out_dir} already holds {what}, which this build from {source} would replace; "
                         f"to replace them run `{command} --configs {' '.join(c.name for c in clash)} --replace`"
                         f"{others}")


def kept_configs(existing: dict[str, Existing], built: list[str]) -> list[Existing]:
    """The existing configs this build leaves as they are."""
    return [e for name, e in existing.items() if name not in built]


def link_data(target: Path, stage: Path, names: list[str]) -> None:
    """Hard-link (else copy) the parquet folders of kept configs into the staging folder: the old output stays whole
    until the swap, and nothing is read into memory."""
    for name in names:
        src = Path(target) / "data" / name
        if not src.is_dir():
            continue
        dst = Path(stage) / "data" / name
        dst.mkdir(parents=True, exist_ok=True)
        for f in src.iterdir():
            try:
                os.link(f, dst / f.name)
            except OSError:
                shutil.copy2(f, dst / f.name)


def as_built(target: Path, kept: Existing, spec: ConfigSpec) -> BuiltConfig:
    """A kept config as the card needs it: its splits hold only the columns `source_datasets` reads."""
    folder = Path(target) / "data" / kept.name
    splits = {}
    for split in kept.info.splits or {}:
        files = sorted(folder.glob(f"{split}-*.parquet"))
        names = pq.read_schema(files[0]).names if files else []
        columns = [c for c in (*SOURCE_COLUMNS, *FLAG_COLUMNS) if c in names]
        splits[split] = pa.concat_tables([pq.read_table(f, columns=columns) for f in files]) if files and columns \
            else pa.table({})
    return BuiltConfig(spec, splits, kept.license, kept.upstream_files)
