"""Every task file under `nycc_bench/tasks/<family>/`, and under each folder of the include path, read once per
include path: lookup with near-name hints, groups, folds. Reading task files imports no code: the kinds they name
(a folder's `kinds.py` too) are loaded by `nycc_bench.kinds` when a task runs or is checked.

The include path is `NYCC_BENCH_TASK_PATH` (os.pathsep-separated folders) plus the folders of `include_tasks(...)`
(`--include-path`, `evaluate(include_path=...)`). An outside folder holds `<family-or-any>/*.yaml` with prompt files
beside and an optional `kinds.py`; its prompt paths are relative to the folder itself.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from ..errors import NyccBenchError
from ..yaml_files import load_yaml
from .definition import Task, _merge, build_task
from .families import families, groups
from .path import include_tasks, inside, task_path

ROOT = Path(__file__).resolve().parent
F = TypeVar("F", bound=Callable[..., Any])


def with_include_path(fn: F) -> F:
    """Run `fn` inside `include_tasks(include_path)`, its keyword argument `include_path` (also passed on)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with include_tasks(kwargs.get("include_path")):
            return fn(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


@dataclass(frozen=True)
class _File:
    """One task file: its own keys, its path relative to its root, the root, and whether it is built in."""

    raw: dict[str, Any]
    rel: str
    root: Path
    built_in: bool


@cache
def _raw_files(folders: tuple[Path, ...] = ()) -> dict[str, _File]:
    """name -> the task file that defines it: the built-in ones, then each outside folder's."""
    out: dict[str, _File] = {}
    for root in (ROOT, *folders):
        for path in sorted(root.glob("*/*.yaml")):
            rel = path.relative_to(root).as_posix()
            inside(root, rel, f"task file {path}")
            raw = load_yaml(path, f"task file {path}") or {}
            if not isinstance(raw, dict):
                raise NyccBenchError(f"task file {path}: must be a mapping of keys")
            name = raw.get("name") or path.stem
            if name in out:
                where = "a built-in task" if out[name].built_in else f"the task of {out[name].root / out[name].rel}"
                shown = rel if root == ROOT else str(path)
                raise NyccBenchError(f"task file {shown}: name {name!r} is already used by {where}; rename it")
            out[name] = _File(raw, rel, root, root == ROOT)
    return out


def _resolved(name: str, files: dict[str, _File], seen: tuple[str, ...] = ()) -> tuple[dict[str, Any], dict]:
    """A task file's keys with its `base` chain merged under them (the hand-written `deviations` accumulate),
    and the folder each prompt path is relative to."""
    own = files[name]
    roots = {role: own.root for role in own.raw.get("prompts") or {}}
    base = own.raw.get("base")
    if base is None:
        return dict(own.raw), roots
    if base not in files or base in seen:
        raise NyccBenchError(f"task file {own.rel}: base {base!r} is not a task (or loops)")
    inherited, base_roots = _resolved(base, files, (*seen, name))
    merged = _merge(inherited, {k: v for k, v in own.raw.items() if k != "base"})
    if own.raw.get("deviations") and inherited.get("deviations"):
        merged["deviations"] = list(dict.fromkeys([*inherited["deviations"], *own.raw["deviations"]]))
    merged["name"] = name
    return merged, {**base_roots, **roots}


def all_tasks() -> dict[str, Task]:
    """Every task by name (the include path's too): by family (papers' order), then each file's `order`."""
    return _all_tasks(task_path())


@cache
def _all_tasks(folders: tuple[Path, ...]) -> dict[str, Task]:
    """Every task of the built-in folder and `folders`, read once per include path."""
    files = _raw_files(folders)
    resolved = {name: _resolved(name, files) for name in files}
    order = {key: family.order for key, family in families().items()}
    rank = lambda n: (order.get(resolved[n][0].get("family"), 99), resolved[n][0].get("order", 99), n)  # noqa: E731
    return {name: build_task(resolved[name][0], files[name].root, files[name].rel, prompt_roots=resolved[name][1],
                             built_in=files[name].built_in) for name in sorted(resolved, key=rank)}


def list_tasks(family: str | None = None) -> list[str]:
    """Task names of a family key (`hessel2023`) or a CLI group name (`all`, `hessel`, `zhang`, `humorbench`);
    None: every task. An unknown name is an error, never an empty list."""
    named, tasks = groups(), all_tasks()
    family = named.get(family, family) if family is not None else None
    known = {t.family for t in tasks.values()}
    if family is not None and family not in known:
        names = ", ".join([*named, *sorted(known)])
        raise NyccBenchError(f"family: unknown family or group {family!r}; one of {names}")
    return [n for n, t in tasks.items() if family in (None, t.family)]


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
        raise NyccBenchError(f"tasks: name at least one task or group ({', '.join(groups())})")
    out: list[str] = []
    for item in items:
        out += list_tasks(named[item]) if item in (named := groups()) else [get_task(item).name]
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


