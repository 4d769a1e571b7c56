"""The command line of run details on the Hub: `nycc-bench push RUN_DIR USER/REPO` and `nycc-bench evaluate ...
--push-to-hub USER/REPO` (`details.py` does the work; imported only when a push runs, so the CLI starts fast)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def add_push_to_hub(parser: Any) -> None:
    """`evaluate --push-to-hub USER/REPO` (and the same options on `push`)."""
    parser.add_argument("--push-to-hub", metavar="USER/REPO", default=None,
                        help="when the run is recorded, push its record and predictions to this Hub dataset repo "
                             "(one config per task; token from HF_TOKEN or `hf auth login`)")
    parser.add_argument("--hub-private", action="store_true", help="create the details repo as private")


def check_push_to_hub(args: Any) -> None:
    """Before a run: a bad repo id or a missing token is an error now, not after the run."""
    if getattr(args, "push_to_hub", None):
        from .details import check_repo_id
        from .hub import resolve_token

        check_repo_id(args.push_to_hub)
        resolve_token()


def push_after_evaluate(args: Any, run_dir: str | Path) -> None:
    """After `evaluate` has written its record: push it when `--push-to-hub` was given."""
    if getattr(args, "push_to_hub", None):
        from . import PublishError
        from .details import push_run

        try:
            url = push_run(run_dir, args.push_to_hub, private=args.hub_private, say=lambda m: print(m, flush=True))
        except PublishError as err:  # the run is recorded all the same: say so, and how to push it later
            raise PublishError(f"{err} (the run is kept in {run_dir}: `nycc-bench push {run_dir} "
                               f"{args.push_to_hub}` pushes it)") from None
        print(f"details: {url}")


def add_push_parser(subparsers: Any) -> None:
    """Register `push` on the CLI's subparsers."""
    p = subparsers.add_parser("push", help="push a run folder's record and predictions to a Hub dataset repo")
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run folder of `nycc-bench evaluate`")
    p.add_argument("repo_id", metavar="USER/REPO", help="the dataset repo (created if needed)")
    p.add_argument("--private", action="store_true", help="create the repo as private (an existing one keeps its)")
    p.add_argument("--endpoint", help="Hub endpoint (default: HF_ENDPOINT or https://huggingface.co)")
    p.add_argument("--dry-run", action="store_true",
                   help="stage and check the files, list each with its size, and push nothing (no token needed)")
    p.set_defaults(func=cmd_push)


def cmd_push(args: Any) -> int:
    """Push one run's details (with --dry-run: show exactly what would be pushed, and push nothing)."""
    from .details import push_run

    if args.dry_run:
        from .details import dry_run

        for line in dry_run(args.run_dir, args.repo_id, endpoint=args.endpoint):
            print(line)
        return 0

    url = push_run(args.run_dir, args.repo_id, private=args.private, endpoint=args.endpoint,
                   say=lambda m: print(m, flush=True))
    print(f"details: {url}")
    return 0
