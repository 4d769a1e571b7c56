"""`nycc-bench reproduce`: the parser and the handler (exit 1 when a figure that should match does not)."""

from __future__ import annotations

import argparse
import json

from .figures import PAPERS


def add_reproduce_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `reproduce` on the CLI's subparsers; the handler is `cmd_reproduce` (set as `func`)."""
    p = subparsers.add_parser(
        "reproduce", help="recompute every published figure from public inputs and compare it at the printed digits",
        description="One row per published figure: table, row, the value as printed, the value recomputed from the "
                    "pinned public inputs, and whether they agree at the printed digits. Exit status 1 if a figure "
                    "that should match does not; a figure whose inputs are absent is listed as 'inputs not present' "
                    "with the file it needs, never as a pass.")
    p.add_argument("--source", default="upstream",
                   help="'upstream' (fetch the pinned inputs into the upstream cache; NYCC_BENCH_UPSTREAM_DIR reads "
                        "an offline mirror instead) or a folder holding upstream files under their upstream names "
                        "(default: upstream)")
    p.add_argument("--only", choices=PAPERS, action="append", metavar="PAPER",
                   help=f"only this paper's figures (repeatable): {', '.join(PAPERS)}")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object instead of the table")
    p.add_argument("--no-sbert", action="store_true",
                   help="skip Table 6's SBERT column (all-mpnet-base-v2 on a CPU takes minutes); listed as skipped")
    p.add_argument("--quiet", action="store_true", help="no download progress bars")
    p.set_defaults(func=cmd_reproduce)
    return p


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Print the report; 1 if any figure that should match does not, else 0."""
    from .report import reproduce

    report = reproduce(args.source, args.only, sbert=not args.no_sbert, progress=not args.quiet and not args.json)
    print(json.dumps(report.to_dict(), ensure_ascii=False) if args.json else report.text())
    return 1 if report.failed else 0
