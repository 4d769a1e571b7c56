"""`nycc-bench run`: run a system on one task and write its predictions JSONL (resumable)."""

from __future__ import annotations

import argparse

from ..errors import NyccBenchError
from .options import parse_options, parse_task_options, system_options


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `run` command and its options."""
    r = sub.add_parser("run", help="run a system on one task; writes predictions JSONL (resumable)")
    system_options(r)
    r.add_argument("--task", required=True, help="a task name (`nycc-bench tasks`)")
    r.add_argument("--out", required=True, help="predictions file (JSONL); an existing one is resumed")
    r.add_argument("--fold", type=int, default=0, help="cross-validation fold 0..4 of the Hessel tasks")
    r.add_argument("--shots", type=int, default=None,
                   help="the task option shots: in-context examples from train (Hessel, from description)")
    r.add_argument("--seed", type=int, default=None, help="the task option seed: seed of the shots' draw")
    r.add_argument("--no-cache", action="store_true", help="ask every LLM call again instead of reading the cache")
    r.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run a system on a task and write predictions (resumable)."""
    from ..run_lock import file_lock
    from ..runner import run_task

    task_options = parse_task_options(args.task_option)
    if unknown := sorted(set(task_options) - {args.task}):
        raise NyccBenchError(f"task-option: {unknown[0]!r} is not the task run ({args.task}); "
                             f"use {args.task}.NAME=VALUE")
    options = task_options.get(args.task, {})
    for name in ("shots", "seed"):  # --shots/--seed are the task options of those names (0 is a value, not unset)
        value = getattr(args, name)
        if value is not None:
            if options.get(name, value) != value:
                raise NyccBenchError(f"{name}: --{name} {value} and --task-option {args.task}.{name}="
                                     f"{options[name]} disagree; give one")
            options[name] = value
    from pathlib import Path

    from ..preflight import check_judged_run
    from ..runner import split_options
    from ..systems import make_system
    from ..tasks import get_task

    system_opts, options = split_options(get_task(args.task), parse_options(args.system_option), options)
    system = make_system(args.system, args.dataset, base_url=args.base_url, **system_opts)
    check_judged_run([args.task], args.dataset, None, [args.fold], args.split, Path(args.out).parent, args.limit,
                     system)  # the data the task and the system read, the system's key, the disk: before a call
    with file_lock(args.out):  # one writer per run folder
        summary = run_task(args.task, args.system, args.out, dataset=args.dataset, split=args.split,
                           fold=args.fold, base_url=args.base_url, limit=args.limit, progress=not args.quiet,
                           system=system, task_options=options)
    print(f"{summary.out}: {summary.total} instances, {summary.answered} answered now, {summary.resumed} "
          f"already there, {summary.unparsed} unparseable, {summary.failed} failed (re-run to retry)")
    return 1 if summary.failed else 0
