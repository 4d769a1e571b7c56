"""Zhang et al.'s judge shots, drawn as upstream draws them: one pandas sample, six rows per evaluated contest.

Upstream (yguooo/cartoon-caption-generation at 91231db, ``ranking/rank_more.py`` L14, L99, L113, L200-237,
L313-336; ``ranking/rank.py`` L122, L232) reads Hessel's ranking train data (the Hub's parquet shard
``train-00000-of-00002``), draws ``df.sample(n=600, random_state=42, ignore_index=True)`` once, and gives the
i-th of its 91 held-out contests (``contest_num_for_eval``, L165-181) the sampled rows
``6i .. 6i+4`` as its five examples, the same for both orders and every human group. The block a contest gets
is fixed by that order, never by which contests a run scores (one split, a ``--limit``, contests without
output): a contest outside the 91 takes the next free block, in ascending order after them. The order of
``contest_num_for_eval`` (an unpublished pickle, L11-12) is inferred as ascending: L164-165 sort each model's
rows by contest number with the comment "same order as contest_num_for_eval"; the record says so. The draw is pandas'
own (``DataFrame.sample``), applied to the pool's row positions, so it equals upstream's whenever the pool holds
the same rows in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...contests import ZHANG_HELD_OUT

UPSTREAM_SAMPLE = 600
UPSTREAM_SEED = 42
ROWS_PER_CONTEST = 6  # upstream steps by 6 and uses the first 5 of each block
N_SHOTS = 5
UPSTREAM_ORDER: tuple[int, ...] = tuple(sorted(ZHANG_HELD_OUT))  # rank_more.py's contest_num_for_eval, ascending
SOURCE = ("pandas DataFrame.sample(n=600, random_state=42) over Hessel ranking train, rows 6i..6i+4 for the i-th "
          "of the 91 held-out contests in ascending order, whichever contests are scored; other contests take the "
          "next blocks, ascending (ranking/rank_more.py L113, L165-181, L200-237, L313-336). The ascending order is "
          "inferred: upstream's contest_num_for_eval is an unpublished pickle, and L164-165 sort by contest number "
          "as its 'same order'")


@dataclass
class ShotDraw:
    """The shots each contest gets (row positions in the pool) and where they came from, for the record."""

    rows: dict[int, list[int]] = field(default_factory=dict)  # contest -> pool row positions; empty: zero-shot
    pool: str = ""
    pool_rows: int = 0
    zero_shot_reason: str | None = None

    def describe(self) -> dict[str, Any]:
        """What a results record keeps: the rule, the pool, and the rows each contest got (or why none)."""
        return {"draw": SOURCE, "pool": self.pool, "pool_rows": self.pool_rows,
                "n_shots": N_SHOTS if self.rows else 0, "zero_shot_reason": self.zero_shot_reason,
                "rows": {str(c): r for c, r in sorted(self.rows.items())}}


def sampled_positions(n_rows: int, n: int = UPSTREAM_SAMPLE, seed: int = UPSTREAM_SEED) -> list[int]:
    """The row positions `DataFrame.sample(n=n, random_state=seed)` picks from `n_rows` rows, in its order.

    >>> sampled_positions(10, n=3, seed=42)
    [8, 1, 5]
    """
    import pandas as pd

    return pd.RangeIndex(n_rows).to_series().sample(n=n, random_state=seed).tolist()


def blocks(contest_numbers: Sequence[int]) -> dict[int, int]:
    """Each contest's block i (rows 6i..6i+4): its place among upstream's 91 held-out contests, ascending; a
    contest outside them takes the next block after the 91, in ascending order.

    >>> blocks([761, 536, 537])
    {536: 0, 537: 1, 761: 90}
    >>> blocks([900, 536, 12])
    {536: 0, 12: 91, 900: 92}
    """
    place = {c: i for i, c in enumerate(UPSTREAM_ORDER)}
    contests = sorted({int(c) for c in contest_numbers})
    outside = [c for c in contests if c not in place]
    return {**{c: place[c] for c in contests if c in place},
            **{c: len(UPSTREAM_ORDER) + k for k, c in enumerate(outside)}}


def draw(contest_numbers: Sequence[int], n_pool_rows: int, pool: str) -> ShotDraw:
    """Upstream's shots for these contests from a pool of `n_pool_rows` rows, each contest's block fixed by
    upstream's order (`blocks`); zero-shot (with the reason) when the pool has fewer than 600 rows or a contest's
    block lies past the 600 sampled rows."""
    if n_pool_rows < UPSTREAM_SAMPLE:
        return ShotDraw({}, pool, n_pool_rows, f"the pool has {n_pool_rows} rows; upstream samples "
                        f"{UPSTREAM_SAMPLE}, so the judge runs zero-shot")
    block = blocks(contest_numbers)
    if block and max(block.values()) * ROWS_PER_CONTEST + N_SHOTS > UPSTREAM_SAMPLE:
        past = UPSTREAM_SAMPLE // ROWS_PER_CONTEST
        return ShotDraw({}, pool, n_pool_rows, f"{sum(b >= past for b in block.values())} contests outside "
                        f"upstream's {len(UPSTREAM_ORDER)} held-out ones would need blocks past the {UPSTREAM_SAMPLE} "
                        "sampled rows (6 per contest), so the judge runs zero-shot")
    sampled = sampled_positions(n_pool_rows)
    rows = {c: sampled[ROWS_PER_CONTEST * i: ROWS_PER_CONTEST * i + N_SHOTS] for c, i in sorted(block.items())}
    return ShotDraw(rows, pool, n_pool_rows)
