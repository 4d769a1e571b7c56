"""Simulated voters with known caption strengths, voting through the arena's own path (served battle, signed
token, minimum time, cap, gold probes): the demo's arena round, the leaderboard's seed, the tests and the
benchmark all use it."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import NormalDist

from .pool import ANCHOR, GOLD_REAL, Pool
from .service import Arena, Receipt

# log-strengths relative to Human #200-209: the human groups in the crowd's order, models below the top
DEFAULT_STRENGTHS = {"human:human_top10": 0.6, "human:human_200": 0.0, "human:human_median": -0.4,
                     "human:human_1000": -0.5}
MODEL_STRENGTH = -0.2


class SimulatedClock:
    """A clock the simulation moves on (each visitor reads both captions for a few seconds)."""

    def __init__(self, start: float = 1.7e9) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass(frozen=True)
class Voter:
    """One simulated visitor: how often it answers gold probes right, and its taste noise."""

    name: str
    gold_accuracy: float = 0.95
    tie_share: float = 0.05


def caption_noise(caption_id: str, spread: float) -> float:
    """A caption's own deviation from its player's strength (normal, fixed per caption, seeded by its id)."""
    u = (int(hashlib.sha256(caption_id.encode()).hexdigest()[:12], 16) + 0.5) / 16**12
    return NormalDist(0.0, spread).inv_cdf(u) if spread > 0 else 0.0


def strengths_for(pool: Pool, given: Mapping[str, float] | None = None) -> dict[str, float]:
    """Every rated player's log-strength: the given ones, the human defaults, models a little below #200-209."""
    given = dict(given or {})
    return {p: given.get(p, DEFAULT_STRENGTHS.get(p, MODEL_STRENGTH)) for p in pool.rated_players()}


def simulate(arena: Arena, clock: SimulatedClock, n_votes: int, *, strengths: Mapping[str, float] | None = None,
             voters: list[Voter] | None = None, spread: float = 0.2, length_bias: float = 0.0,
             seed: int = 0) -> list[Receipt]:
    """Cast `n_votes` votes: each visitor is served a battle, reads it, and votes by Bradley-Terry on the two
    captions' strengths (plus `length_bias` times their normalised length difference); a gold probe is answered
    right with the visitor's gold accuracy."""
    rng = random.Random(seed)
    voters = voters or [Voter(f"simulated-{i}") for i in range(max(1, n_votes // 100))]
    strength = strengths_for(arena.pool, strengths)
    receipts = []
    for i in range(n_votes):
        voter = voters[i % len(voters)]
        served = arena.next_battle(voter.name)
        battle = served.battle
        a, b = arena.pool.captions[battle.caption_a], arena.pool.captions[battle.caption_b]
        if battle.gold:
            winner = "a" if (rng.random() < voter.gold_accuracy) == (a.player == GOLD_REAL) else "b"
        elif rng.random() < voter.tie_share:
            winner = "tie"
        else:
            d = (len(a.text) - len(b.text)) / max(1, len(a.text) + len(b.text))
            z = (strength.get(a.player, 0.0) + caption_noise(a.id, spread)
                 - strength.get(b.player, 0.0) - caption_noise(b.id, spread) + length_bias * d)
            winner = "a" if rng.random() < 1 / (1 + math.exp(-z)) else "b"
        choice = winner if winner == "tie" else ("left" if winner == battle.left_side else "right")
        clock.advance(arena.settings.min_seconds + 1 + rng.random() * 5)
        receipts.append(arena.vote(served.token, choice, voter.name, simulated=True))
    return receipts


__all__ = ["ANCHOR", "SimulatedClock", "Voter", "simulate", "strengths_for"]
