"""`nycc-bench import published`: the CLI face of `importer`."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_published_parser(sub: argparse._SubParsersAction, judge_options: Any) -> None:
    """Register `import published` on the `import` command's subparsers (`judge_options` adds the judge flags)."""
    p = sub.add_parser("published", help="the papers' published outputs as run folders: `import published --source "
                                         "upstream|DIR --out FOLDER`",
                       description="One run folder per published system (Zhang et al. 2024's stored generations, "
                                   "HumorBench's stored explanations and GPT-4o verdicts), scored by nycc-bench's "
                                   "metrics, with the authors' repository, pinned commit, file and sha256.")
    p.add_argument("--source", required=True, help="`upstream` (the pinned files, downloaded, or the mirror in "
                                                   "NYCC_BENCH_UPSTREAM_DIR) or a folder holding them under their "
                                                   "upstream paths")
    p.add_argument("--out", required=True, help="folder: one run folder per published system")
    p.add_argument("--no-sbert", dest="sbert", action="store_false",
                   help="leave SBERT diversity out (a recorded deviation; Table 6's model is loaded otherwise)")
    judge_options(p)
    p.set_defaults(func=cmd_import_published)


def cmd_import_published(args: argparse.Namespace) -> int:
    """Import every published system found and print the table of their scores."""
    from ..judging import JudgeSpec
    from .importer import import_published, table_lines

    # recorded without local paths: a folder source is MIRROR, the output folder OUT
    command = ["nycc-bench", "import", "published", "--source", "upstream" if args.source == "upstream" else "MIRROR",
               "--out", "OUT", *(["--judge", args.judge] if args.judge else []),
               *([] if args.sbert else ["--no-sbert"])]
    judge = JudgeSpec.parse(args.judge, base_url=args.judge_base_url, cache_dir=args.cache_dir,
                            max_concurrency=args.max_concurrency, timeout_s=args.judge_timeout) if args.judge else None
    done = import_published(args.source, args.out, judge=judge, command=command, sbert=args.sbert)
    print("\n".join(table_lines(done)))
    for line in done.absent:
        print(f"not found: {line}", file=sys.stderr)
    print(f"runs: {len(done.runs)} in {args.out}")
    return 0
