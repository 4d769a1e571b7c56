"""`nycc-bench novelty`: the novelty report of one or more predictions files, as a table and one JSON line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_novelty_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `novelty` on the CLI's subparsers; the handler is `cmd_novelty` (set as `func`)."""
    p = subparsers.add_parser(
        "novelty", help="check whether generated captions copy human captions (exact and near-duplicate)",
        description="Exact (after normalisation) and near-duplicate (MinHash LSH, verified by exact character "
                    "n-gram Jaccard) matches of each generated caption against the human captions of the same "
                    "contest and of all contests. The index of the human captions is built once and cached.")
    p.add_argument("--predictions", nargs="+", required=True, metavar="FILE",
                   help="caption_generation predictions (JSONL of `nycc-bench run`), one per model")
    p.add_argument("--dataset", required=True, metavar="DIR", help="the folder written by `nycc-bench build`")
    p.add_argument("--threshold", type=float, default=0.5, help="Jaccard similarity of a near copy (default 0.5)")
    p.add_argument("--shingle-size", type=int, default=4, help="characters per shingle (default 4)")
    p.add_argument("--num-perm", type=int, default=128, help="MinHash permutations (default 128)")
    p.add_argument("--cache-dir", default=None,
                   help="index cache folder (default $NYCC_BENCH_CACHE/novelty or ~/.cache/nycc_bench/novelty)")
    p.add_argument("--examples", type=int, default=20, help="examples kept per model (default 20)")
    p.add_argument("--out", default=None, metavar="JSON", help="also write the report to this file")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_novelty)
    return p


def summary_lines(report: dict) -> list[str]:
    """A plain-text table: per model, captions and the share of each kind of copy."""
    from .report import KINDS

    header = f"{'model':<32}{'captions':>10}" + "".join(f"{k:>20}" for k in KINDS)
    lines = [header, "-" * len(header)]
    for m in report["models"]:
        cells = "".join(f"{m['matches'][k]['count']:>10} ({m['matches'][k]['share'] or 0:6.1%})" for k in KINDS)
        lines.append(f"{m['model'][:31]:<32}{m['n_captions']:>10}{cells}")
        for e in m["examples"][:3]:
            lines.append(f"    {e['similarity']:.2f} contest {e['contest_number']} rank {e['rank']} ({e['group']}): "
                         f"{e['generated']!r} ~ {e['human']!r}")
    index = report["index"]
    lines.append(f"index: {index['n_captions']:,} human captions, {'built' if index['built_now'] else 'cached'} "
                 f"in {index['path']}")
    return lines


def cmd_novelty(args: argparse.Namespace) -> int:
    """Print the table, write --out if given, and end with the report as one JSON line."""
    from .report import novelty_report

    report = novelty_report(args.predictions, args.dataset, threshold=args.threshold,
                            shingle_size=args.shingle_size, num_perm=args.num_perm, cache_dir=args.cache_dir,
                            max_examples=args.examples, progress=not args.quiet)
    print("\n".join(summary_lines(report)))
    text = json.dumps(report, ensure_ascii=False)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0
