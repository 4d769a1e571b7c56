"""`nycc-bench leaderboard`: serve the leaderboard (the Space's app) locally."""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import include_path


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `leaderboard` command and its options."""
    lb = sub.add_parser("leaderboard", help="serve the leaderboard (the Space's app) locally")
    lb.add_argument("--data-dir", default="leaderboard-data", help="local store: requests, results, predictions")
    lb.add_argument("--port", type=int, default=7860)
    lb.add_argument("--host", default="127.0.0.1")
    lb.add_argument("--dataset", help="dataset folder or Hub repo the worker and the Browse tab read")
    lb.add_argument("--source", help="seed an empty board with the papers' published runs and reported rows: "
                                      "`upstream` (downloaded, or NYCC_BENCH_UPSTREAM_DIR's mirror) or a folder of "
                                      "the pinned files (default: the sample's baselines, the offline demo)")
    lb.add_argument("--no-sbert", dest="sbert", action="store_false",
                    help="with --source: leave the published runs' SBERT diversity out (a recorded deviation)")
    lb.add_argument("--print-rows", action="store_true",
                    help="with --source: seed the board, print each tab's published rows and reported rows, exit "
                         "(no server)")
    include_path(lb)
    lb.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve the leaderboard Space locally (blocks until interrupted)."""
    from ..progress import working

    if args.print_rows:
        from ..errors import NyccBenchError
        from ..leaderboard.seed import published_board_lines

        if not args.source:
            raise NyccBenchError("print-rows: prints the board seeded from the published runs; add --source "
                                 "upstream or --source DIR")
        print("\n".join(published_board_lines(Path(args.data_dir), args.source, sbert=args.sbert)))
        return 0
    with working("leaderboard: loading the libraries (gradio, the store)"):  # its first line at once
        from ..leaderboard import serve
    serve(args.data_dir, args.port, dataset=args.dataset, host=args.host, published=args.source, sbert=args.sbert)
    return 0
