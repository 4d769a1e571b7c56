"""Build the Hub dataset repo (parquet shards + card) from the upstream raw files of all three families."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from . import hessel2023, humorbench, zhang2024
from .card import write_card
from .errors import SourceError
from .options import BuildOptions
from .sources import discover
from .staging import staged_output
from .writer import BuiltConfig, write_config

FAMILIES = {"hessel2023": hessel2023, "zhang2024": zhang2024, "humorbench": humorbench}
ALL_CONFIGS: dict[str, str] = {name: key for key, mod in FAMILIES.items() for name in mod.CONFIGS}

__all__ = ["ALL_CONFIGS", "BuildOptions", "BuildReport", "SourceError", "build_dataset", "check_configs"]


@dataclass
class BuildReport:
    """What a build wrote: per config, the rows of each split; and the configs it had no source for."""

    out_dir: Path
    rows: dict[str, dict[str, int]]
    skipped: list[str]


def check_configs(names: list[str] | None) -> set[str]:
    """Validate requested config names, suggesting the nearest one for a typo."""
    if not names:
        return set(ALL_CONFIGS)
    for name in names:
        if name not in ALL_CONFIGS:
            near = difflib.get_close_matches(name, ALL_CONFIGS, n=1)
            hint = f" Did you mean {near[0]!r}?" if near else ""
            raise ValueError(f"configs: unknown config {name!r}.{hint} Known: {', '.join(ALL_CONFIGS)}")
    return set(names)


def _is_sample(root: Path) -> bool:
    """Whether a source folder is (inside) the embedded sample, whose builds must say so."""
    from ..paths import SAMPLE_DIR as sample
    return Path(root).resolve() == sample or sample in Path(root).resolve().parents


def build_dataset(source: Path | list[Path], out_dir: Path, configs: list[str] | None = None,
                  progress: bool = True, options: BuildOptions | None = None) -> BuildReport:
    """Discover upstream files below `source` (one folder or several), build the requested configs, write the repo.

    The output's `data/` and card are replaced as a whole, after everything was written to a staging folder:
    stale shards never survive, and a build that fails or is killed never leaves a complete-looking output.
    """
    wanted = check_configs(configs)
    roots = source if isinstance(source, list) else [source]
    sources = discover(*roots)
    built: list[BuiltConfig] = []
    for module in FAMILIES.values():
        built += module.build(sources, wanted, progress, options or BuildOptions())
    if not built:
        raise SourceError(roots[0], "no upstream file of any requested config was found",
                          "point --source at a folder holding nextml summaries, Hessel parquet, Zhang human_*.csv "
                          "or HumorBench comprehensive_annotations.csv")
    order = list(ALL_CONFIGS)
    built.sort(key=lambda b: order.index(b.spec.name))
    out_dir = Path(out_dir)
    with staged_output(out_dir) as stage:
        infos = {b.spec.name: write_config(stage, b) for b in built}
        write_card(stage, built, infos, sample=any(_is_sample(r) for r in roots))
    rows = {b.spec.name: {s: t.num_rows for s, t in b.splits.items()} for b in built}
    return BuildReport(out_dir, rows, sorted(wanted - set(rows), key=order.index))
