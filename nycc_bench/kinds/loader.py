"""The loader of the kinds: the built-in modules (`built_in_modules()`) and each include-path folder's
`<family>/kinds.py`, imported only when something runs or checks a task, never when task files are read
(`nycc_bench.tasks`).

Every reader of a registry goes through these functions, so the registries it sees are those of the include path
in use now (`--include-path`, `evaluate(include_path=...)`, `NYCC_BENCH_TASK_PATH`), read when asked.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path

from ..tasks.definition import Task
from ..tasks.families import read_families
from ..tasks.path import inside, task_path
from .registry import BUILDERS, HOOKS, PARSERS, SCORERS, Builder, Hooks, Parser, Scorer, activate, outside_kinds

GENERIC = ("parsing", "scorer")
"""The generic kinds modules: the parsers `choice`, `captions`, `text` and the scorer `metric`."""


def built_in_modules() -> list[str]:
    """The built-in kinds modules: the generic ones, then each built-in family's (`kinds/<family key>.py`, the key
    of `tasks/families.yaml`), where it has one."""
    families = [key for key in read_families() if find_spec(f"{__package__}.{key}") is not None]
    return [f"{__package__}.{name}" for name in (*GENERIC, *families)]


@cache
def _built_in_kinds() -> None:
    """Import the built-in kinds modules once (their decorators fill the registries)."""
    for name in built_in_modules():
        import_module(name)


def load_kinds(folders: tuple[Path, ...] | None = None) -> None:
    """Make the builders, parsers, scorers and hooks of the built-in modules and of `folders` (None: the include
    path in use now) the registered ones."""
    _built_in_kinds()
    folders = task_path() if folders is None else folders
    activate({inside(root, path.relative_to(root).as_posix(), "include-path"): outside_kinds(path) for root in folders
              for path in sorted(root.glob("*/kinds.py"))})


def builders() -> dict[str, Builder]:
    """Every registered instance builder by name (the include path's too)."""
    load_kinds()
    return BUILDERS


def parsers() -> dict[str, Parser]:
    """Every registered reply parser by name (the include path's too)."""
    load_kinds()
    return PARSERS


def scorers() -> dict[str, Scorer]:
    """Every registered scorer by name (the include path's too)."""
    load_kinds()
    return SCORERS


def family_hooks(family: str) -> Hooks:
    """What the family `family` (its key) adds to the generic path (`Hooks`; none declared: nothing)."""
    load_kinds()
    return HOOKS.get(family) or Hooks()


def hooks(task: Task) -> Hooks:
    """What the task's family adds to the generic path (`Hooks`; none declared: nothing)."""
    return family_hooks(task.family)


def option_aliases(tasks: list[Task]) -> tuple[str, ...]:
    """The `--system-option` keys that are task options of these tasks' families (`Hooks.option_aliases`)."""
    return tuple(dict.fromkeys(a for task in tasks for a in hooks(task).option_aliases))
