"""`nycc-bench cards`: model cards from results records (optionally evaluating the baselines first)."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `cards` command and its options."""
    c = sub.add_parser("cards", help="model cards from results records (optionally evaluating the baselines)")
    c.add_argument("--results", required=True, help="folder of results records (*.json)")
    c.add_argument("--out", required=True, help="where <slug>/README.md cards go")
    c.add_argument("--systems", nargs="*", help="evaluate these systems first (e.g. random length), into --results")
    c.add_argument("--source", default="sample", help="data for --systems: sample, upstream or a folder")
    c.add_argument("--work", help="keep the dataset and runs of --systems here (default: a temporary folder)")
    c.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Model cards from results records (and, with --systems, evaluate the baselines first)."""
    from ..publish.cards import make_cards

    for path in make_cards(args.results, args.out, systems=args.systems, source=args.source, work=args.work):
        print(path)
    return 0
