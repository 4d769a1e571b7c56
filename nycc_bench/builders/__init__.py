"""Build the Hub dataset repo (parquet shards + card) from the upstream raw files of all three families."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from . import arena, hessel2023, humorbench, merge, zhang2024
from .card import write_card
from .errors import SourceError
from .memory import build_memory_pool
from .options import BuildOptions
from .sources import discover
from .staging import staged_output
from .writer import BuiltConfig, write_config

FAMILIES = {"hessel2023": hessel2023, "zhang2024": zhang2024, "humorbench": humorbench, "arena": arena}
ALL_CONFIGS: dict[str, str] = {name: key for key, mod in FAMILIES.items() for name in mod.CONFIGS}

__all__ = ["ALL_CONFIGS", "BuildOptions", "BuildReport", "SourceError", "build_dataset", "check_configs"]


@dataclass
class BuildReport:
    """What a build wrote: per config, the rows of each split; the configs it had no source for, and those it kept."""

    out_dir: Path
    rows: dict[str, dict[str, int]]
    skipped: list[str]
    kept: list[str] = field(default_factory=list)  # configs already in the output that this build left as they were


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


def source_label(roots: list[Path]) -> str:
    """How the card records a build's source: `sample`, or the folder(s) as absolute paths."""
    if all(_is_sample(r) for r in roots):
        return "sample"
    return " ".join(str(Path(r).resolve()) for r in roots)


def build_dataset(source: Path | list[Path], out_dir: Path, configs: list[str] | None = None,
                  progress: bool = True, options: BuildOptions | None = None, label: str | None = None,
                  replace: bool = False) -> BuildReport:
    """Discover upstream files below `source` (one folder or several), build the requested configs, write the repo.

    Into an existing output, only the configs built are added or replaced; the others, and the card's record of
    each one's source, are kept. Replacing a config built from another source (`label`: `sample`, `upstream` or a
    folder) is refused unless `replace`. Everything is written to a staging folder first and swapped in: stale
    shards never survive, and a build that fails or is killed never leaves a complete-looking output.
    """
    wanted = check_configs(configs)
    roots = source if isinstance(source, list) else [source]
    label = label or source_label(roots)
    out_dir = Path(out_dir)
    existing = merge.read_existing(out_dir)
    if configs and not replace:  # refuse before a long build when the clash is known already
        merge.refuse_conflicts(existing, wanted, label, out_dir)
    with build_memory_pool():  # (the tables live until written: see memory.py)
        sources = discover(*roots)
        built: list[BuiltConfig] = []
        for module in FAMILIES.values():
            built += module.build(sources, wanted, progress, options or BuildOptions())
        if not built:
            raise SourceError(roots[0], "no upstream file of any requested config was found",
                              "point --source at a folder holding nextml summaries, Hessel parquet, Zhang human_*.csv "
                              "or HumorBench comprehensive_annotations.csv")
        names = [b.spec.name for b in built]
        if not replace:
            merge.refuse_conflicts(existing, names, label, out_dir)
        specs = {name: mod.CONFIGS[name] for mod in FAMILIES.values() for name in mod.CONFIGS}
        kept = [e for e in merge.kept_configs(existing, names) if e.name in specs]
        order = list(ALL_CONFIGS)
        with staged_output(out_dir) as stage:
            infos = {b.spec.name: write_config(stage, b) for b in built}
            data = out_dir / "data"
            old = sorted(p.name for p in data.iterdir() if p.is_dir()) if data.is_dir() else []
            merge.link_data(out_dir, stage, [n for n in old if n not in names])  # every folder it did not build stays
            every = built + [merge.as_built(out_dir, e, specs[e.name]) for e in kept]
            infos |= {e.name: e.info for e in kept}
            sources_of = {b.spec.name: label for b in built} | {e.name: e.source for e in kept}
            every.sort(key=lambda b: order.index(b.spec.name))
            write_card(stage, every, infos, sources=sources_of)
    rows = {b.spec.name: {s: t.num_rows for s, t in b.splits.items()} for b in sorted(built, key=lambda b:
                                                                                       order.index(b.spec.name))}
    return BuildReport(out_dir, rows, sorted(wanted - set(rows), key=order.index), [e.name for e in kept])
