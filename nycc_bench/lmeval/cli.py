"""`nycc-bench lm-eval export DIR | path` and `nycc-bench import lm-eval RESULTS_DIR` (beside it `import published`,
`published/cli.py`): the CLI faces of `export` and `importer`."""

from __future__ import annotations

import argparse
from typing import Any


def add_lmeval_parsers(subparsers: argparse._SubParsersAction, judge_options: Any) -> None:
    """Register `lm-eval` and `import` on the CLI's subparsers (handlers set as `func`; `judge_options` adds the
    judge flags of `import published`)."""
    p = subparsers.add_parser("lm-eval", help="nycc-bench tasks for lm-evaluation-harness: `export DIR` or `path`",
                              description="Task YAMLs and utils.py for `lm_eval --include_path`, generated from "
                                          "nycc-bench's task files (same prompts, instances, parsers, metrics).")
    p.add_argument("action", choices=["export", "path"],
                   help="export: write the tasks into DIR; path: print a ready folder of them")
    p.add_argument("dir", nargs="?", help="the folder to write (export)")
    p.add_argument("--dataset", help="export: the built dataset the tasks read (default: $NYCC_BENCH_DATASET at run "
                                     "time)")
    p.set_defaults(func=cmd_lm_eval)
    from ..published.cli import add_published_parser

    i = subparsers.add_parser("import", help="read another harness's output or the papers' published outputs into "
                                             "results records: `import lm-eval RESULTS_DIR --out RUN_DIR`, `import "
                                             "published --source upstream --out FOLDER`")
    kinds = i.add_subparsers(dest="source", required=True, metavar="{lm-eval,published}")
    lm = kinds.add_parser("lm-eval", help="an lm-evaluation-harness output folder as one results record")
    lm.add_argument("results_dir", help="lm_eval's --output_path folder (run with --log_samples)")
    lm.add_argument("--out", required=True, help="run folder: results.json and predictions/")
    lm.add_argument("--dataset", help="the dataset lm_eval read, when it came from $NYCC_BENCH_DATASET (recorded)")
    lm.set_defaults(func=cmd_import)
    add_published_parser(kinds, judge_options)


def cmd_lm_eval(args: argparse.Namespace) -> int:
    """Write the lm-eval tasks, or print a ready folder of them."""
    from ..errors import NyccBenchError
    from .export import export, exported_tasks, judge_tasks, lm_eval_name, ready_folder

    if args.action == "path":
        print(ready_folder())
        return 0
    if not args.dir:
        raise NyccBenchError("dir: `nycc-bench lm-eval export DIR`; name the folder to write")
    export(args.dir, args.dataset)
    print(f"{args.dir}: {', '.join(lm_eval_name(t) for t in exported_tasks())} (README.md says how to run them)")
    print(f"not exported, judge-scored: {', '.join(t.name for t in judge_tasks())} (nycc-bench evaluate --judge)")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """Read an lm-eval output folder into RUN_DIR/results.json and print its scores."""
    from ..report import score_lines
    from .importer import import_lm_eval

    result = import_lm_eval(args.results_dir, args.out, args.dataset)
    print("\n".join(score_lines(result.record)))
    print(f"results: {result.path}")
    return 0
