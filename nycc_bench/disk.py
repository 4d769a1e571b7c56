"""A full disk as one line: the folder that could not be written, the bytes free there and the bytes needed, and
what was kept. Builds, runs, resumes and scores report it so instead of a traceback (`cli.main`)."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from pathlib import Path

from .errors import NyccBenchError

FULL_TEXTS = ("no space left on device", "[errno 28]", "database or disk is full", "sqlite_full")


class DiskFull(NyccBenchError):
    """A write that found no room; the message names the folder, the bytes free and the bytes needed."""


def is_disk_full(err: BaseException | None) -> bool:
    """Whether `err` (or an error it was raised from) is a full disk: ENOSPC, or a library's words for it."""
    seen = 0
    while err is not None and seen < 10:
        if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if any(text in str(err).lower() for text in FULL_TEXTS):
            return True
        err, seen = err.__cause__ or err.__context__, seen + 1
    return False


def free_bytes(folder: str | Path) -> int | None:
    """Bytes free on the disk of `folder` (or of its nearest existing parent); None when it cannot be told."""
    path = Path(folder).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def folder_bytes(folder: str | Path) -> int:
    """Bytes of the files under `folder` (what a stopped write had put there)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):  # a file removed meanwhile
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def disk_full(folder: str | Path, what: str, written: int | None = None, kept: str = "") -> DiskFull:
    """The one-line error of a full disk under `folder`: the job needs more than the space free there; `written` is
    what the stopped write had put there when the disk filled."""
    free = free_bytes(folder)
    need = f"it needs more than the {free:,} bytes free there" if free is not None else "its disk is full"
    if written:
        need += f" ({written:,} bytes of files written when the disk filled)"
    return DiskFull(f"disk full: {what} cannot write {Path(folder).absolute()}: {need}; free space there or write "
                    f"elsewhere, and run again{'; ' + kept if kept else ''}")
