"""`nycc-bench sources`: the pinned upstream sources and the files `--source upstream` fetches."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `sources` command and its options."""
    so = sub.add_parser("sources", help="list the pinned upstream sources and the files `--source upstream` fetches")
    so.add_argument("--resolve", action="store_true",
                    help="ask GitHub and the Hub for the exact file lists (needs the network); default: the patterns")
    so.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List every pinned upstream source, its revision and the files `--source upstream` fetches."""
    from ..builders.download import format_sources, planned_sources

    print(format_sources(planned_sources(resolve=args.resolve)))
    return 0
