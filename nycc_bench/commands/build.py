"""`nycc-bench build`: build the Hub dataset repo (parquet + card) from the sample, upstream or a folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import NyccBenchError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `build` command and its options."""
    b = sub.add_parser("build", help="build the Hub dataset repo (parquet + card) from upstream raw files")
    b.add_argument("--source", default="sample",
                   help="'sample' (embedded), 'upstream' (download the real sources) or a folder holding "
                        "upstream files under their upstream names (default: sample)")
    b.add_argument("--out", help="output folder; into an existing dataset only the configs built are added or "
                                 "replaced, the others are kept")
    b.add_argument("--configs", nargs="+", metavar="CONFIG", help="only these configs (default: all)")
    b.add_argument("--pair-rule", choices=["upstream", "distinct"], default="upstream",
                   help="preference_pairs draw: 'upstream' = Zhang et al.'s preprocess_dpo (with replacement, seed "
                        "2024, train contests 530-889); 'distinct' = unique pairs, every train contest")
    b.add_argument("--humorbench-labels", choices=["paper", "leaderboard"], default="paper",
                   help="HumorBench element categories: 'paper' = upstream's labels at 41cacd4 (Table 3); "
                        "'leaderboard' = the later labels at cc99276 (a results record lists them as a deviation)")
    b.add_argument("--replace", action="store_true",
                   help="replace configs of --out that were built from another source (refused without it)")
    b.add_argument("--dry-run", action="store_true",
                   help="with --source upstream: list the pinned sources and the files they would fetch; no download")
    b.add_argument("--quiet", action="store_true", help="no progress bars")
    b.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build the dataset repo from a source and print what was written."""
    from ..builders import BuildOptions, build_dataset
    from ..building import resolve_source, source_label, summary_table

    if args.dry_run:
        if args.source != "upstream":
            raise NyccBenchError("dry-run: only `--source upstream` downloads anything; a folder is read as it is")
        from ..builders.download import format_sources, planned_sources

        print(format_sources(planned_sources(resolve=False)))
        return 0
    if not args.out:
        raise NyccBenchError("out: pass --out DIR, the folder the dataset repo is written to")
    report = build_dataset(resolve_source(args.source, not args.quiet), Path(args.out), args.configs,
                           progress=not args.quiet,
                           options=BuildOptions(pair_rule=args.pair_rule, humorbench_labels=args.humorbench_labels),
                           label=source_label(args.source), replace=args.replace)
    print(summary_table(report))
    return 0
