"""The score registry: every score a task file declares (`scores:`) as one column, by family.

The leaderboard's tabs, columns, plots and overview, the report and the model cards are all derived from
`metrics()`, read from the task files of the include path in use when asked (a new score is a line in a task
file). A column reads `{value, ci_low, ci_high, n}` from a results record's task entry; a pooled column (a score
with `pooled: true`) is computed by the standings over a store's runs from each run's per-item verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .families import Family, families
from .registry import all_tasks, get_task, list_tasks


@dataclass(frozen=True)
class Metric:
    """One column: a score a task file declares (`scores:`), read from a results record."""

    family: str
    task: str
    score: str  # the key in the task entry's `scores`
    label: str
    higher_is_better: bool = True
    rate: bool = True  # a fraction in [0, 1], shown as a percentage
    headline: bool = False  # shown on the overview tab
    judged: bool = False  # needs a judge the operator configures
    pooled: str | None = None  # a pooled column: the path in `details` of each run's per-item verdicts

    @property
    def key(self) -> str:
        """A stable identifier, unique over `metrics()`."""
        return f"{self.task}:{self.score}"

    @property
    def from_pixels(self) -> bool:
        """Whether the system sees the cartoon image rather than its description."""
        return get_task(self.task).from_pixels

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
        """(value, ci_low, ci_high, n) from a task entry's `scores`; None for what is absent."""
        found = (scores or {}).get(self.score)
        if not isinstance(found, dict) or found.get("value") is None:
            return None, None, None, None
        return found["value"], found.get("ci_low"), found.get("ci_high"), found.get("n")


def family_list() -> list[Family]:
    """The families in the papers' order (one leaderboard tab, one report section each), the include path's too."""
    return list(families().values())


def metrics() -> list[Metric]:
    """Every score every task declares, as columns: by task (the registry's order), then the file's order."""
    return [Metric(task.family, task.name, sc.key, sc.label,
                   task.higher_is_better if sc.higher_is_better is None else sc.higher_is_better, sc.rate,
                   sc.headline, sc.judged, sc.path if sc.pooled else None)
            for task in all_tasks().values() for sc in task.scores]


def task_family() -> dict[str, str]:
    """Task name -> its family key, for every task with a score."""
    return {m.task: m.family for m in metrics()}


def family_metrics(family: str | None) -> list[Metric]:
    """The metrics of one family's tab; None gives the overview's headline metrics."""
    if family is None:
        return [m for m in metrics() if m.headline]
    return [m for m in metrics() if m.family == family]


def family_tasks_text(family: Family) -> str:
    """`Tasks: `matching`, `ranking`, ….` — the family's tasks from the registry, never a hand-kept list."""
    return "Tasks: " + ", ".join(f"`{name}`" for name in list_tasks(family.key)) + "."


def family_summary(family: Family) -> str:
    """A family's summary followed by its tasks (the leaderboard tab's opening line)."""
    return f"{family.summary} {family_tasks_text(family)}"
