"""The offline judges as one set: the humor reward model (caption groups) and the embedding element grader
(HumorBench). `sample_judges()` names the sample's set (`reward:sample`, `embedding:sample`), which the demo, the
leaderboard seed, the model cards and the tests use, so their judged numbers agree and their commands rerun as
written; `train_offline_judges` trains a set on another dataset and rubric."""

from __future__ import annotations

from pathlib import Path

from .judging import JudgeSpec
from .sample_judges import FOLDERS, MINILM, SAMPLE, train_judge_folders
from .tasks import all_tasks

__all__ = ["MINILM", "OFFLINE_JUDGES", "offline_judges", "sample_judges", "train_offline_judges"]


def train_offline_judges(dataset: str | Path, out: Path, rubric: Path) -> dict[str, JudgeSpec]:
    """Train both judges into `out` (deterministic); returns the judge of each judged task."""
    train_judge_folders(dataset, out, rubric)
    return offline_judges(out)


# the metric a task's judge feeds (its `judge.judged_metric`, else its scorer's metric) -> offline judge backend
OFFLINE_JUDGES = {"group_win_rate": "reward", "element_autograder": "embedding"}


def offline_judges(folder: Path | None = None) -> dict[str, JudgeSpec]:
    """The judge of each judged task, chosen by the metric the task's judge feeds (read from the task files, so a
    new task with one of these metrics is judged too): from a folder `train_offline_judges` wrote, or (None)
    the sample's judges by name."""
    out = {}
    for name, task in all_tasks().items():
        backend = OFFLINE_JUDGES.get(task.judge.get("judged_metric", task.metric))
        if task.needs_judge and backend:
            out[name] = JudgeSpec(backend, SAMPLE if folder is None else str(folder / FOLDERS[backend]))
    return out


def sample_judges() -> dict[str, JudgeSpec]:
    """The sample's offline judges of each judged task (`reward:sample`, `embedding:sample`), trained into the
    cache now if they are not there yet."""
    from .sample_judges import sample_judges_dir

    sample_judges_dir()
    return offline_judges()
