"""HumorBench Hard by the upstream leaderboard's element-level rule, over any set of graded runs.

This is not the paper's list: the paper's HumorBench-Hard (`humorbench_hard`) is caption-level, upstream's
`hard_subset_with_categories.csv` at 6e87dbf (100 captions, 164 elements). The leaderboard rule
(`ReubenNarad/Humor-Bench`, `reports/main_benchmark_results.py` at cc99276, the `leaderboard_only` branch) pools
every benchmark run: per (caption, element) it counts the PASS and FAIL verdicts (rows with any other verdict,
e.g. ERROR, are dropped first), keeps the elements with at least 3 such gradings, sorts them by pass rate
ascending with a stable sort (ties keep the order in which elements were first seen, run by run, row by row) and
takes the first 100. Upstream's July list by this rule was never written to a file, so this module applies the
rule to whatever runs it is given (nycc-bench results: the leaderboard's "Hard, leaderboard rule").
Pure Python, no heavy imports.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

HARD_SIZE = 100
MIN_VALID = 3
VALID_VERDICTS = ("PASS", "FAIL")  # compared exactly, as upstream does; anything else leaves the denominator

Run = Mapping[Hashable, str] | Iterable[tuple[Hashable, str]]


@dataclass(frozen=True)
class ElementRate:
    """One element's pooled result: its key, PASS count and number of valid (PASS/FAIL) gradings."""

    key: Hashable
    passes: int
    valid: int

    @property
    def pass_rate(self) -> float:
        """Share of valid gradings that passed (upstream: passes / appearances)."""
        return self.passes / self.valid


@dataclass(frozen=True)
class StatedRate:
    """An element's pass rate as a file states it (upstream's `hard_subset.csv`), with its number of gradings."""

    key: Hashable
    pass_rate: float
    valid: int


class Rated(Protocol):
    """Anything with a pass rate and a number of valid gradings."""

    @property
    def pass_rate(self) -> float: ...

    @property
    def valid(self) -> int: ...


R = TypeVar("R", bound=Rated)


def pooled_rates(runs: Iterable[Run]) -> list[ElementRate]:
    """Pool PASS/FAIL verdicts per element over all runs, in order of first valid appearance.

    A run is either a mapping `key -> verdict` or an iterable of `(key, verdict)` records; a key may repeat
    within a run (upstream counts rows: one explainer call per annotation row). The key is whatever identifies
    an element: upstream uses the pair `(caption, element)` of texts; nycc-bench results can use the element id.
    """
    passes: dict[Hashable, int] = {}
    valid: dict[Hashable, int] = {}
    for run in runs:
        records = run.items() if isinstance(run, Mapping) else run
        for key, verdict in records:
            if verdict not in VALID_VERDICTS:
                continue
            valid[key] = valid.get(key, 0) + 1
            passes[key] = passes.get(key, 0) + (verdict == "PASS")
    return [ElementRate(key, passes[key], n) for key, n in valid.items()]


def hardest(rates: Iterable[R], size: int = HARD_SIZE, min_valid: int = MIN_VALID) -> list[R]:
    """The `size` lowest pass rates among elements with at least `min_valid` gradings; stable on ties."""
    if size < 0 or min_valid < 1:
        raise ValueError(f"size must be >= 0 and min_valid >= 1, got size={size}, min_valid={min_valid}")
    eligible = [r for r in rates if r.valid >= min_valid]
    return sorted(eligible, key=lambda r: r.pass_rate)[:size]  # sorted() is stable


def hard_subset(runs: Iterable[Run], size: int = HARD_SIZE, min_valid: int = MIN_VALID) -> list[ElementRate]:
    """Upstream's HumorBench Hard rule over `runs`: the `size` most-missed elements, hardest first.

    >>> runs = [{"a": "PASS", "b": "FAIL", "c": "FAIL"}, {"a": "FAIL", "b": "FAIL", "c": "ERROR"},
    ...         {"a": "FAIL", "b": "PASS", "c": "FAIL"}, [("c", "PASS"), ("d", "FAIL")]]
    >>> [(r.key, r.passes, r.valid) for r in hard_subset(runs, size=2)]
    [('a', 1, 3), ('b', 1, 3)]
    """
    return hardest(pooled_rates(runs), size, min_valid)
