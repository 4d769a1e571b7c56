"""Arena ratings: Bradley-Terry (evalica's Rust solver, ties as half a win each) with a weak prior (each player
ties `PRIOR` = 1 time with a virtual reference player, so a player who never lost stays finite: a penalised maximum
likelihood, not a plain one), percentile bootstrap intervals over votes, anchored so that Human #200-209 = 1000 on
the Elo scale (400 points = ten-to-one odds); ranks by interval; a length-controlled fit; the side checks.

An interval says what the table says: the player's distance from Human #200-209, re-anchored in every bootstrap
round (so the anchor itself is exactly 1000 with no interval). `benchmarks/arena.py` measures its coverage of the
true distance. Ranks compare intervals of each player's strength relative to the field (every round centred on the
players' mean), where the anchor is a player like any other. A player with fewer than `MIN_VOTES` counted votes
shows its count and "provisional", no number.

Bootstrap over votes: votes are independent draws, and votes that name the same (player, player, outcome) cell
are exchangeable, so resampling n votes with replacement is a multinomial draw of the cell counts; each round is
one weighted fit over at most 3 x players^2 cells, whatever the number of votes.

The length-controlled rating (Arena-Hard / LMArena style control) is the same model with one covariate, the
normalised length difference (len_a - len_b) / (len_a + len_b), fitted by logistic regression (scipy's L-BFGS on
the exact likelihood, ties as half a win each), its coefficient reported with its interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import evalica
import numpy as np
import pandas as pd

from .errors import ArenaRefused
from .pool import ANCHOR, player_name
from .rules import SIDE_MIN_VOTES, SIDE_SHARE

SCALE = 400.0 / math.log(10.0)  # Elo points per unit of log-strength
BASE = 1000.0
MIN_VOTES = 20  # fewer counted votes: provisional, not ranked
ROUNDS = 1000
CONFIDENCE = 0.95
PRIOR = 1.0  # virtual ties of each player with one reference player (see `_bt`)
_WINNERS = (evalica.Winner.X, evalica.Winner.Y, evalica.Winner.Draw)


@dataclass
class Rating:
    """One player's row."""

    player: str
    name: str
    rating: float
    low: float
    high: float
    votes: int
    wins: float
    rank: int | None  # None: provisional
    provisional: bool


@dataclass
class Ratings:
    """The table and what it rests on."""

    rows: list[Rating]
    n_votes: int  # counted votes fitted
    anchor: str  # the player rated BASE, or "mean" when the anchor has no vote
    rounds: int
    confidence: float
    length_control: bool
    length_coef: float | None = None  # log-odds per unit of normalised length difference
    length_low: float | None = None
    length_high: float | None = None
    left_win_rate: float | None = None
    left_low: float | None = None
    left_high: float | None = None
    n_decisive: int = 0
    side_biased: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)  # votes by kind (people, simulated) and how many counted
    interval: str = ""  # what the intervals are (`interval_label`)
    prior: str = ""  # the prior, in words
    min_votes: int = MIN_VOTES

    def to_dict(self) -> dict[str, Any]:
        """Everything, with a provisional player's rating and interval left out (its count stays)."""
        out = {k: v for k, v in self.__dict__.items() if k != "rows"}
        out["rows"] = [{**r.__dict__, **({"rating": None, "low": None, "high": None} if r.provisional else {})}
                       for r in self.rows]
        return out

    def frame(self) -> pd.DataFrame:
        """The table as the Arena tab and the CLI show it (a provisional player: its count, no number)."""
        column = f"95% interval ({self.interval})"
        return pd.DataFrame([{"Rank": "provisional" if r.provisional else r.rank, "Player": r.name,
                              "Rating": "" if r.provisional else round(r.rating),
                              column: "" if r.provisional else f"[{r.low:.0f}, {r.high:.0f}]",
                              "Votes": r.votes} for r in self.rows],
                            columns=["Rank", "Player", "Rating", column, "Votes"])


def _cells(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n_players: int) -> tuple[np.ndarray, ...]:
    """Unique (a, b, outcome) cells, each pair in one orientation (a < b, the outcome flipped to match), and their
    counts."""
    flip = a > b
    a, b = np.where(flip, b, a), np.where(flip, a, b)
    outcome = np.where(flip & (outcome < 2), 1 - outcome, outcome)
    code = (a * n_players + b) * 3 + outcome
    unique, counts = np.unique(code, return_counts=True)
    return unique // 3 // n_players, unique // 3 % n_players, unique % 3, counts.astype(np.float64)


def cell_weights(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, weights: np.ndarray, cells: tuple[np.ndarray, ...],
                 n_players: int) -> np.ndarray:
    """Per-vote weights summed into the cells of `_cells` (same orientation)."""
    flip = a > b
    a, b = np.where(flip, b, a), np.where(flip, a, b)
    outcome = np.where(flip & (outcome < 2), 1 - outcome, outcome)
    totals = np.bincount((a * n_players + b) * 3 + outcome, weights, n_players * n_players * 3)
    ca, cb, co = cells[:3]
    return totals[(ca * n_players + cb) * 3 + co]


@cache
def _index(n_players: int) -> pd.Index:
    return pd.RangeIndex(n_players)


class BradleyTerry:
    """Evalica's Bradley-Terry (Newman's iteration) over fixed cells, refitted for any cell weights. Each player
    also ties `PRIOR` times with one virtual reference player, so that one who never lost (or never won) stays
    finite; with tens of votes per player its pull is negligible."""

    def __init__(self, ca: np.ndarray, cb: np.ndarray, co: np.ndarray, n_players: int) -> None:
        self.n, self.ca, self.cb = n_players, ca, cb
        self.xs = np.concatenate([ca, np.arange(n_players)])
        self.ys = np.concatenate([cb, np.full(n_players, n_players)])
        self.winners = [_WINNERS[o] for o in np.concatenate([co, np.full(n_players, 2)])]
        self.prior = np.full(n_players, PRIOR)

    def fit(self, weights: np.ndarray) -> np.ndarray:
        """Log-strengths; NaN for a player with no comparison at these weights."""
        n = self.n
        result = evalica.bradley_terry(self.xs, self.ys, self.winners, index=_index(n + 1),
                                       weights=np.concatenate([weights, self.prior]), tolerance=1e-8, limit=500)
        scores = np.empty(n + 1)
        scores[result.scores.index.to_numpy()] = result.scores.to_numpy()
        with np.errstate(divide="ignore"):
            out = np.log(scores[:n])
        played = np.bincount(self.ca, weights, n) + np.bincount(self.cb, weights, n)
        out[(played == 0) | ~np.isfinite(out)] = np.nan
        return out


def _lc_fit(a: np.ndarray, b: np.ndarray, y: np.ndarray, d: np.ndarray, w: np.ndarray, n_players: int,
            anchor: int, start: np.ndarray | None = None) -> np.ndarray:
    """Log-strengths (anchor fixed at 0) and the length coefficient (last entry) maximising the weighted
    log-likelihood of P(a beats b) = sigmoid(s_a - s_b + beta d), y being 1, 0 or 0.5 (a tie): scipy's trust-region
    Newton method on the exact gradient and Hessian (a warm start converges in a few steps)."""
    from scipy.optimize import minimize

    n = n_players
    free = np.array([i for i in range(n) if i != anchor])
    ridge = PRIOR / 8  # the curvature of `_bt`'s virtual ties at equal strength: a player who never lost stays finite

    def z_of(theta: np.ndarray) -> np.ndarray:
        s = np.zeros(n)
        s[free] = theta[:-1]
        return s[a] - s[b] + theta[-1] * d

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        z = z_of(theta)
        value = np.sum(w * (y * np.logaddexp(0.0, -z) + (1 - y) * np.logaddexp(0.0, z)))
        r = w * (1.0 / (1.0 + np.exp(-z)) - y)  # d(loss)/dz
        grad_s = np.bincount(a, r, n) - np.bincount(b, r, n)
        return value + ridge * theta @ theta, np.append(grad_s[free], r @ d) + 2 * ridge * theta

    def hessian(theta: np.ndarray) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-z_of(theta)))
        v = w * p * (1 - p)
        cross = np.bincount(a * n + b, v, n * n).reshape(n, n)
        h = np.empty((n + 1, n + 1))
        h[:n, :n] = np.diag(cross.sum(0) + cross.sum(1)) - cross - cross.T
        h[:n, n] = h[n, :n] = np.bincount(a, v * d, n) - np.bincount(b, v * d, n)
        h[n, n] = v @ (d * d)
        keep = np.append(free, n)
        return h[np.ix_(keep, keep)] + 2 * ridge * np.eye(len(keep))

    theta0 = np.zeros(n) if start is None else start
    result = minimize(loss, theta0, jac=True, hess=hessian, method="trust-exact", options={"gtol": 1e-6})
    s = np.zeros(n)
    s[free] = result.x[:-1]
    return np.append(s, result.x[-1])


def interval_label(anchored: bool) -> str:
    """What the intervals are, as the table's column says it."""
    return ("distance from Human #200-209, re-anchored each bootstrap round" if anchored else
            "distance from the players' mean, re-centred each bootstrap round")


PRIOR_TEXT = (f"each player ties {PRIOR:g} time with a virtual reference player (a weak prior, so a player who never "
              "lost stays finite; a few Elo points at 20-40 votes a player)")


def _interval(draws: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    tail = (1 - confidence) / 2 * 100
    with np.errstate(all="ignore"):
        return np.nanpercentile(draws, tail, axis=0), np.nanpercentile(draws, 100 - tail, axis=0)


def rank_by_interval(low: np.ndarray, high: np.ndarray, ranked: np.ndarray) -> list[int | None]:
    """1 + the number of ranked players whose interval lies wholly above this one's (None when not ranked)."""
    out: list[int | None] = []
    for i in range(len(low)):
        out.append(1 + int(np.sum(ranked & (low > high[i]))) if ranked[i] else None)
    return out


def check_votes(frame: pd.DataFrame) -> pd.DataFrame:
    """The votes a fit reads, validated: one line naming the column and the fix otherwise."""
    need = ("player_a", "player_b", "winner", "caption_a", "caption_b")
    if missing := [c for c in need if c not in frame.columns]:
        raise ArenaRefused(f"votes: no column {missing[0]!r}; pass a file written by `nycc-bench arena export`")
    bad = frame[~frame["winner"].isin(["a", "b", "tie", "both_bad"])]
    if len(bad):
        raise ArenaRefused(f"winner: row {bad.index[0]} has {bad['winner'].iloc[0]!r}; expected a, b, tie or both_bad")
    for column in ("caption_a", "caption_b"):
        empty = frame[frame[column].isna() | (frame[column].astype(str).str.strip() == "")]
        if len(empty):
            raise ArenaRefused(f"{column}: empty caption in row {empty.index[0]}; every vote compares two texts")
    same = frame[frame["player_a"] == frame["player_b"]]
    if len(same):
        raise ArenaRefused(f"player_b: row {same.index[0]} pairs {same['player_a'].iloc[0]!r} with itself")
    return frame


def counted(frame: pd.DataFrame) -> pd.DataFrame:
    """The votes that enter ratings: not gold probes, and `counted` where the file says."""
    keep = ~frame["gold"].astype(bool) if "gold" in frame.columns else pd.Series(True, index=frame.index)
    if "counted" in frame.columns:
        keep &= frame["counted"].astype(bool)
    return frame[keep]


def side_report(frame: pd.DataFrame, confidence: float = CONFIDENCE, seed: int = 0) -> dict[str, Any]:
    """The left side's win rate over decisive votes (with a bootstrap interval) and the visitors who nearly always
    pick one side."""
    if "left_side" not in frame.columns:
        return {"left_win_rate": None, "left_low": None, "left_high": None, "n_decisive": 0, "side_biased": []}
    decisive = frame[frame["winner"].isin(["a", "b"])]
    left_won = (decisive["winner"] == decisive["left_side"]).to_numpy(dtype=float)
    rate = float(left_won.mean()) if len(left_won) else None
    low = high = None
    if rate is not None:  # the percentile bootstrap of a mean of 0/1 votes: resampled means are binomial draws
        draws = np.random.default_rng(seed).binomial(len(left_won), rate, ROUNDS) / len(left_won)
        low, high = (float(x) for x in np.percentile(draws, [(1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100]))
    biased = []
    if "voter" in decisive.columns and len(decisive):
        voters, which = np.unique(decisive["voter"].astype(str).to_numpy(), return_inverse=True)
        n = np.bincount(which)
        left = np.bincount(which, left_won) / n
        for k in np.flatnonzero((n >= SIDE_MIN_VOTES) & (np.maximum(left, 1 - left) >= SIDE_SHARE)):
            biased.append({"voter": str(voters[k]), "votes": int(n[k]), "left_share": float(left[k])})
    return {"left_win_rate": rate, "left_low": low, "left_high": high, "n_decisive": len(left_won),
            "side_biased": biased}


def ratings(votes: pd.DataFrame, *, length_control: bool = False, rounds: int = ROUNDS,
            confidence: float = CONFIDENCE, seed: int = 0, anchor: str = ANCHOR, min_votes: int = MIN_VOTES,
            names: dict[str, str] | None = None) -> Ratings:
    """The arena table from exported votes (`counted` rows, gold probes left out)."""
    if rounds < 1:
        raise ArenaRefused(f"rounds: at least 1 bootstrap round, got {rounds}")
    if not 0 < confidence < 1:
        raise ArenaRefused(f"confidence: a level in (0, 1), got {confidence}")
    frame = counted(check_votes(votes))
    if frame.empty:
        raise ArenaRefused("votes: no counted vote (gold probes and left-out visitors do not count); vote first")
    players = sorted(set(frame["player_a"]) | set(frame["player_b"]))
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    a = frame["player_a"].map(index).to_numpy()
    b = frame["player_b"].map(index).to_numpy()
    outcome = frame["winner"].map({"a": 0, "b": 1, "tie": 2, "both_bad": 2}).to_numpy()
    n_votes = len(frame)
    rng = np.random.default_rng(seed)
    notes = []
    anchored = anchor in index
    if not anchored:
        notes.append(f"{anchor} has no counted vote: ratings are centred on their mean (= {BASE:g}) instead")

    if length_control:
        d = _length_diff(frame)
        y = np.where(outcome == 0, 1.0, np.where(outcome == 1, 0.0, 0.5))
        ref = index[anchor] if anchored else 0
        point = _lc_fit(a, b, y, d, np.ones(n_votes), n, ref)
        draws = np.empty((rounds, n + 1))
        theta = np.delete(point, ref)
        for r in range(rounds):
            weights = rng.multinomial(n_votes, np.full(n_votes, 1.0 / n_votes)).astype(np.float64)
            fit = _lc_fit(a, b, y, d, weights, n, ref, start=theta)
            draws[r] = fit
        log_strength, log_draws = point[:n], draws[:, :n]
        coef = point[n]
        coef_low, coef_high = _interval(draws[:, n:], confidence)
    else:
        ca, cb, co, counts = _cells(a, b, outcome, n)
        model = BradleyTerry(ca, cb, co, n)
        log_strength = model.fit(counts)
        log_draws = np.empty((rounds, n))
        probabilities = counts / counts.sum()
        for r in range(rounds):
            log_draws[r] = model.fit(rng.multinomial(n_votes, probabilities).astype(np.float64))
        coef = coef_low = coef_high = None

    # the point and every bootstrap round on the anchored scale: each round re-anchored at the anchor's own
    # estimate in that round, so an interval is one of the distance from Human #200-209 (the anchor: 1000 exactly)
    rating = BASE + SCALE * (log_strength - (log_strength[index[anchor]] if anchored else np.nanmean(log_strength)))
    with np.errstate(all="ignore"):
        centred = log_draws - (log_draws[:, [index[anchor]]] if anchored
                               else np.nanmean(log_draws, axis=1, keepdims=True))
    low, high = _interval(BASE + SCALE * centred, confidence)
    played = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
    wins = (np.bincount(a, (outcome == 0) + 0.5 * (outcome == 2), n)
            + np.bincount(b, (outcome == 1) + 0.5 * (outcome == 2), n))
    ranked = played >= min_votes
    # ranks compare every player alike, the anchor included: intervals of the strength relative to the field (each
    # round centred on the players' mean), where the anchor's own uncertainty shows (re-anchored, it has none)
    with np.errstate(all="ignore"):
        field_low, field_high = _interval(log_draws - np.nanmean(log_draws, axis=1, keepdims=True), confidence)
    ranks = rank_by_interval(field_low, field_high, ranked)
    names = names or {}
    rows = [Rating(p, names.get(p, player_name(p)), float(rating[i]), float(low[i]), float(high[i]), int(played[i]),
                   float(wins[i]), ranks[i], not bool(ranked[i])) for i, p in enumerate(players)]
    rows.sort(key=lambda r: (r.provisional, -r.rating))
    side = side_report(frame, confidence, seed)
    return Ratings(rows, n_votes, anchor if anchored else "mean", rounds, confidence, length_control,
                   None if coef is None else float(coef),
                   None if coef_low is None else float(coef_low[0]),
                   None if coef_high is None else float(coef_high[0]), notes=notes, kinds=vote_kinds(votes),
                   interval=interval_label(anchored), prior=PRIOR_TEXT, min_votes=min_votes, **side)


def vote_kinds(votes: pd.DataFrame) -> dict[str, int]:
    """Votes of people and of simulated voters in the frame, and how many of each counted."""
    simulated = (votes["simulated"].astype(bool) if "simulated" in votes.columns
                 else pd.Series(False, index=votes.index))
    is_counted = votes.index.isin(counted(votes).index)
    return {"people": int((~simulated).sum()), "simulated": int(simulated.sum()),
            "counted_people": int((is_counted & ~simulated).sum()),
            "counted_simulated": int((is_counted & simulated).sum()),
            "duplicates_dropped": int(votes.attrs.get("duplicates_dropped", 0))}


def _length_diff(frame: pd.DataFrame) -> np.ndarray:
    """(len_a - len_b) / (len_a + len_b) of the displayed captions."""
    la = frame["caption_a"].str.len().to_numpy(dtype=np.float64)
    lb = frame["caption_b"].str.len().to_numpy(dtype=np.float64)
    return np.divide(la - lb, la + lb, out=np.zeros_like(la), where=(la + lb) > 0)
