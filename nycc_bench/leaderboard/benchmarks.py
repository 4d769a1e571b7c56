"""The benchmarks the leaderboard shows, as data: families (one tab each) and their metric columns.

Tabs, table columns, plots and the overview are all derived from `METRICS`; a new score is one line here.
A metric names its task, a dotted path into the result's `scores`, a label, and whether higher is better.
Its interval and count sit beside the value (`ci_low`, `ci_high`, `n` by default; override per metric, and a
count may be a sum such as `"n_pass+n_fail"`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Family:
    """A benchmark family: one leaderboard tab (paper, license and BibTeX live in `nycc_bench.citations`)."""

    key: str
    title: str
    summary: str


@dataclass(frozen=True)
class Metric:
    """One column of the leaderboard: where its value, interval and count are in a task's `scores`."""

    family: str
    task: str
    path: str
    label: str
    higher_is_better: bool = True
    rate: bool = True  # a fraction in [0, 1], shown as a percentage
    low: str = "ci_low"  # sibling keys of the value's last path part
    high: str = "ci_high"
    n: str = "n"
    headline: bool = False  # shown on the overview tab
    judged: bool = False  # needs a judge the operator configures

    @property
    def key(self) -> str:
        """A stable identifier, unique over METRICS."""
        return f"{self.task}:{self.path}"

    @property
    def from_pixels(self) -> bool:
        """Whether the system sees the cartoon image rather than its description."""
        return self.task.endswith("_from_pixels")

    def _sibling(self, scores: dict[str, Any], key: str) -> Any:
        parent = self.path.rpartition(".")[0]
        return lookup(scores, f"{parent}.{key}" if parent else key)

    def format(self, scores: dict[str, Any] | None) -> str:
        """`62.5 [55.1, 69.8] (n=528)` (a rate as a percentage); an em dash when the score is absent."""
        value, low, high, n = self.extract(scores)
        if value is None:
            return "—"
        scale, digits = (100, 1) if self.rate else (1, 3)
        text = f"{value * scale:.{digits}f}"
        if low is not None and high is not None:
            text += f" [{low * scale:.{digits}f}, {high * scale:.{digits}f}]"
        return text + (f" (n={n})" if n is not None else "")

    def extract(self, scores: dict[str, Any] | None) -> tuple[float | None, float | None, float | None, int | None]:
        """(value, ci_low, ci_high, n) from a task's `scores`; None for what is absent."""
        if not scores:
            return None, None, None, None
        value = lookup(scores, self.path)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return None, None, None, None
        parts = [self._sibling(scores, k) for k in self.n.split("+")]
        n = sum(parts) if all(isinstance(p, int) for p in parts) else None
        low, high = self._sibling(scores, self.low), self._sibling(scores, self.high)
        return (float(value), float(low) if isinstance(low, int | float) else None,
                float(high) if isinstance(high, int | float) else None, n)


def lookup(data: Any, path: str) -> Any:
    """`a.b.c` in nested dicts; None when any part is missing."""
    for part in path.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


FAMILIES = [
    Family("hessel2023", "Hessel et al. 2023",
           "Matching (5-way), quality ranking (2-way; CrowdAcc / NYAcc) and explanation, from the cartoon's "
           "description or from its pixels."),
    Family("zhang2024", "Zhang et al. 2024",
           "Ten captions per held-out cartoon, judged against four human groups (win rates) and scored for "
           "diversity (Average EAD)."),
    Family("humorbench", "HumorBench",
           "Explain the joke; an autograder checks each rubric element (PASS / FAIL)."),
]

_GROUPS = (("human_top10", "top 10"), ("human_200", "#200"), ("human_1000", "#1000"), ("human_median", "median"))

METRICS = [
    Metric("hessel2023", "matching", "accuracy", "Matching", headline=True),
    Metric("hessel2023", "ranking", "accuracy", "Ranking", headline=True),
    Metric("hessel2023", "ranking", "crowd_accuracy", "CrowdAcc", low="crowd_ci_low", high="crowd_ci_high",
           n="n_crowd"),
    Metric("hessel2023", "ranking", "ny_accuracy", "NYAcc", low="ny_ci_low", high="ny_ci_high", n="n_ny"),
    Metric("hessel2023", "explanation", "rouge_l", "Explanation ROUGE-L"),
    Metric("hessel2023", "explanation", "bleu", "Explanation BLEU-4", rate=False),
    Metric("hessel2023", "explanation", "judge.win_rate", "Explanation judge win rate", n="n_items", judged=True),
    Metric("hessel2023", "matching_from_pixels", "accuracy", "Matching (pixels)", headline=True),
    Metric("hessel2023", "ranking_from_pixels", "accuracy", "Ranking (pixels)"),
    Metric("hessel2023", "ranking_from_pixels", "crowd_accuracy", "CrowdAcc (pixels)", low="crowd_ci_low",
           high="crowd_ci_high", n="n_crowd"),
    Metric("hessel2023", "ranking_from_pixels", "ny_accuracy", "NYAcc (pixels)", low="ny_ci_low", high="ny_ci_high",
           n="n_ny"),
    Metric("hessel2023", "explanation_from_pixels", "rouge_l", "Explanation ROUGE-L (pixels)"),
    Metric("hessel2023", "explanation_from_pixels", "bleu", "Explanation BLEU-4 (pixels)", rate=False),
    *(Metric("zhang2024", "caption_generation", f"win_rate.{group}.win_rate", f"Win rate vs {label}", n="n_judgments",
             headline=group == "human_top10", judged=True) for group, label in _GROUPS),
    Metric("zhang2024", "caption_generation", "average_ead", "Average EAD", rate=False, n="n_groups", headline=True),
    Metric("humorbench", "humorbench", "element_accuracy", "Element accuracy", n="n_pass+n_fail", headline=True,
           judged=True),
    Metric("humorbench", "humorbench", "hard_accuracy", "Hard subset", low="hard_ci_low", high="hard_ci_high",
           n="n_hard", judged=True),
    Metric("humorbench", "humorbench", "caption_all_pass", "All elements pass", n="n_captions", judged=True),
]

TASK_FAMILY = {m.task: m.family for m in METRICS}


def family_metrics(family: str | None) -> list[Metric]:
    """The metrics of one family's tab; None gives the overview's headline metrics."""
    if family is None:
        return [m for m in METRICS if m.headline]
    return [m for m in METRICS if m.family == family]
