"""`nycc-bench evaluate`: run and score many tasks with one system into RUN_DIR/results.json."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import NyccBenchError
from .options import (
    include_path,
    judge_options,
    judge_spec,
    parse_folds,
    parse_options,
    parse_task_options,
    system_options,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `evaluate` command and its options (and `push`, which follows it in the help)."""
    e = sub.add_parser("evaluate", help="run and score many tasks with one system into RUN_DIR/results.json")
    system_options(e, system_required=False)  # required unless --judge-only (checked in `run`)
    e.add_argument("--judge-only", action="store_true",
                   help="evaluate's judge stage alone: score the predictions already in --out (any run folder, an "
                        "imported published run included) with --judge on --dataset; no system is asked and "
                        "--system is not needed; the folder's earlier verdicts are replaced")
    e.add_argument("--allow-incomplete", action="store_true",
                   help="exit 0 even when a task has failed items or judge errors (it is still recorded incomplete)")
    from ..tasks.families import groups

    e.add_argument("--tasks", default="all", help=f"comma-separated tasks or groups: {', '.join(groups())}")
    e.add_argument("--folds", help="Hessel folds, e.g. 0,1,2,3,4 (default: every fold the dataset has)")
    e.add_argument("--out", required=True, help="run folder: results.json and predictions/ (resumable; the tasks "
                                                "not run now are kept)")
    e.add_argument("--overwrite", metavar="TASK[,TASK]",
                   help="replace these tasks' predictions and results in --out (needed when they were made by "
                        "another system, endpoint, checkpoint or code version)")
    judge_options(e, per_task=True)
    include_path(e)
    from ..publish.push_cli import add_push_parser, add_push_to_hub

    add_push_to_hub(e)
    add_push_parser(sub)
    e.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run and score every task with one system; write RUN_DIR/results.json; print a score table."""
    from ..progress import working

    with working("evaluate: loading the libraries", enable=not args.quiet):  # the first line comes at once
        from ..evaluation import evaluate
        from ..publish.push_cli import check_push_to_hub, push_after_evaluate
        from ..report import score_lines

    if args.judge_only:
        return judge_only_run(args)
    if not args.system:
        raise NyccBenchError("system: --system is required (a spec such as random or hf:<model>); or pass "
                             "--judge-only to judge the predictions already in --out")
    check_push_to_hub(args)
    options = parse_options(args.system_option)
    if options.get("batch") and args.batch_wait is not None:  # --batch-wait bounds the system's batches too
        options.setdefault("batch_wait_s", args.batch_wait)
    result = evaluate(args.system, args.tasks, dataset=args.dataset, judge=judge_spec(args, dry_run=False),
                      folds=parse_folds(args.folds), split=args.split, out=args.out, limit=args.limit,
                      base_url=args.base_url, task_options=parse_task_options(args.task_option),
                      progress=not args.quiet, dry_run=args.dry_run,
                      overwrite=[t for t in (args.overwrite or "").split(",") if t.strip()], **options)
    if args.dry_run:  # a plan: nothing was called or written
        print(result)
        print(json.dumps({"dry_run": result.to_dict()}))
        return 2 if result.problems else 0
    print("\n".join(score_lines(result.record)))
    print(f"results: {result.path}")
    for task, why in result.no_judge.items():
        print(f"no judge: {task}: {why}", file=sys.stderr)
    push_after_evaluate(args, args.out)
    if incomplete := result.incomplete:
        for task, why in incomplete.items():
            print(f"incomplete: {task}: {why}", file=sys.stderr)
        if not args.allow_incomplete:
            fixes = "; ".join(dict.fromkeys(f for t in incomplete for f in remedies(result.record["tasks"][t])))
            print(f"{len(incomplete)} task(s) incomplete; {fixes}; or pass --allow-incomplete to accept them",
                  file=sys.stderr)
            return 1
    return 0


def judge_only_run(args: argparse.Namespace) -> int:
    """`--judge-only`: the judge stage on --out's predictions (`judge_stage.judge_only`); prints the score lines."""
    from ..judge_stage import judge_only
    from ..report import score_lines

    judge = judge_spec(args, dry_run=False)
    if judge is None:
        raise NyccBenchError("judge: --judge-only needs --judge SPEC (the judge that scores the predictions)")
    result = judge_only(args.out, args.tasks, args.dataset, judge, parse_task_options(args.task_option),
                        progress=not args.quiet)
    print("\n".join(score_lines(result.record)))
    print(f"results: {result.path}")
    return 0


def remedies(entry: dict) -> list[str]:
    """What would make an incomplete task entry whole, one fix per cause its counts show (a re-run helps only
    failed items and judge errors)."""
    found = []
    if entry.get("n_failed"):
        found.append("re-run the same command to retry the failed items")
    if entry.get("n_error"):
        found.append("re-run the same command to ask the judge again for its failed verdicts")
    coverage = entry.get("coverage") or {}
    if coverage.get("of") and (coverage.get("n") or 0) < coverage["of"]:
        found.append(f"{coverage.get('why') or 'items are missing'}: a re-run does not help; rebuild the dataset "
                     "with their descriptions, or pass a --dataset that has them")
    if entry.get("n_unparsed"):
        found.append("unparsed answers are the system's replies (see them with `nycc-bench view RUN_DIR`): a "
                     "re-run gives the same replies; change the system or its --system-option settings")
    return found or ["see the reasons above"]
