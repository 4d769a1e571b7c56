"""`nycc-bench reliability`: Zhang's judge-reliability check (Table 2), top 10 against #1000-1009."""

from __future__ import annotations

import argparse
import json

from .options import dataset_default, judge_options, judge_spec


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `reliability` command and its options."""
    j = sub.add_parser("reliability", help="Zhang's judge-reliability check (Table 2): top 10 vs #1000-1009")
    j.add_argument("--dataset", default=dataset_default(), help="dataset folder or Hub repo")
    j.add_argument("--protocol", choices=["overall", "best_pick"], default="overall", help="group protocol")
    j.add_argument("--n-contests", type=int, default=100, help="contests, each judged in both orders (paper: 100)")
    j.add_argument("--no-vision", action="store_true", help="Best Pick without the cartoon (the paper shows it)")
    j.add_argument("--rule", help="how a reply is read (default: upstream's; Overall zhang_top2 or letters_topk, "
                                  "Best Pick exact_letter, last_char or last_letter)")
    judge_options(j, required=True)
    j.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Zhang's judge-reliability protocol (Table 2)."""
    from ..reliability import reliability

    print(json.dumps(reliability(judge_spec(args), dataset=args.dataset, protocol=args.protocol or "overall",
                                 n_contests=args.n_contests, vision=not args.no_vision, rule=args.rule), default=str))
    return 0
