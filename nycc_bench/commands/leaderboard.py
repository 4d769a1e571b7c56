"""`nycc-bench leaderboard`: serve the leaderboard (the Space's app) locally."""

from __future__ import annotations

import argparse

from .options import include_path


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `leaderboard` command and its options."""
    lb = sub.add_parser("leaderboard", help="serve the leaderboard (the Space's app) locally")
    lb.add_argument("--data-dir", default="leaderboard-data", help="local store: requests, results, predictions")
    lb.add_argument("--port", type=int, default=7860)
    lb.add_argument("--host", default="127.0.0.1")
    lb.add_argument("--dataset", help="dataset folder or Hub repo the worker and the Browse tab read")
    include_path(lb)
    lb.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve the leaderboard Space locally (blocks until interrupted)."""
    from ..progress import working

    with working("leaderboard: loading the libraries (gradio, the store)"):  # its first line at once
        from ..leaderboard import serve
    serve(args.data_dir, args.port, dataset=args.dataset, host=args.host)
    return 0
