"""`nycc-bench publish`: `upload.py`'s command line (stage and push the dataset, Spaces and cards)."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `publish` command: every option that follows goes to upload.py's own parser."""
    pb = sub.add_parser("publish", help="stage and push to the Hub (upload.py; `publish --help` for options)",
                        add_help=False)
    pb.add_argument("rest", nargs=argparse.REMAINDER)
    pb.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """`upload.py`: stage and push the dataset, metric Spaces, leaderboard and model cards."""
    from ..publish.cli import main as publish

    return publish(args.rest)
