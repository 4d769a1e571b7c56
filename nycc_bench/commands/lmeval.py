"""`nycc-bench lm-eval` and `nycc-bench import`: their parsers (`lmeval/cli.py`) with the judge options the other
commands share (`import published --judge`)."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `lm-eval` and `import` commands and their options."""
    from ..lmeval.cli import add_lmeval_parsers
    from .options import judge_options

    add_lmeval_parsers(sub, judge_options=judge_options)
