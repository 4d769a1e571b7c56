"""`nycc-bench reward`: the offline judges: train or evaluate the humor reward model, train the element grader."""

from __future__ import annotations

import argparse
import json

from ..errors import NyccBenchError
from .options import dataset_default


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `reward` command and its options."""
    w = sub.add_parser("reward", help="offline judges: train/evaluate the humor reward model, train the grader")
    w.add_argument("action", choices=["train", "evaluate", "train-grader"],
                   help="train: fit on caption_ratings train contests; evaluate: Zhang's reliability protocol and "
                        "pairwise checks on held-out contests; train-grader: fit the HumorBench element grader")
    w.add_argument("--dataset", default=dataset_default(), help="dataset folder or Hub repo (train, evaluate)")
    w.add_argument("--model", help="reward model folder or Hub repo (evaluate)")
    w.add_argument("--splits", nargs="+", default=["validation", "test"], help="held-out splits (evaluate)")
    w.add_argument("--rubric", help="HumorBench rubric folder or CSV files with human labels (train-grader)")
    w.add_argument("--out", help="output folder (train, train-grader)")
    w.add_argument("--embedding-model", default="all-MiniLM-L6-v2", help="sentence-transformers model or folder")
    w.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train or evaluate the offline judges; the last printed line is one JSON object."""
    from .. import reward

    needed = {"train": ["out"], "evaluate": ["model"], "train-grader": ["rubric", "out"]}[args.action]
    if missing := [name for name in needed if getattr(args, name) is None]:
        raise NyccBenchError(f"{', '.join(missing)}: `nycc-bench reward {args.action}` needs --{' --'.join(missing)}")
    if args.action == "train":
        result = reward.train(args.dataset, args.out, args.embedding_model)
    elif args.action == "evaluate":
        result = reward.evaluate(args.model, args.dataset, splits=args.splits)
    else:
        result = reward.train_grader(args.rubric, args.out, args.embedding_model)
    print(json.dumps(result, default=str))
    return 0
