"""Contest lists and splits shared by every benchmark family."""

from __future__ import annotations

from typing import Literal

Split = Literal["train", "validation", "test"]

# Zhang et al. 2024 held-out contests in the row order of their `human_*.csv` files. The first 47 are
# Hessel et al.'s test contests, the last 44 their validation contests (Zhang 2024, appendix C.3).
ZHANG_HELD_OUT: tuple[int, ...] = (
    543, 544, 548, 553, 568, 575, 576, 578, 579, 590, 600, 603, 604, 615, 617, 621, 632, 633, 634, 640,
    643, 649, 652, 655, 662, 664, 666, 669, 671, 672, 676, 677, 682, 684, 690, 694, 699, 710, 713, 724,
    731, 744, 747, 751, 752, 758, 761,
    536, 537, 545, 550, 551, 557, 558, 561, 564, 567, 573, 574, 586, 598, 607, 609, 610, 611, 613, 616,
    629, 636, 637, 646, 661, 663, 681, 685, 695, 696, 697, 700, 701, 706, 709, 717, 721, 729, 730, 746,
    748, 750, 754, 757,
)  # fmt: skip
ZHANG_TEST: frozenset[int] = frozenset(ZHANG_HELD_OUT[:47])
ZHANG_VALIDATION: frozenset[int] = frozenset(ZHANG_HELD_OUT[47:])
SPLITS: tuple[Split, ...] = ("train", "validation", "test")


def zhang_split(contest_number: int) -> Split:
    """Return the Zhang 2024 split of a contest: its 91 held-out contests are validation/test, the rest train."""
    if contest_number in ZHANG_TEST:
        return "test"
    if contest_number in ZHANG_VALIDATION:
        return "validation"
    return "train"
