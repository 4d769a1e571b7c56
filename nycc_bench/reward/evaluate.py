"""How well the reward model agrees with the crowd on contests it never saw: group reliability and pairs.

Three checks, each returning per-item outcomes that `summarize` pools (so cross-validation folds can be
pooled before the interval is computed):

- `group_judgments`: Zhang et al.'s judge-reliability protocol (their Table 2): human top-10 vs #1000–1009
  of each held-out contest, both orders, as judgment records; reliability = share picking the top group.
- `top_vs_mid_outcomes`: CrowdAcc-style pairs, per contest the crowd's best caption (rank 0) vs the one
  ranked n//2 of its primary run.
- `preference_outcomes`: chosen vs rejected of the `preference_pairs` config (optionally subsampled).

Intervals are seeded percentile bootstraps over contests (`nycc_bench.scoring`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from nycc_bench.scoring.bootstrap import N_RESAMPLES, bootstrap_ci
from nycc_bench.scoring.win_rate import win_rate

from .data import RewardData, load_reward_data
from .judge import judge_groups_reward
from .model import PROTOCOL_STATISTICS, RewardModel

TOP_GROUP, LOW_GROUP = "human_top10", "human_1000"


def trained_contests(model: RewardModel) -> set[int]:
    """Contests whose ratings the model was trained on (from its config)."""
    return {int(c) for c in model.config.get("training", {}).get("contests", [])}


def group_judgments(model: RewardModel, data: RewardData, protocol: str = "overall") -> list[dict[str, Any]]:
    """Top-10 group (in the model's place) vs #1000–1009, both orders, for each contest that has both."""
    rows = data.groups[data.groups[TOP_GROUP].notna() & data.groups[LOW_GROUP].notna()]
    if rows.empty:
        return []
    contests = rows.contest_number.astype(int).tolist()
    return judge_groups_reward(
        model,
        [list(g) for g in rows[TOP_GROUP]],
        {"#1000-1009": [list(g) for g in rows[LOW_GROUP]]},
        contests,
        data.description_list(contests),
        protocol,
    )


def top_vs_mid_outcomes(model: RewardModel, data: RewardData) -> list[dict[str, Any]]:
    """Per contest: does the best-rated caption (rank 0) outscore the one ranked n//2?"""
    picks = []
    for contest, rows in data.ratings.groupby("contest_number", sort=True):
        rows = rows.sort_values("rank", kind="stable")
        if len(rows) < 2:
            continue
        picks.append((int(contest), rows.caption.iloc[0], rows.caption.iloc[len(rows) // 2]))
    if not picks:
        return []
    captions = [c for _, top, mid in picks for c in (top, mid)]
    descriptions = [data.descriptions.get(contest) for contest, _, _ in picks for _ in range(2)]
    scores = model.score(captions, descriptions).reshape(-1, 2)
    return [
        {"contest_number": contest, "correct": bool(s[0] > s[1]), "score_top": float(s[0]), "score_mid": float(s[1])}
        for (contest, _, _), s in zip(picks, scores, strict=True)
    ]


def preference_outcomes(
    model: RewardModel, data: RewardData, max_pairs_per_contest: int | None = None, seed: int = 0
) -> list[dict[str, Any]]:
    """Per preference pair (at most `max_pairs_per_contest` per contest, seeded): chosen outscores rejected?"""
    pairs = data.pairs
    if max_pairs_per_contest is not None:
        keep = [
            rows.sample(n=min(len(rows), max_pairs_per_contest), random_state=seed).index
            for _, rows in pairs.groupby("contest_number", sort=True)
        ]
        pairs = pairs.loc[[i for index in keep for i in index]]
    if pairs.empty:
        return []
    contests = pairs.contest_number.astype(int).tolist()
    captions = [c for pair in pairs[["chosen", "rejected"]].itertuples(index=False) for c in pair]
    descriptions = [data.descriptions.get(c) for c in contests for _ in range(2)]
    scores = model.score(captions, descriptions).reshape(-1, 2)
    return [{"contest_number": c, "correct": bool(s[0] > s[1])} for c, s in zip(contests, scores, strict=True)]


def outcome_rate(
    outcomes: Sequence[dict[str, Any]], *, n_resamples: int = N_RESAMPLES, seed: int = 0
) -> dict[str, Any]:
    """Accuracy of boolean outcomes with a bootstrap CI over contests."""
    if not outcomes:
        return {"accuracy": None, "ci_low": None, "ci_high": None, "n": 0, "n_contests": 0}
    frame = pd.DataFrame(outcomes).groupby("contest_number")["correct"].agg(["sum", "count"])
    low, high = bootstrap_ci(frame["sum"].to_numpy(), frame["count"].to_numpy(), n_resamples=n_resamples, seed=seed)
    return {
        "accuracy": float(frame["sum"].sum() / frame["count"].sum()),
        "ci_low": low,
        "ci_high": high,
        "n": int(frame["count"].sum()),
        "n_contests": len(frame),
    }


def group_rate(records: Sequence[dict[str, Any]], *, n_resamples: int = N_RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """Reliability = share of judgments picking the top group (`nycc_bench.scoring.win_rate`)."""
    if not records:
        return {"accuracy": None, "ci_low": None, "ci_high": None, "n": 0, "n_contests": 0}
    rate = win_rate(records, n_resamples=n_resamples, seed=seed)
    return {
        "accuracy": rate["win_rate"],
        "ci_low": rate["ci_low"],
        "ci_high": rate["ci_high"],
        "n": rate["n_judgments"],
        "n_contests": rate["n_contests"],
    }


def summarize(
    judgments: dict[str, Sequence[dict[str, Any]]],
    top_vs_mid: Sequence[dict[str, Any]],
    preference: Sequence[dict[str, Any]],
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> dict[str, Any]:
    """The metrics dict of pooled outcomes: `group_<protocol>`, `top_vs_mid`, `preference_pairs`."""
    boot = {"n_resamples": n_resamples, "seed": seed}
    metrics = {f"group_{p}": group_rate(records, **boot) for p, records in judgments.items()}
    metrics["top_vs_mid"] = outcome_rate(top_vs_mid, **boot)
    metrics["preference_pairs"] = outcome_rate(preference, **boot)
    return metrics


def evaluate_reward_model(
    model: RewardModel,
    data: RewardData,
    *,
    contests: Iterable[int] | None = None,
    protocols: Sequence[str] = tuple(PROTOCOL_STATISTICS),
    max_pairs_per_contest: int | None = 50,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    max_contests: int | None = None,
) -> dict[str, Any]:
    """All three checks on `contests` (default: every contest of `data`) minus those the model was trained on;
    `max_contests`: each check on a seeded sample of at most that many of its contests (None: all).

    Returns the metrics of `summarize` plus `contests_skipped_trained` (how many requested contests were left
    out because the model saw their ratings) and `judgments` (the group records, per protocol).
    """
    wanted = set(data.groups.contest_number) | set(data.ratings.contest_number) | set(data.pairs.contest_number)
    wanted = {int(c) for c in (wanted if contests is None else contests)}
    seen = trained_contests(model)
    held = data.only(wanted - seen)
    if max_contests is not None:
        held = held.sampled(max_contests, seed)
    judgments = {p: group_judgments(model, held, p) for p in protocols}
    metrics = summarize(
        judgments,
        top_vs_mid_outcomes(model, held),
        preference_outcomes(model, held, max_pairs_per_contest, seed),
        n_resamples=n_resamples,
        seed=seed,
    )
    return {**metrics, "contests_skipped_trained": len(wanted & seen), "judgments": judgments}


def evaluate(
    model: str | Path | RewardModel,
    dataset: str | Path,
    *,
    splits: Sequence[str] = ("validation", "test"),
    contests: Iterable[int] | None = None,
    max_pairs_per_contest: int | None = 50,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> dict[str, Any]:
    """Evaluate a reward model (a RewardModel, saved folder or Hub id) on the held-out `splits` of a built
    dataset (optionally only `contests` of them); contests the model was trained on are always left out.

    Returns the metrics (each `{"accuracy", "ci_low", "ci_high", "n", "n_contests"}`), the model's
    fingerprint, `contests_skipped_trained` and `seconds`; judgment records are left out (see
    `evaluate_reward_model`).
    """
    import time

    start = time.perf_counter()
    model = model if isinstance(model, RewardModel) else RewardModel.load(model)
    data = load_reward_data(dataset)
    in_splits = pd.concat([data.ratings, data.groups, data.pairs])
    chosen = set(in_splits[in_splits.split.isin(list(splits))].contest_number.astype(int))
    if contests is not None:
        chosen &= {int(c) for c in contests}
    result = evaluate_reward_model(
        model, data, contests=chosen, max_pairs_per_contest=max_pairs_per_contest,
        n_resamples=n_resamples, seed=seed,
    )
    result.pop("judgments")
    return {
        "fingerprint": model.fingerprint,
        "splits": list(splits),
        **result,
        "seconds": round(time.perf_counter() - start, 2),
    }
