"""The benchmark tasks: each names its dataset config, prompt, answer parsing and metric (mostly data)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

Kind = Literal["choice", "generation"]


@dataclass(frozen=True)
class Task:
    """One task as data; `nycc_bench.tasks.instances` turns its dataset rows into prompts."""

    name: str
    config: str  # base dataset config; Hessel folds append `_1`..`_4`
    kind: Kind
    metric: str  # folder under metrics/
    prompt_version: str
    summary: str
    letters: str = ""
    folds: bool = False
    from_pixels: bool = False
    default_split: str = "test"


def _hessel(task: str, pixels: bool) -> Task:
    """The three Hessel tasks in both settings share everything but the prompt inputs."""
    setting = "from pixels" if pixels else "from description"
    kind: Kind = "generation" if task == "explanation" else "choice"
    metric = {"matching": "nycc_accuracy", "ranking": "crowd_ny_accuracy", "explanation": "explanation_overlap"}
    summary = {"matching": "5-way: which caption was written for this cartoon",
               "ranking": "2-way: which caption is the finalist",
               "explanation": "explain why the caption is funny"}
    name = f"{task}_from_pixels" if pixels else task
    return Task(name=name, config=name, kind=kind, metric=metric[task], prompt_version=f"{name}-v1",
                summary=f"Hessel et al. 2023 {task} ({setting}): {summary[task]}",
                letters={"matching": "ABCDE", "ranking": "AB"}.get(task, ""), folds=True, from_pixels=pixels)


TASKS: dict[str, Task] = {
    t.name: t for t in [
        *(_hessel(task, pixels) for task in ("matching", "ranking", "explanation") for pixels in (False, True)),
        Task(name="caption_generation", config="caption_generation", kind="generation", metric="ead_diversity",
             prompt_version="zhang2024-generation-v1",
             summary="Zhang et al. 2024: write 10 captions per held-out cartoon (scored by group win rate and "
                     "diversity)"),
        Task(name="humorbench", config="humorbench", kind="generation", metric="element_autograder",
             prompt_version="humorbench-explainer-v1",
             summary="HumorBench: explain the joke of a caption; each rubric element is graded PASS/FAIL"),
    ]
}


def get_task(name: str) -> Task:
    """Look a task up by name; a typo gets the nearest name."""
    if name in TASKS:
        return TASKS[name]
    near = difflib.get_close_matches(name, TASKS, n=1)
    hint = f" Did you mean {near[0]!r}?" if near else ""
    raise ValueError(f"task: unknown task {name!r}.{hint} Known: {', '.join(TASKS)}")


def config_name(task: Task, fold: int) -> str:
    """The dataset config of a task and fold (Hessel fold 0 has no suffix)."""
    if not task.folds:
        if fold:
            raise ValueError(f"fold: task {task.name} has no cross-validation folds; leave --fold at 0")
        return task.config
    if fold not in range(5):
        raise ValueError(f"fold: expected 0..4 for {task.name}, got {fold}")
    return task.config + (f"_{fold}" if fold else "")
