"""`nycc-bench submission`: check a Hessel leaderboard submission, or make one from raw replies (JSONL)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `submission` command and its options."""
    sm = sub.add_parser("submission", help="Hessel leaderboard submissions: `check FILE`, `from-responses FILE.jsonl`")
    sm.add_argument("action", choices=["check", "from-responses"])
    sm.add_argument("file", help="a submission JSON {instance_id: letter}, or replies JSONL {instance_id, response}")
    from ..submission import BOARDS

    sm.add_argument("--task", choices=list(BOARDS), default=next(iter(BOARDS)), help="which leaderboard")
    sm.add_argument("--dataset", help="a built dataset with the leaderboard config: check the complete id set")
    sm.add_argument("--parser", choices=["litellm", "gpt4v"], default="litellm",
                    help="from-responses: upstream's answer reader: litellm (lite_llm_leaderboard) or gpt4v (Hessel's "
                         "\"Answer: X\"); on the GPT-4V replies they differ on 119 of 830")
    sm.add_argument("--out", help="from-responses: where to write the submission (default: FILE.submission.json)")
    sm.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check a Hessel leaderboard submission, or make one from raw replies (JSONL)."""
    from .. import submission

    if args.action == "check":
        ids = submission.leaderboard_ids(args.dataset, args.task) if args.dataset else None
        data = submission.read(args.file)
        problems = submission.check(data, args.task, ids)
        for line in problems:
            print(f"{args.file}: {line}")
        if not problems:
            scope = f"the {len(ids)} ids of {args.dataset}" if ids is not None else "no id set (pass --dataset)"
            print(f"{args.file}: ok, {len(data)} {args.task} predictions; checked against {scope}")
        return 1 if problems else 0
    made = submission.from_responses(submission.read_responses(args.file), args.task, args.parser)
    out = submission.write(made.submission, args.out or Path(args.file).with_suffix(".submission.json"))
    last = "the default letter" if args.parser == "litellm" else "a random letter"
    print(f"{out}: {len(made.submission)} letters read by the {args.parser} reader; {len(made.unparsed)} replies "
          f"without a readable answer got its {last}" + (f" ({', '.join(made.unparsed[:3])})" if made.unparsed else ""))
    return 0
