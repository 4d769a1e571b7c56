"""`nycc-bench demo`: the main job on the embedded sample, end to end."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `demo` command and its options."""
    d = sub.add_parser("demo", help="run the main job on the embedded sample")
    d.add_argument("--out", default="out/demo", help="output folder (default: out/demo)")
    d.add_argument("--quiet", action="store_true", help="no progress bars")
    d.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The main job on the embedded sample, end to end; prints where every output is."""
    import time

    from ..demo import STAGES, run_demo, stage_times

    outputs = run_demo(Path(args.out), quiet=args.quiet)
    print(f"\n{stage_times(STAGES, (time.perf_counter(), time.process_time()))}\nOutputs:")
    for name, path in outputs.items():
        print(f"  {name:<12} {path}")
    print(f"\nOpen the report: file://{Path(outputs['report']).resolve()}\nOpen the leaderboard: nycc-bench "
          f"leaderboard --data-dir {outputs['leaderboard']} --dataset {outputs['dataset']} --port 7860  "
          "(then http://127.0.0.1:7860)")
    return 0
