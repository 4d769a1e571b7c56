"""A small synthetic arena (no dataset): cartoons with captions by a few players, and simulated vote frames."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nycc_bench.arena import Arena, ArenaSettings, Pool, SimulatedClock, VoteStore
from nycc_bench.arena.pool import Cartoon, Player, human_player

PLAYERS = ["human_top10", "human_200", "human_1000"]


def small_pool(n_cartoons: int = 6, models: tuple[str, ...] = ("alpha",)) -> Pool:
    """Cartoons 1..n, each with three captions per human group, three per model run, and gold real captions."""
    pool = Pool()
    for contest in range(1, n_cartoons + 1):
        pool.cartoons[contest] = Cartoon(contest, f"Cartoon {contest}: a <b>bold</b> cat at a desk.")
        for group in PLAYERS:
            pool.add(human_player(group), contest, [f"{group} caption {k} for cartoon {contest}" for k in range(3)])
        for model in models:
            pool.add(Player(f"run:{model}", f"Model {model}", "model"), contest,
                     [f"“{model} says {k} about cartoon {contest}”" for k in range(3)])
        pool.add_gold(contest, [f"The real caption of cartoon {contest}."])
    return pool


def make_arena(tmp_path, pool: Pool | None = None, **settings: object) -> tuple[Arena, SimulatedClock]:
    clock = SimulatedClock()
    arena = Arena(VoteStore(tmp_path / "arena"), pool or small_pool(), ArenaSettings(**settings), clock=clock,
                  seed=0)
    return arena, clock


def bt_votes(strengths: dict[str, float], n: int, rng: np.random.Generator, lengths: dict[str, int] | None = None,
             length_bias: float = 0.0) -> pd.DataFrame:
    """Votes drawn from Bradley-Terry with known log-strengths (and an optional planted length preference)."""
    names = list(strengths)
    s = np.array([strengths[p] for p in names])
    k = len(names)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    base = np.array([(lengths or {}).get(p, 60) for p in names])
    la = rng.poisson(base[a])
    lb = rng.poisson(base[b])
    d = (la - lb) / np.maximum(la + lb, 1)
    p = 1 / (1 + np.exp(-(s[a] - s[b] + length_bias * d)))
    winner = np.where(rng.random(n) < p, "a", "b")
    return pd.DataFrame({"player_a": [names[i] for i in a], "player_b": [names[i] for i in b], "winner": winner,
                         "caption_a": ["x" * int(v) for v in la], "caption_b": ["x" * int(v) for v in lb]})
