"""One writer per run folder: `run_lock(out)` holds an OS file lock on `<out>/.lock` for a whole run.

Two processes started into the same `--out` would interleave their predictions in one file; the second one
stops at once with one line naming the folder and the pid that holds it. The lock is `filelock`'s (fcntl on
POSIX, msvcrt on Windows), so it is released when the holder exits, even if it is killed; a lock whose owner is
gone (its `.lock.owner` left behind) is taken over, with a log line naming the pid. Every writer takes it:
`evaluate`, `run` and `score --out` (the folder of the file they write), `import`, and the leaderboard worker
while it publishes a job's folder.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from filelock import FileLock, Timeout

from .errors import NyccBenchError

LOCK_NAME = ".lock"
OWNER_NAME = ".lock.owner"
T = TypeVar("T")
log = logging.getLogger("nycc_bench")


class RunFolderBusy(NyccBenchError):
    """Another process is writing into this run folder."""


def holder(out: Path) -> str:
    """The pid recorded by the process that holds the folder's lock ('unknown' when it cannot be read)."""
    try:
        return (out / OWNER_NAME).read_text(encoding="utf-8").strip() or "unknown"
    except OSError:
        return "unknown"


@contextmanager
def run_lock(out: str | Path) -> Iterator[Path]:
    """Hold `<out>/.lock` for the duration (refusing at once, with the holder's pid, when it is taken)."""
    out = Path(out)
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise NyccBenchError(f"out: cannot create {out} ({err.strerror}); pass a writable --out") from None
    lock = FileLock(out / LOCK_NAME, blocking=False, thread_local=False)
    try:
        lock.acquire()
    except Timeout:
        raise RunFolderBusy(f"out: {out} is in use by another run (pid {holder(out)}); wait for it to finish or "
                            "pass another --out") from None
    try:
        if (stale := holder(out)) != "unknown" and stale != str(os.getpid()):
            log.warning("out: took over the lock of %s from pid %s, which is gone", out, stale)
        (out / OWNER_NAME).write_text(str(os.getpid()), encoding="utf-8")
        yield out
    finally:
        (out / OWNER_NAME).unlink(missing_ok=True)
        lock.release()
        if created:  # a run that stopped before writing anything (its preflight failed) leaves no folder behind
            with contextlib.suppress(OSError):
                if {p.name for p in out.iterdir()} <= {LOCK_NAME}:
                    (out / LOCK_NAME).unlink(missing_ok=True)
                    out.rmdir()


def check_free(folder: Path) -> None:
    """Refuse when another process holds `folder`'s lock (a run folder this one writes inside)."""
    if not (folder / OWNER_NAME).exists():
        return
    lock = FileLock(folder / LOCK_NAME, blocking=False, thread_local=False)
    try:
        lock.acquire()
    except Timeout:
        raise RunFolderBusy(f"out: {folder} is in use by another run (pid {holder(folder)}); wait for it to finish "
                            "or pass another --out") from None
    lock.release()


@contextmanager
def file_lock(path: str | Path) -> Iterator[Path]:
    """Hold the run-folder lock of the folder a file is written into (`run --out FILE`, `score --out FILE`),
    refusing also when a run folder above it is in use (`evaluate --out RUN` writes `RUN/predictions/`)."""
    folder = Path(path).absolute().parent
    for above in list(folder.parents)[:2]:
        check_free(above)
    with run_lock(Path(path).parent):
        yield Path(path)


def locks_out(fn: Callable[..., T]) -> Callable[..., T]:
    """Decorate a function taking an `out` folder so that it runs holding that folder's lock."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        with run_lock(bound.arguments["out"]):
            return fn(*args, **kwargs)

    return wrapper
