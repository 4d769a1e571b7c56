"""Zhang et al.'s judge shots, drawn as upstream draws them: one pandas sample, six rows per evaluated contest.

Upstream (yguooo/cartoon-caption-generation at 91231db, ``ranking/rank_more.py`` L14, L99, L113, L200-237,
L313-336; ``ranking/rank.py`` L122, L232) reads Hessel's ranking train data (the Hub's parquet shard
``train-00000-of-00002``), draws ``df.sample(n=600, random_state=42, ignore_index=True)`` once, and gives the
i-th evaluated contest (contests in ascending order) the sampled rows ``6i .. 6i+4`` as its five examples, the
same for both orders and every human group. The draw is pandas' own (``DataFrame.sample``), applied to the
pool's row positions, so it equals upstream's whenever the pool holds the same rows in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

UPSTREAM_SAMPLE = 600
UPSTREAM_SEED = 42
ROWS_PER_CONTEST = 6  # upstream steps by 6 and uses the first 5 of each block
N_SHOTS = 5
SOURCE = ("pandas DataFrame.sample(n=600, random_state=42) over Hessel ranking train, rows 6i..6i+4 for the i-th "
          "contest in ascending order (ranking/rank_more.py L113, L200-237, L313-336)")


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


def draw(contest_numbers: Sequence[int], n_pool_rows: int, pool: str) -> ShotDraw:
    """Upstream's shots for these contests from a pool of `n_pool_rows` rows; zero-shot (with the reason) when
    the pool has fewer than 600 rows or there are more contests than 600 rows give blocks of six."""
    contests = sorted({int(c) for c in contest_numbers})
    if n_pool_rows < UPSTREAM_SAMPLE:
        return ShotDraw({}, pool, n_pool_rows, f"the pool has {n_pool_rows} rows; upstream samples "
                        f"{UPSTREAM_SAMPLE}, so the judge runs zero-shot")
    if len(contests) * ROWS_PER_CONTEST > UPSTREAM_SAMPLE:
        return ShotDraw({}, pool, n_pool_rows, f"{len(contests)} contests need more than {UPSTREAM_SAMPLE} sampled "
                        "rows (6 per contest), so the judge runs zero-shot")
    sampled = sampled_positions(n_pool_rows)
    rows = {c: sampled[ROWS_PER_CONTEST * i: ROWS_PER_CONTEST * i + N_SHOTS] for i, c in enumerate(contests)}
    return ShotDraw(rows, pool, n_pool_rows)
