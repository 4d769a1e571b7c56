"""The offline judges as one set: the humor reward model (caption groups) and the embedding element grader
(HumorBench), trained on a dataset and its HumorBench rubric. The demo, the leaderboard seed and the model cards
use this one set, so their judged numbers agree."""

from __future__ import annotations

from pathlib import Path

from .judging import JudgeSpec
from .tasks import all_tasks

MINILM = "all-MiniLM-L6-v2"


def train_offline_judges(dataset: str | Path, out: Path, rubric: Path) -> dict[str, JudgeSpec]:
    """Train both judges into `out` (deterministic); returns the judge of each judged task."""
    from .reward import train_grader, train_reward_model

    reward_dir, grader_dir = out / "reward_model", out / "element_grader"
    train_reward_model(str(dataset), MINILM, reward_dir)
    # balanced: the sample rubric is mostly PASS, so plain accuracy would fit a threshold that passes everything
    train_grader(rubric, grader_dir, MINILM, objective="balanced")
    return offline_judges(out)


# the metric a task's judge feeds (its `judge.judged_metric`, else its scorer's metric) -> (backend, model folder)
OFFLINE_JUDGES = {"group_win_rate": ("reward", "reward_model"), "element_autograder": ("embedding", "element_grader")}


def offline_judges(folder: Path) -> dict[str, JudgeSpec]:
    """The judge of each judged task from a folder `train_offline_judges` wrote, chosen by the metric the task's
    judge feeds (read from the task files, so a new task with one of these metrics is judged too)."""
    out = {}
    for name, task in all_tasks().items():
        found = OFFLINE_JUDGES.get(task.judge.get("judged_metric", task.metric))
        if task.needs_judge and found:
            out[name] = JudgeSpec(found[0], str(folder / found[1]))
    return out
