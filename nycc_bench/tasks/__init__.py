"""The benchmark tasks, as data (the task model): one YAML file per task, beside its prompt files. Reading them
imports no code: what runs a task is `nycc_bench.kinds`."""

from __future__ import annotations

from .definition import Kind, Outputs, Score, Task, TaskOption
from .families import groups
from .registry import all_tasks, config_name, get_task, include_tasks, list_tasks, resolve_tasks


def __getattr__(name: str) -> object:
    """`TASKS`: every task by name; `GROUPS`: CLI group name -> family key (the include path's too), read now."""
    if name == "TASKS":
        return all_tasks()
    if name == "GROUPS":
        return groups()
    raise AttributeError(name)


__all__ = ["GROUPS", "Kind", "Outputs", "Score", "Task", "TaskOption", "all_tasks", "config_name", "get_task",
           "include_tasks", "list_tasks", "resolve_tasks"]
