"""Which scores of each task are shown, how they are labelled and where their intervals are (one list, read
by the HTML report and the leaderboard)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FAMILIES = {"hessel2023": "Hessel et al. 2023", "zhang2024": "Zhang et al. 2024", "humorbench": "HumorBench"}


@dataclass(frozen=True)
class Column:
    """One score of one task: `path` into a `score()` result's `scores`, its interval's paths, and a label."""

    task: str
    family: str
    label: str
    path: tuple[str, ...]
    ci: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    count: tuple[str, ...] | None = None
    percent: bool = True
    higher_is_better: bool = True

    @property
    def key(self) -> str:
        """A stable column id, e.g. `matching/accuracy`."""
        return f"{self.task}/{'.'.join(self.path)}"

    def value(self, scores: dict[str, Any]) -> float | None:
        """The score, or None when the result does not have it (e.g. no judge was run)."""
        return _get(scores, self.path)

    def interval(self, scores: dict[str, Any]) -> tuple[float | None, float | None]:
        """The interval's bounds (None, None when there is none)."""
        return (None, None) if self.ci is None else (_get(scores, self.ci[0]), _get(scores, self.ci[1]))

    def n(self, scores: dict[str, Any]) -> int | None:
        """How many units the score is over."""
        return None if self.count is None else _get(scores, self.count)


def _get(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    """A nested value, or None along a missing key."""
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _accuracy(task: str, label: str, prefix: str = "") -> Column:
    """An accuracy column with its bootstrap interval."""
    count = {"": "n", "crowd_": "n_crowd", "ny_": "n_ny"}[prefix]
    return Column(task, "hessel2023", label, (f"{prefix}accuracy",),
                  ((f"{prefix}ci_low",), (f"{prefix}ci_high",)), (count,))


def _win_rate(group: str, label: str) -> Column:
    """Zhang's win rate against one human group."""
    return Column("caption_generation", "zhang2024", label, ("win_rate", group, "win_rate"),
                  (("win_rate", group, "ci_low"), ("win_rate", group, "ci_high")), ("win_rate", group, "n_judgments"))


COLUMNS: tuple[Column, ...] = (
    _accuracy("matching", "Matching acc."),
    _accuracy("matching_from_pixels", "Matching acc. (pixels)"),
    _accuracy("ranking", "Ranking acc."),
    _accuracy("ranking", "CrowdAcc", "crowd_"),
    _accuracy("ranking", "NYAcc", "ny_"),
    _accuracy("ranking_from_pixels", "Ranking acc. (pixels)"),
    Column("explanation", "hessel2023", "Explanation BLEU-4", ("bleu",), None, ("n",), percent=False),
    Column("explanation", "hessel2023", "Explanation ROUGE-L", ("rouge_l",), None, ("n",)),
    Column("explanation", "hessel2023", "Explanation judge win rate", ("judge", "win_rate"),
           (("judge", "ci_low"), ("judge", "ci_high")), ("judge", "n_items")),
    Column("explanation_from_pixels", "hessel2023", "Explanation BLEU-4 (pixels)", ("bleu",), None, ("n",),
           percent=False),
    _win_rate("human_top10", "Win rate vs top 10"),
    _win_rate("human_200", "Win rate vs #200"),
    _win_rate("human_1000", "Win rate vs #1000"),
    _win_rate("human_median", "Win rate vs median"),
    Column("caption_generation", "zhang2024", "Average EAD", ("average_ead",), None, ("n_groups",), percent=False),
    Column("humorbench", "humorbench", "HumorBench element acc.", ("element_accuracy",),
           (("ci_low",), ("ci_high",)), ("n_elements",)),
    Column("humorbench", "humorbench", "HumorBench hard acc.", ("hard_accuracy",),
           (("hard_ci_low",), ("hard_ci_high",)), ("n_hard",)),
)


def format_score(column: Column, scores: dict[str, Any]) -> str:
    """`62.5 [55.1, 69.8] (n=528)` style text; an em dash when the score is absent."""
    value = column.value(scores)
    if value is None:
        return "—"
    scale = 100 if column.percent else 1
    text = f"{value * scale:.1f}" if column.percent else f"{value:.3f}"
    low, high = column.interval(scores)
    if low is not None and high is not None:
        text += f" [{low * scale:.1f}, {high * scale:.1f}]" if column.percent else f" [{low:.3f}, {high:.3f}]"
    n = column.n(scores)
    return text + (f" (n={n})" if n is not None else "")
