"""Turn a task's dataset rows into prompts (instances) any system can answer: the shared half (a split's `Rows`
from `splits.read_rows`, calling the task file's `instances:` builder, checking its ids); the builders themselves
live in each family's module (`kinds/<family>.py`) or an outside folder's `kinds.py`, never a branch on a task's
name."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from ..errors import NyccBenchError
from ..splits import load_split, missing_split, read_rows  # noqa: F401 (their old home: callers import them here)
from ..tasks.definition import Task
from ..tasks.registry import config_name
from .loader import builders, hooks
from .registry import Built, Instance

log = logging.getLogger("nycc_bench")
DEFAULT_DATASET = os.environ.get("NYCC_DATASET", "nycc-bench/newyorker-caption-contest")
LEADERBOARD_SPLIT = "leaderboard"


def leaderboard_set(task: Task, fold: int = 0) -> tuple[str, str]:
    """(config, split) of a task's hidden-label leaderboard set (`--split leaderboard`), from its family's
    `Hooks.leaderboard_config`; a task whose family has none is refused in one line."""
    config = hooks(task).leaderboard_config
    if config is None:
        raise NyccBenchError(f"split: {task.name} has no leaderboard set; leave --split out (its split is "
                             f"{task.split})")
    return config(task, fold), "test"


def build(task: Task, dataset: str = DEFAULT_DATASET, split: str | None = None, fold: int = 0,
          options: Mapping[str, Any] | None = None) -> Built:
    """Every instance of a task's split and fold, prompts included, with the task's options applied, and the rows
    that cannot be prompted (the scorer records them as a deviation)."""
    split = split or task.split
    config = config_name(task, fold)
    if split == LEADERBOARD_SPLIT:  # hidden-label sets (Hessel's): their own configs, one split
        config, split = leaderboard_set(task, fold)
    values = task.options_for("", task.option_values(options))  # unset options: the task's single setting
    rows = read_rows(dataset, config, split)
    built = builders()[task.instances](task, rows, lambda s: read_rows(dataset, config, s), values)
    if built.skipped:
        log.info("%s: %d of %d rows cannot be prompted (no description): %s", task.name, len(built.skipped),
                 len(rows), ", ".join(map(str, built.skipped[:10])) + (" ..." if len(built.skipped) > 10 else ""))
    if not built.instances:
        raise NyccBenchError(f"dataset: no {task.name} instance in split {split!r} of {dataset} can be prompted")
    seen: set[str] = set()
    for inst in built.instances:
        if inst.instance_id in seen:
            raise NyccBenchError(f"dataset: instance id {inst.instance_id!r} occurs twice in {config}/{split} of "
                                 f"{dataset}; each {task.name} row needs its own id (rebuild the dataset)")
        seen.add(inst.instance_id)
    return built


def subset(instances: list[Instance], limit: int | None) -> list[Instance]:
    """The first `limit` instances in the builder's fixed order (all with None); `limit` must be ≥ 1."""
    if limit is None:
        return instances
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise NyccBenchError(f"limit: expected a whole number ≥ 1, got {limit!r}; leave it out to run everything")
    return instances[:limit]


def build_instances(task: Task, dataset: str = DEFAULT_DATASET, split: str | None = None, fold: int = 0,
                    options: Mapping[str, Any] | None = None) -> list[Instance]:
    """The instances of `build` (for callers that need no skipped rows)."""
    return build(task, dataset, split, fold, options).instances
