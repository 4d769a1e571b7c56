"""`nycc-bench seed`: regenerate the leaderboard's seed results (the baselines on the embedded sample)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `seed` command and its options."""
    sd = sub.add_parser("seed", help="regenerate the leaderboard's seed results (baselines on the sample)")
    sd.add_argument("--out", help="seed folder (default: the package's leaderboard/seed)")
    sd.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Regenerate the leaderboard's seed results (the baselines on the embedded sample)."""
    from ..leaderboard.seed import make_seed

    print(json.dumps(make_seed(Path(args.out) if args.out else None)))
    return 0
