"""The benchmark tasks, as data: one YAML file per task (beside its prompt files) read by one runner."""

from __future__ import annotations

from .definition import Kind, Outputs, Score, Task, TaskOption
from .registry import GROUPS, all_tasks, config_name, get_task, include_tasks, list_tasks, resolve_tasks


def __getattr__(name: str) -> object:
    """`TASKS`: every task by name (read on first use)."""
    if name == "TASKS":
        return all_tasks()
    raise AttributeError(name)


__all__ = ["GROUPS", "Kind", "Outputs", "Score", "Task", "TaskOption", "all_tasks", "config_name", "get_task",
           "include_tasks", "list_tasks", "resolve_tasks"]
