"""Zhang et al.'s caption preference pairs: upstream's draw (default) and a distinct-pairs variant.

Upstream (`yguooo/cartoon-caption-generation` @ 91231db, `finetuning/preprocess.py`, `preprocess_dpo`): over a
contest's captions sorted by mean rating descending, draw `chosen = random.randint(0, int(0.5 * n))` then
`rejected = random.randint(chosen + 1, n - 1)` with Python's `random` module seeded 2024; keep the pair when
`mean_c - mean_r > 3 * np.sqrt(precision_c ** 2 + precision_r ** 2)`; stop at 1000 kept pairs or 200,000
draws. Pairs are drawn with replacement, so a pair can repeat. Train contests are those of the ranking data
below 890 (later contests were not available when the paper's experiments ran).

Positions are drawn, not texts: a caption whose text repeats another (`is_duplicate_text`), a blank caption
or one with a line break is drawn like any other, exactly as upstream does, and a pair can hold two copies of
one text; the flags in `caption_ratings` let a user filter them.
"""

from __future__ import annotations

import random

import numpy as np

PAIR_SEED = 2024
MAX_PAIRS = 1000
MAX_DRAWS = 200_000
SIGMAS = 3.0
TRAIN_BELOW = 890  # upstream: df_train[df_train['contest_number'] < 890]
FIRST_CONTEST = 530  # Zhang et al.'s corpus starts at contest 530; earlier nextml contests are not in it
PAIR_RULES = ("upstream", "distinct")

Pairs = tuple[np.ndarray, np.ndarray]


def draw_pairs_upstream(mean: np.ndarray, precision: np.ndarray, rng: random.Random | None = None,
                        max_pairs: int = MAX_PAIRS, max_draws: int = MAX_DRAWS) -> Pairs:
    """Upstream's draw on one contest sorted by mean descending: (chosen, rejected) positions, repeats kept.

    The calls on `rng` (a fresh `random.Random(2024)` by default) and the float arithmetic (numpy float64
    scalars) are upstream's, so the same seed gives the same pairs in the same order. Upstream raises on
    contests of fewer than 3 captions; here they give no pairs.
    """
    n = len(mean)
    if n < 3:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    rng = random.Random(PAIR_SEED) if rng is None else rng
    mean, precision = np.asarray(mean, np.float64), np.asarray(precision, np.float64)
    top = int(0.5 * n)
    chosen: list[int] = []
    rejected: list[int] = []
    draws = 0
    while len(chosen) < max_pairs and draws < max_draws:
        c = rng.randint(0, top)
        r = rng.randint(c + 1, n - 1)
        draws += 1
        if mean[c] - mean[r] > 3 * np.sqrt(precision[c] ** 2 + precision[r] ** 2):
            chosen.append(c)
            rejected.append(r)
    return np.array(chosen, np.int64), np.array(rejected, np.int64)


def draw_pairs_distinct(mean: np.ndarray, precision: np.ndarray, contest: int,
                        max_pairs: int = MAX_PAIRS, max_draws: int = MAX_DRAWS) -> Pairs:
    """The earlier nycc-bench variant: the same acceptance test, distinct pairs only, vectorised draws.

    Chosen from 0..n//2, rejected uniformly strictly below, numpy PCG64 seeded [2024, contest]; the first
    `max_pairs` distinct accepted pairs in draw order.
    """
    n = len(mean)
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    gen = np.random.default_rng([PAIR_SEED, contest])
    chosen = gen.integers(0, n // 2 + 1, size=max_draws)
    chosen = np.minimum(chosen, n - 2)  # the last caption has nothing strictly below it
    rejected = chosen + 1 + (gen.random(max_draws) * (n - 1 - chosen)).astype(np.int64)
    keep = mean[chosen] - mean[rejected] > SIGMAS * np.sqrt(precision[chosen] ** 2 + precision[rejected] ** 2)
    c, r = chosen[keep], rejected[keep]
    _, first = np.unique(c * n + r, return_index=True)  # distinct pairs, in draw order
    order = np.sort(first)[:max_pairs]
    return c[order], r[order]


def draw_pairs(mean: np.ndarray, precision: np.ndarray, contest: int, rule: str = "upstream") -> Pairs:
    """One contest's pairs by the named rule (`upstream`: a fresh `random.Random(2024)` per contest)."""
    if rule == "upstream":
        return draw_pairs_upstream(mean, precision)
    if rule == "distinct":
        return draw_pairs_distinct(mean, precision, contest)
    raise ValueError(f"pair_rule: unknown rule {rule!r}; use one of {', '.join(PAIR_RULES)}")


def in_pair_train(contest: int, rule: str = "upstream", known_train: frozenset[int] | None = None) -> bool:
    """Whether a train-split contest gives training pairs: upstream keeps 530 <= contest < 890.

    When the GPT-4o description files are present, `known_train` is their train split (what upstream iterates);
    the `distinct` rule keeps every train contest, as nycc-bench did before.
    """
    if rule == "distinct":
        return True
    if known_train is not None and contest not in known_train:
        return False
    return FIRST_CONTEST <= contest < TRAIN_BELOW


def describe(rule: str) -> str:
    """The card's sentence for the pair rule a build used."""
    if rule == "distinct":
        return (f"Pairs (`distinct` rule, a nycc-bench variant): up to {MAX_PAIRS} distinct pairs per contest from "
                f"at most {MAX_DRAWS:,} draws, numpy PCG64 seeded [{PAIR_SEED}, contest]; every train contest.")
    return (f"Pairs (`upstream` rule, as Zhang et al.'s `preprocess_dpo`): drawn with replacement (a pair can "
            f"repeat), Python `random` seeded {PAIR_SEED} afresh for each contest, up to {MAX_PAIRS} accepted "
            f"pairs from at most {MAX_DRAWS:,} draws; train pairs only from contests {FIRST_CONTEST} to "
            f"{TRAIN_BELOW - 1} (and, when the GPT-4o description files are built, only their train contests). "
            "Upstream's script shares one random stream across all contests after its SFT sampling, so its "
            "released pairs for a contest depend on every contest drawn before; a fresh seed per contest gives "
            "upstream's exact draw for a contest drawn first and makes each contest independent of build order.")
