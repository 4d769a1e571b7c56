"""The offline judges on real data: the humor reward model's reliability and the embedding grader's agreement.

Builds the dataset from --source into a temporary folder, then:

1. *train-only*: trains the reward model on Zhang's train contests (the model `nycc_bench.reward` ships) and
   evaluates it on every held-out contest (validation + test);
2. *cross-validated*: splits the 91 held-out contests into --folds seeded folds; for each fold trains on the
   train contests plus the rated held-out contests of the other folds and judges only that fold's contests,
   so no contest is ever scored by a model trained on its ratings; outcomes of all folds are pooled before
   the bootstrap interval (over contests) is computed;
3. the HumorBench embedding grader (max sentence cosine similarity of element and explanation), cross-validated
   on the human-labelled `rubric/*.csv` rows (grouped 5-fold by element idx, threshold fitted on the training
   folds only, to maximize accuracy; and, as a second figure, balanced accuracy).

Checks: Zhang's judge-reliability protocol (human top-10 vs #1000–1009, both orders, Overall = higher mean
predicted score, Best Pick = higher max), top caption vs the caption ranked n//2 of each rated held-out
contest, and `preference_pairs` (--pairs-per-contest per contest). Embedding is the costly step on a CPU:
the embedding branch sees at most --per-contest captions per contest (the 100 best ranked plus a seeded
uniform sample of the rest; the same sample in every fold, so each caption is embedded once); the n-gram
branch sees every caption. Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from nycc_bench.builders import build_dataset
from nycc_bench.judge.protocols.humorbench import load_rubric
from nycc_bench.paths import SAMPLE_DIR
from nycc_bench.reward import Embedder, RewardModel, cross_validate_grader, load_reward_data, train_reward_model
from nycc_bench.reward.evaluate import group_judgments, preference_outcomes, summarize, top_vs_mid_outcomes
from nycc_bench.reward.folder import fmt_rate

PROTOCOLS = ("overall", "best_pick")


def outcomes(model, data, pairs_per_contest: int, seed: int) -> tuple[dict, list, list]:
    """Group judgments per protocol, top-vs-mid and preference-pair outcomes of `model` on `data`."""
    judgments = {p: group_judgments(model, data, p) for p in PROTOCOLS}
    return judgments, top_vs_mid_outcomes(model, data), preference_outcomes(model, data, pairs_per_contest, seed)


def line(name: str, metrics: dict) -> str:
    """One printed row of figures."""
    parts = [f"{k}: {fmt_rate(m['accuracy'], m['ci_low'], m['ci_high'])} (n={m['n']}, contests={m['n_contests']})"
             for k, m in metrics.items() if isinstance(m, dict) and "accuracy" in m]
    return f"{name}\n  " + "\n  ".join(parts)


def main() -> None:
    """Run the three evaluations, print the figures, then one JSON line."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", default="../shared/data", help="folder with the upstream raw files")
    ap.add_argument("--embedding-model", default="sentence-transformers/all-MiniLM-L6-v2")
    ap.add_argument("--per-contest", type=int, default=300, help="embedded training captions per contest")
    ap.add_argument("--pairs-per-contest", type=int, default=30, help="preference pairs scored per contest")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true",
                    help="CI mode: the embedded sample as --source, 100 captions and 5 pairs a contest, 2 folds")
    args = ap.parse_args()
    if args.quick:
        args.source, args.per_contest, args.pairs_per_contest, args.folds = str(SAMPLE_DIR), 100, 5, 2
    t0 = time.perf_counter()
    options = {"max_per_contest": args.per_contest, "evaluate": False, "seed": args.seed, "progress": False}
    embedder = Embedder(args.embedding_model, cache=True)

    with tempfile.TemporaryDirectory() as tmp:
        build_dataset(Path(args.source), Path(tmp), ["caption_ratings", "caption_generation", "preference_pairs"],
                      progress=False)
        data = load_reward_data(tmp)
    train_contests = sorted(set(data.ratings[data.ratings.split == "train"].contest_number))
    held = sorted(
        (set(data.groups.contest_number) | set(data.ratings.contest_number) | set(data.pairs.contest_number))
        - set(train_contests)
    )
    rated_held = sorted(set(data.ratings.contest_number) - set(train_contests))
    print(f"{len(train_contests)} train contests ({(data.ratings.split == 'train').sum():,} primary captions), "
          f"{len(held)} held-out contests ({len(rated_held)} with ratings)")

    # 1. train-only
    start = time.perf_counter()
    model = train_reward_model(data, args.embedding_model, embedder=embedder, **options)
    train_seconds = time.perf_counter() - start
    held_data = data.only(held)
    # throughput: a copy of the model with a fresh, uncached embedder scores every held-out group caption
    fresh = RewardModel(model.config, model.tensors, embedder=Embedder(args.embedding_model))
    group_captions = [c for column in ("human_top10", "human_1000") for g in held_data.groups[column].dropna()
                      for c in g]
    start = time.perf_counter()
    fresh.score(group_captions, progress=False)
    score_seconds = time.perf_counter() - start
    train_only = summarize(*outcomes(model, held_data, args.pairs_per_contest, args.seed), seed=args.seed)
    print(f"train-only: {model.config['training']['n_captions']:,} embedded + "
          f"{model.config['training']['n_rated_captions']:,} n-gram training captions, {train_seconds:.1f} s; "
          f"scoring {len(group_captions):,} captions from scratch: {len(group_captions) / score_seconds:.1f} "
          "captions/s")
    print(line("train-only model, held-out contests", train_only))

    # 2. contest-grouped cross-validation over the held-out contests
    order = np.random.default_rng(args.seed).permutation(held)
    folds = [sorted(int(c) for c in fold) for fold in np.array_split(order, args.folds)]
    pooled: tuple[dict, list, list] = ({p: [] for p in PROTOCOLS}, [], [])
    start = time.perf_counter()
    for fold in folds:
        fold_model = train_reward_model(
            data, args.embedding_model, splits=("train", "validation", "test"), exclude_contests=fold,
            embedder=embedder, **options,
        )
        assert not set(fold) & set(fold_model.config["training"]["contests"])
        judgments, top_mid, prefs = outcomes(fold_model, data.only(fold), args.pairs_per_contest, args.seed)
        for p in PROTOCOLS:
            pooled[0][p].extend(judgments[p])
        pooled[1].extend(top_mid)
        pooled[2].extend(prefs)
    cv_seconds = time.perf_counter() - start
    cv = summarize(*pooled, seed=args.seed)
    print(f"cross-validation: {args.folds} folds, {cv_seconds:.1f} s")
    print(line("cross-validated (each contest judged by a model not trained on it)", cv))

    # 3. embedding grader
    start = time.perf_counter()
    rubric_files = sorted(Path(args.source).rglob("rubric/*.csv"))
    grader: dict = {}
    balanced: dict = {}
    if rubric_files:
        rows, skipped = load_rubric(rubric_files)
        grader = cross_validate_grader(rows, args.embedding_model, seed=args.seed, embedder=embedder)
        balanced = cross_validate_grader(
            rows, args.embedding_model, objective="balanced", seed=args.seed, embedder=embedder
        )
        print(f"embedding grader ({len(rows)} labelled rows, {skipped} unlabelled skipped, {len(rubric_files)} files, "
              f"{time.perf_counter() - start:.1f} s): accuracy "
              f"{fmt_rate(grader['accuracy'], grader['ci_low'], grader['ci_high'])}, FPR {fmt_rate(grader['fpr'])}, "
              f"FNR {fmt_rate(grader['fnr'])}; majority label {fmt_rate(grader['majority_accuracy'])}; "
              "GPT-4o autograder (published) 87-92%")
        print(f"  threshold for balanced accuracy instead: accuracy {fmt_rate(balanced['accuracy'])}, "
              f"FPR {fmt_rate(balanced['fpr'])}, FNR {fmt_rate(balanced['fnr'])}")

    group, best = cv["group_overall"], cv["group_best_pick"]
    summary = {
        "group_reliability": group["accuracy"],
        "group_ci_low": group["ci_low"],
        "group_ci_high": group["ci_high"],
        "n_contests": group["n_contests"],
        "group_protocol": f"Zhang reliability, overall (mean score), {args.folds}-fold contest-grouped CV",
        "best_pick_reliability": best["accuracy"],
        "best_pick_ci_low": best["ci_low"],
        "best_pick_ci_high": best["ci_high"],
        "pairwise_accuracy": cv["top_vs_mid"]["accuracy"],
        "pairwise_ci_low": cv["top_vs_mid"]["ci_low"],
        "pairwise_ci_high": cv["top_vs_mid"]["ci_high"],
        "pairwise_n_contests": cv["top_vs_mid"]["n_contests"],
        "preference_pair_accuracy": cv["preference_pairs"]["accuracy"],
        "preference_pair_ci_low": cv["preference_pairs"]["ci_low"],
        "preference_pair_ci_high": cv["preference_pairs"]["ci_high"],
        "preference_pairs_n": cv["preference_pairs"]["n"],
        "train_only_group_reliability": train_only["group_overall"]["accuracy"],
        "train_only_group_ci_low": train_only["group_overall"]["ci_low"],
        "train_only_group_ci_high": train_only["group_overall"]["ci_high"],
        "train_only_best_pick_reliability": train_only["group_best_pick"]["accuracy"],
        "train_only_pairwise_accuracy": train_only["top_vs_mid"]["accuracy"],
        "train_only_preference_pair_accuracy": train_only["preference_pairs"]["accuracy"],
        "train_contests": len(train_contests),
        "train_seconds": round(train_seconds, 2),
        "cv_seconds": round(cv_seconds, 2),
        "score_captions_per_s": round(len(group_captions) / score_seconds, 1),
        "embedded_captions": embedder.n_cached,
        "per_contest": args.per_contest,
        "grader_accuracy": grader.get("accuracy"),
        "grader_ci_low": grader.get("ci_low"),
        "grader_ci_high": grader.get("ci_high"),
        "grader_fpr": grader.get("fpr"),
        "grader_fnr": grader.get("fnr"),
        "grader_n": grader.get("n"),
        "grader_majority_accuracy": grader.get("majority_accuracy"),
        "grader_balanced_accuracy": balanced.get("accuracy"),
        "grader_balanced_fpr": balanced.get("fpr"),
        "grader_balanced_fnr": balanced.get("fnr"),
        "embedding_model": args.embedding_model,
        "total_seconds": round(time.perf_counter() - t0, 1),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
