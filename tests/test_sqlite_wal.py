"""Many processes opening one new store at the same moment: none is refused with "database is locked"."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from nycc_bench.arena.votes import VoteStore
from nycc_bench.leaderboard.store import LocalStore
from nycc_bench.llm import LLMCache
from nycc_bench.sqlite_write import use_wal

OPENERS = {"judge cache": LLMCache, "arena votes": VoteStore, "leaderboard jobs": LocalStore}
N_PROCESSES = 8


def _open(kind: str, folder: str, go: multiprocessing.synchronize.Event, errors: multiprocessing.Queue) -> None:
    go.wait()
    try:
        OPENERS[kind](folder)
    except Exception as err:  # reported to the test, which names it
        errors.put(f"{type(err).__name__}: {err}")


@pytest.mark.parametrize("kind", list(OPENERS))
def test_processes_opening_one_new_store_together_all_succeed(kind: str, tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    go, errors = context.Event(), context.Queue()
    folders = [tmp_path / f"round{i}" for i in range(5)]  # five fresh files: the race is on a file's conversion
    for folder in folders:
        workers = [context.Process(target=_open, args=(kind, str(folder), go, errors)) for _ in range(N_PROCESSES)]
        for worker in workers:
            worker.start()
        go.set()
        for worker in workers:
            worker.join()
        go.clear()
        assert [w.exitcode for w in workers] == [0] * N_PROCESSES
    seen = []
    while not errors.empty():
        seen.append(errors.get())
    assert seen == []


def test_a_converted_file_is_not_locked_again(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    use_wal(db)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    Path(f"{path}.lock").unlink()
    use_wal(db)  # already WAL: no lock file is taken (none is made)
    assert not Path(f"{path}.lock").exists()


def test_a_held_conversion_lock_is_waited_on_for_a_bounded_time(tmp_path: Path) -> None:
    from filelock import FileLock, Timeout

    path = tmp_path / "x.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    with FileLock(f"{path}.lock"), pytest.raises(Timeout):
        use_wal(db, timeout_s=0.05)
    use_wal(db, timeout_s=0.05)  # released: converted now
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
