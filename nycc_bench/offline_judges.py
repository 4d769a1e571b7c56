"""The offline judges as one set: the humor reward model (caption groups) and the embedding element grader
(HumorBench). `sample_judges()` names the sample's set (`reward:sample`, `embedding:sample`), which the demo, the
leaderboard seed, the sample's model cards and the tests use, so their judged numbers agree and their commands rerun
as written; `default_judges()` is the set a board on the real data and the real data's cards get (the public
judges where trained, else the sample's, saying so); `train_offline_judges` trains a set on another dataset."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .judging import JudgeSpec
from .sample_judges import FOLDERS, MINILM, SAMPLE, default_offline_model, train_judge_folders
from .tasks import all_tasks

__all__ = ["MINILM", "OFFLINE_JUDGES", "default_judges", "offline_judges", "sample_judges", "train_offline_judges"]


def train_offline_judges(dataset: str | Path, out: Path, rubric: Path) -> dict[str, JudgeSpec]:
    """Train both judges into `out` (deterministic); returns the judge of each judged task."""
    train_judge_folders(dataset, out, rubric)
    return offline_judges(out)


# the metric a task's judge feeds (its `judge.judged_metric`, else its scorer's metric) -> offline judge backend
OFFLINE_JUDGES = {"group_win_rate": "reward", "element_autograder": "embedding"}


def offline_judges(folder: Path | None = None, model: str = SAMPLE) -> dict[str, JudgeSpec]:
    """The judge of each judged task, chosen by the metric the task's judge feeds (read from the task files, so a
    new task with one of these metrics is judged too): from a folder `train_offline_judges` wrote, or (None)
    the named judges of `model` (`sample`, `public`)."""
    out = {}
    for name, task in all_tasks().items():
        backend = OFFLINE_JUDGES.get(task.judge.get("judged_metric", task.metric))
        if task.needs_judge and backend:
            out[name] = JudgeSpec(backend, model if folder is None else str(folder / FOLDERS[backend]))
    return out


def default_judges() -> tuple[dict[str, JudgeSpec], str]:
    """The default offline judge of each judged task and why (`sample_judges.default_offline_model`, the one rule:
    the judges trained on the public data where they are here, else the sample's, the offline demo's)."""
    model, why = default_offline_model()
    return {task: replace(judge, chosen_because=why) for task, judge in offline_judges(model=model).items()}, why


def sample_judges(built: Path | None = None) -> dict[str, JudgeSpec]:
    """The sample's offline judges of each judged task (`reward:sample`, `embedding:sample`), trained into the
    cache now if they are not there yet (on `built`, the sample as this code just built it, where given)."""
    from .sample_judges import sample_judges_dir

    sample_judges_dir(built)
    return offline_judges()
