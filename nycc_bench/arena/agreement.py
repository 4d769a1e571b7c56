"""How far a judge is from people: its verdicts on the arena's own battles against the counted votes, its ranking
of the players against the arena ratings, how well it separates them, and (given a dataset) Zhang's crowd check.

Each counted, decisive vote's two captions are judged as Zhang's group comparison with one caption a side, in both
orders (any judge spec: an LLM through the engine and its cache, or the offline reward model). Caption-level
agreement is the share of valid judgments that pick the caption people picked, with a bootstrap interval over
votes (both orders of a vote stay together); with fewer than `EXACT_BELOW` votes, or a bootstrap with no spread, the
exact Clopper-Pearson interval over votes instead (the report names the method). Beside it, its scale:
- the ceiling: how often the arena's own ratings, fitted without a vote (5-fold cross-fitting), pick the caption
  people picked in it; single votes are noisy, so no judge is expected above it;
- order consistency: the share of votes whose two orders the judge decided alike (an always-first judge: 0%), with
  its exact interval.
The judge's win rate of each player over those judgments is ranked against the arena ratings by Kendall's tau
(bootstrap over votes: both are recomputed each round), and against the length-controlled ratings (a point).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pandas as pd

from ..errors import NyccBenchError
from ..judging import JudgeSpec, group_judgments
from ..scoring.bootstrap import bootstrap_ci, exact_interval
from ..scoring.win_rate import THRESHOLD, recalibrate
from .errors import ArenaRefused
from .pool import player_name
from .rating import ROUNDS, BradleyTerry, _cells, cell_weights, counted, ratings, vote_kinds

GROUP_PROTOCOLS = ("overall", "best_pick")
EXACT_BELOW = 100  # votes: below, the exact interval
FOLDS = 5


def ceiling(frame: pd.DataFrame, folds: int = FOLDS, seed: int = 0) -> dict[str, Any]:
    """How often ratings fitted without a vote (`folds`-fold cross-fitting of the plain Bradley-Terry model) pick the
    caption people picked in it (a tie of strengths: half), with its exact interval over votes."""
    players = sorted(set(frame["player_a"]) | set(frame["player_b"]))
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    a = frame["player_a"].map(index).to_numpy()
    b = frame["player_b"].map(index).to_numpy()
    outcome = np.where(frame["winner"].to_numpy() == "a", 0, 1)
    fold = np.random.default_rng(seed).permutation(len(frame)) % folds
    cells = _cells(a, b, outcome, n)
    model = BradleyTerry(*cells[:3], n)
    hits = np.full(len(frame), np.nan)
    for k in range(folds):
        held = fold == k
        if not held.any() or held.all():
            continue
        strength = model.fit(cell_weights(a, b, outcome, (~held).astype(float), cells, n))
        diff = strength[a[held]] - strength[b[held]]
        predicted = np.where(np.isnan(diff), 0.5, np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5)))
        hits[held] = np.where(outcome[held] == 0, predicted, 1 - predicted)
    valid = ~np.isnan(hits)
    value = float(hits[valid].mean()) if valid.any() else None
    low, high = exact_interval(round(float(hits[valid].sum())), int(valid.sum()))
    return {"value": value, "ci_low": low, "ci_high": high, "n_votes": int(valid.sum()), "folds": folds,
            "method": "clopper-pearson"}


def separability(low: np.ndarray, high: np.ndarray) -> float | None:
    """The share of pairs whose intervals do not overlap (None with fewer than two)."""
    n = len(low)
    if n < 2:
        return None
    apart = sum(low[i] > high[j] or low[j] > high[i] for i in range(n) for j in range(i + 1, n))
    return apart / (n * (n - 1) / 2)


def _kendall(x: np.ndarray, y: np.ndarray) -> float:
    from scipy.stats import kendalltau

    keep = np.isfinite(x) & np.isfinite(y)
    return float(kendalltau(x[keep], y[keep]).statistic) if keep.sum() >= 2 else math.nan


def judge_votes(frame: pd.DataFrame, judge: JudgeSpec, protocol: str) -> pd.DataFrame:
    """Per decisive counted vote: the judge's picks in both orders (1 = the caption people picked, 0 = the other,
    NaN = an unreadable reply), caption pairs judged once."""
    pairs = frame[["caption_a", "caption_b", "description", "contest_number"]].drop_duplicates(
        ["caption_a", "caption_b"]).reset_index(drop=True)
    descriptions = [d or None for d in pairs["description"]]
    if protocol == "overall" and any(d is None for d in descriptions):
        descriptions = [d or "(no description)" for d in descriptions]
    records = group_judgments(judge, [[t] for t in pairs["caption_a"]], {"b": [[t] for t in pairs["caption_b"]]},
                              [int(c) for c in pairs["contest_number"]], descriptions, protocol)
    threshold = judge.threshold if judge.threshold is not None else THRESHOLD
    picks: dict[tuple[int, str], float] = {}
    for k, record in enumerate(records):
        i, position = k // 2, record["model_position"]
        verdict = record["verdict"] or (recalibrate(record["delta_logprob"], threshold)
                                        if record.get("delta_logprob") is not None else "ERROR")
        picks[i, position] = math.nan if verdict == "ERROR" else float(verdict == position)  # 1: caption a won
    key = {(a, b): i for i, (a, b) in enumerate(zip(pairs["caption_a"], pairs["caption_b"], strict=True))}
    rows = [key[a, b] for a, b in zip(frame["caption_a"], frame["caption_b"], strict=True)]
    out = frame.copy()
    out["judge_a_first"] = [picks[i, "A"] for i in rows]  # the judge picked caption a when shown first
    out["judge_a_second"] = [picks[i, "B"] for i in rows]
    return out


def agree(votes: pd.DataFrame, judge: JudgeSpec, *, protocol: str | None = None, dataset: str | None = None,
          rounds: int = ROUNDS, confidence: float = 0.95, seed: int = 0) -> dict[str, Any]:
    """The judge's agreement with the arena (and the crowd, with `dataset`); see the module docstring."""
    protocol = protocol or (judge.named.protocol if judge.named is not None else "overall")
    if protocol not in GROUP_PROTOCOLS:
        raise ArenaRefused(f"protocol: the arena compares two captions; use {' or '.join(GROUP_PROTOCOLS)}, "
                           f"not {protocol!r}")
    frame = counted(votes)
    frame = frame[frame["winner"].isin(["a", "b"])].reset_index(drop=True)
    if frame.empty:
        raise ArenaRefused("votes: no counted vote picks a caption (ties and gold probes do not count); vote first")
    start = time.perf_counter()
    judged = judge_votes(frame, judge, protocol)
    judging = {"seconds": time.perf_counter() - start,
               "judgments": 2 * len(frame[["caption_a", "caption_b"]].drop_duplicates())}  # each pair, both orders
    people_a = (judged["winner"] == "a").to_numpy(dtype=float)
    orders = judged[["judge_a_first", "judge_a_second"]].to_numpy()
    agrees = np.where(np.isnan(orders), np.nan, orders == people_a[:, None])
    valid = (~np.isnan(orders)).sum(1)
    hits = np.nansum(agrees, 1)
    n_valid = int(valid.sum())
    value = float(hits.sum() / n_valid) if n_valid else None
    low, high = bootstrap_ci(hits, valid, confidence=confidence, n_resamples=rounds, seed=seed)
    method = "bootstrap"
    voted = int((valid > 0).sum())
    if value is not None and (voted < EXACT_BELOW or low == high):  # few votes, or no spread to resample
        low, high = exact_interval(round(value * voted), voted, confidence)
        method = "clopper-pearson"
    both = (valid == 2)
    consistent = int((orders[both, 0] == orders[both, 1]).sum())  # 1 = caption a won, whichever side it was on
    c_low, c_high = exact_interval(consistent, int(both.sum()), confidence)

    arena = ratings(votes, rounds=rounds, confidence=confidence, seed=seed)
    players = [r.player for r in arena.rows]
    index = {p: i for i, p in enumerate(players)}
    a = judged["player_a"].map(index).to_numpy()
    b = judged["player_b"].map(index).to_numpy()
    n = len(players)
    judge_a = np.nan_to_num(orders, nan=0.0).sum(1)  # the judge's wins for caption a, over its valid orders
    rng = np.random.default_rng(seed)
    taus, rates = [], []
    outcome = np.where(people_a == 1, 0, 1)
    cells = _cells(a, b, outcome, n)
    model = BradleyTerry(*cells[:3], n)
    for r in range(rounds + 1):
        w = np.ones(len(judged)) if r == 0 else rng.multinomial(len(judged), np.full(len(judged), 1 / len(judged)))
        wins = np.bincount(a, w * judge_a, n) + np.bincount(b, w * (valid - judge_a), n)
        games = np.bincount(a, w * valid, n) + np.bincount(b, w * valid, n)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = wins / games
        strength = model.fit(cell_weights(a, b, outcome, w.astype(float), cells, n))
        taus.append(_kendall(rate, strength))
        rates.append(rate)
    tau_low, tau_high = (np.nanpercentile(taus[1:], [(1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100])
                         if np.isfinite(taus[1:]).any() else (math.nan, math.nan))
    rate_draws = np.array(rates[1:])
    with np.errstate(all="ignore"):
        r_low = np.nanpercentile(rate_draws, (1 - confidence) / 2 * 100, axis=0)
        r_high = np.nanpercentile(rate_draws, (1 + confidence) / 2 * 100, axis=0)
    arena_low = np.array([r.low for r in arena.rows])
    arena_high = np.array([r.high for r in arena.rows])
    controlled = ratings(votes, rounds=min(rounds, 50), confidence=confidence, seed=seed, length_control=True)
    lc = {r.player: r.rating for r in controlled.rows}
    tau_lc = _kendall(rates[0], np.array([lc.get(p, math.nan) for p in players]))
    crowd = crowd_check(judge, dataset, protocol, confidence) if dataset else None
    return {
        "judge": judge.name, "protocol": protocol,
        "agreement": {"value": value, "ci_low": low, "ci_high": high, "n_votes": len(judged),
                      "n_judgments": n_valid, "n_error": int(2 * len(judged) - n_valid), "method": method},
        "ceiling": ceiling(judged, seed=seed),
        "order_consistency": {"value": consistent / int(both.sum()) if both.any() else None, "ci_low": c_low,
                              "ci_high": c_high, "n_votes": int(both.sum()), "method": "clopper-pearson"},
        "kendall_tau": {"value": _none(taus[0]), "ci_low": _none(tau_low), "ci_high": _none(tau_high),
                        "n_players": n},
        "kendall_tau_length_controlled": {"value": _none(tau_lc), "n_players": n},
        "separability": {"judge": separability(r_low, r_high), "arena": separability(arena_low, arena_high),
                         "n_players": n},
        "players": [{"player": p, "name": player_name(p), "judge_win_rate": _none(rates[0][i]),
                     "arena_rating": arena.rows[i].rating, "length_controlled_rating": lc.get(p)}
                    for i, p in enumerate(players)],
        "crowd": crowd, "kinds": vote_kinds(votes), "judging": judging,
        "settings": {"rounds": rounds, "confidence": confidence, "seed": seed, "ties": "excluded",
                     "orders": "both (caption a shown first, then second)"},
    }


def crowd_check(judge: JudgeSpec, dataset: str, protocol: str, confidence: float = 0.95) -> dict[str, Any]:
    """Zhang's crowd check with the same judge (top 10 vs #1000-1009; `nycc-bench reliability`), or why not; with
    fewer than `EXACT_BELOW` comparisons its interval is the exact one."""
    from ..reliability import reliability

    try:
        result = reliability(judge, dataset, protocol)
    except NyccBenchError as err:
        return {"value": None, "reason": str(err)}
    low, high, method = result["ci_low"], result["ci_high"], "bootstrap"
    n = int(result["n"] or 0)
    if result["reliability"] is not None and n and (n < EXACT_BELOW or low == high):
        low, high = exact_interval(round(result["reliability"] * n), n, confidence)
        method = "clopper-pearson"
    return {"value": result["reliability"], "ci_low": low, "ci_high": high, "n": result["n"],
            "n_contests": result["n_contests"], "method": method}


def _none(x: float) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def table_lines(results: list[dict[str, Any]]) -> list[str]:
    """One row per judge: arena agreement, Kendall tau, separability, the crowd check (Markdown)."""
    def cell(d: dict[str, Any] | None, pct: bool = True) -> str:
        if not d or d.get("value") is None:
            return "n/a" if not d or not d.get("reason") else "n/a (no crowd data)"
        f = (lambda x: f"{100 * x:.1f}") if pct else (lambda x: f"{x:.2f}")
        interval = f" [{f(d['ci_low'])}, {f(d['ci_high'])}]" if d.get("ci_low") is not None else ""
        return f"{f(d['value'])}{interval}"

    lines = ["| Judge | Agreement with arena votes (%) | Ceiling: ratings vs single votes (%) | Same verdict in both "
             "orders (%) | n votes | Kendall tau vs arena | Kendall tau vs length-controlled | Separability (judge / "
             "arena) | Crowd: top 10 over #1000-1009 (%) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        sep = r["separability"]
        share = "/".join("n/a" if sep[k] is None else f"{100 * sep[k]:.0f}%" for k in ("judge", "arena"))
        lines.append(f"| {r['judge']} ({r['protocol']}) | {cell(r['agreement'])} | {cell(r.get('ceiling'))} | "
                     f"{cell(r.get('order_consistency'))} | {r['agreement']['n_votes']} | "
                     f"{cell(r['kendall_tau'], pct=False)} | {cell(r.get('kendall_tau_length_controlled'), pct=False)} "
                     f"| {share} | {cell(r['crowd'])} |")
    return lines
