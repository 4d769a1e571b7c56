"""`nycc-bench score`: score one task's predictions; prints `evaluate`'s score line (its result entry as one JSON
line with `--json`)."""

from __future__ import annotations

import argparse
import json

from .options import dataset_default, include_path, judge_options, judge_spec, parse_task_options


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `score` command and its options."""
    s = sub.add_parser("score", help="score one task's predictions (JSON on the last line)")
    s.add_argument("--task", required=True, help="a task name (`nycc-bench tasks`)")
    s.add_argument("--predictions", required=True, nargs="+", metavar="FILE",
                   help="runner JSONL or Hessel-style JSON ({instance_id: letter}); one file per --fold")
    s.add_argument("--fold", type=int, nargs="+", help="the fold of each predictions file (averaged as Hessel does)")
    s.add_argument("--dataset", default=dataset_default(), help="dataset folder or Hub repo")
    s.add_argument("--split", help="split (default: the task's, test)")
    s.add_argument("--protocol", choices=["overall", "best_pick"], help="Zhang group comparison protocol")
    s.add_argument("--task-option", action="append", metavar="TASK.KEY=VALUE", help="a task's scoring option")
    s.add_argument("--last-k-tokens", type=int, help="HumorBench: grade only the last k tokens of an explanation")
    s.add_argument("--out", help="also write the result JSON here (folders are created)")
    s.add_argument("--json", action="store_true", help="print the result entry as one JSON line instead of the "
                                                        "score line")
    judge_options(s)
    include_path(s)
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Score predictions; the last printed line is the task's result entry as one JSON object."""
    from ..progress import working

    with working("score: loading the libraries"):  # the first line at once
        from ..preflight import check_judged_run
        from ..score import score

    options = parse_task_options(args.task_option).get(args.task, {})
    if args.protocol:
        options["protocol"] = args.protocol
    if not getattr(args, "dry_run", False):  # a dry run estimates the judge's calls, key or not
        with working("score: preflight: the data, keys and judge the scoring needs"):
            check_judged_run([args.task], args.dataset, judge_spec(args), args.fold, args.split)
    with working(f"score: scoring {args.task}" + (f" (judge {judge_spec(args)})" if judge_spec(args) else "")):
        result = score(args.task, args.predictions, dataset=args.dataset, split=args.split, folds=args.fold,
                       judge=judge_spec(args), task_options=options, last_k_tokens=args.last_k_tokens)
    text = json.dumps(result, ensure_ascii=False, default=str)
    if args.out:
        from ..run_lock import file_lock
        from ..secrets import scrub_data

        with file_lock(args.out) as out:
            out.write_text(json.dumps(scrub_data(result), indent=2, ensure_ascii=False, default=str) + "\n",
                           encoding="utf-8")
    print(text if args.json else "\n".join(_score_lines(args, result)))
    return 0


def _score_lines(args: argparse.Namespace, result: dict) -> list[str]:
    """`evaluate`'s score line for this task (the system named from the predictions' sidecar), with its status."""
    from ..predictions import read_meta
    from ..report import score_lines
    from ..tasks import get_task
    from ..wholeness import judge_status

    meta = read_meta(args.predictions[0]) or {}
    name = str((meta.get("system") or {}).get("spec") or "predictions")
    entry = {**result, **judge_status(get_task(args.task), result, judge_spec(args)).fields()}
    return score_lines({"model": {"name": name}, "tasks": {args.task: entry}})
