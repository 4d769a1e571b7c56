"""Every task file under `nycc_bench/tasks/<family>/`, read once: lookup with near-name hints, groups, folds."""

from __future__ import annotations

import difflib
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from ..errors import NyccBenchError
from .definition import Task, _merge, build_task
from .families import families, groups

ROOT = Path(__file__).resolve().parent
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: the CLI reads every task file


@cache
def _raw_files() -> dict[str, tuple[dict[str, Any], str]]:
    """name -> (the file's own keys, its path relative to the tasks folder)."""
    out: dict[str, tuple[dict[str, Any], str]] = {}
    for path in sorted(ROOT.glob("*/*.yaml")):
        rel = path.relative_to(ROOT).as_posix()
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) or {}
        name = raw.get("name") or path.stem
        if name in out:
            raise NyccBenchError(f"task file {rel}: name {name!r} is already used by {out[name][1]}")
        out[name] = (raw, rel)
    return out


def _resolved(name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """A task file's keys with its `base` chain merged under them."""
    raw, rel = _raw_files()[name]
    base = raw.get("base")
    if base is None:
        return dict(raw)
    if base not in _raw_files() or base in seen:
        raise NyccBenchError(f"task file {rel}: base {base!r} is not a task (or loops)")
    merged = _merge(_resolved(base, (*seen, name)), {k: v for k, v in raw.items() if k != "base"})
    merged["name"] = name
    return merged


GROUPS = groups()  # CLI group name -> family key (tasks/families.yaml); `all`: every task


@cache
def all_tasks() -> dict[str, Task]:
    """Every task by name: by family (papers' order), then each file's `order`."""
    resolved = {name: _resolved(name) for name in _raw_files()}
    order = {key: family.order for key, family in families().items()}
    names = sorted(resolved, key=lambda n: (order.get(resolved[n].get("family"), 99), resolved[n].get("order", 99), n))
    return {name: build_task(resolved[name], ROOT, _raw_files()[name][1]) for name in names}


def list_tasks(family: str | None = None) -> list[str]:
    """Task names of a family key (`hessel2023`) or a CLI group name (`all`, `hessel`, `zhang`, `humorbench`);
    None: every task. An unknown name is an error, never an empty list."""
    family = GROUPS.get(family, family) if family is not None else None
    known = {t.family for t in all_tasks().values()}
    if family is not None and family not in known:
        names = ", ".join([*GROUPS, *sorted(known)])
        raise NyccBenchError(f"family: unknown family or group {family!r}; one of {names}")
    return [n for n, t in all_tasks().items() if family in (None, t.family)]


def get_task(name: str) -> Task:
    """A task by name; a typo gets the nearest name."""
    tasks = all_tasks()
    if name in tasks:
        return tasks[name]
    near = difflib.get_close_matches(name, tasks, n=1)
    hint = f" Did you mean {near[0]!r}?" if near else ""
    raise NyccBenchError(f"task: unknown task {name!r}.{hint} Known: {', '.join(tasks)} (`nycc-bench tasks`)")




def resolve_tasks(names: str | list[str]) -> list[str]:
    """Task names from names and groups (`all`, `hessel`, `zhang`, `humorbench`), in order, without repeats.

    A group name that is also a task (`humorbench`) means the group.
    """
    items = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    if not items:
        raise NyccBenchError(f"tasks: name at least one task or group ({', '.join(GROUPS)})")
    out: list[str] = []
    for item in items:
        out += list_tasks(GROUPS[item]) if item in GROUPS else [get_task(item).name]
    return list(dict.fromkeys(out))


def config_name(task: Task, fold: int) -> str:
    """The dataset config of a task and fold (Hessel fold 0 has no suffix)."""
    if not task.has_folds:
        if fold:
            raise NyccBenchError(f"fold: task {task.name} has no cross-validation folds; leave the fold at 0")
        return task.config
    if isinstance(fold, bool) or not isinstance(fold, int) or fold not in task.folds:
        raise NyccBenchError(f"fold: expected one of {', '.join(map(str, task.folds))} for {task.name}, got {fold!r}")
    return task.config + (f"_{fold}" if fold else "")


