"""The include path: the outside task folders in use now (`NYCC_BENCH_TASK_PATH`, then `include_tasks` blocks).

Its own module, so both the task registry and the families file read it without importing each other.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import NyccBenchError

ENV_TASK_PATH = "NYCC_BENCH_TASK_PATH"
IncludePath = str | Path | Sequence[str | Path] | None
_included: list[tuple[Path, ...]] = []  # the include_tasks(...) blocks entered now, innermost last


def _folders(include_path: IncludePath) -> tuple[Path, ...]:
    """The folders of an include path argument (one folder, or several), each checked to exist."""
    if include_path is None:
        return ()
    items = [include_path] if isinstance(include_path, str | Path) else list(include_path)
    out = []
    for item in items:
        folder = Path(item).expanduser()
        if not folder.is_dir():
            raise NyccBenchError(f"include-path: {item} is not a folder; pass a folder holding <family>/<task>.yaml")
        out.append(folder.resolve())
    return tuple(out)


def inside(folder: Path, rel: Any, where: str) -> Path:
    """`folder / rel` when it resolves inside `folder` (symlinks followed); an absolute path, `..` out of the folder
    or a symlink that leads out (`/proc/self/environ`) is refused: a task folder reads only its own files."""
    if not isinstance(rel, str) or not rel or Path(rel).is_absolute():
        raise NyccBenchError(f"{where}: {rel!r} must be a path relative to the task folder {folder}")
    path = folder / rel
    if not path.resolve().is_relative_to(folder.resolve()):
        raise NyccBenchError(f"{where}: {rel} leads out of the task folder {folder} (a symlink or ..); keep the file "
                             "inside it")
    return path


def task_path() -> tuple[Path, ...]:
    """The outside task folders in use now: `NYCC_BENCH_TASK_PATH`, then those of the `include_tasks` blocks."""
    env = [p for p in os.environ.get(ENV_TASK_PATH, "").split(os.pathsep) if p.strip()]
    return tuple(dict.fromkeys([*_folders(env), *(f for block in _included for f in block)]))


@contextmanager
def include_tasks(include_path: IncludePath) -> Iterator[tuple[Path, ...]]:
    """Inside the block, the tasks (and kinds) of `include_path`'s folders are known beside the built-in ones."""
    folders = _folders(include_path)
    _included.append(folders)
    try:
        yield folders
    finally:
        _included.pop()
