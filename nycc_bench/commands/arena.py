"""`nycc-bench arena` and `nycc-bench judges`: the Caption Arena's parsers (`arena/cli.py`) with the judge options the
other commands share."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `arena` and `judges` commands and their options (`judges report|stress|train` beside the arena's
    `judges agree`)."""
    from ..arena.cli import add_arena_parsers
    from . import judges
    from .options import judge_options

    add_arena_parsers(sub, judge_options=judge_options)
    judges.add_parser(sub)
