"""One SQLite write transaction and one switch to WAL, the same for every store (judge cache, leaderboard jobs, arena
votes)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from filelock import FileLock


@contextmanager
def immediate(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, ``ROLLBACK`` on any error: the write lock is taken up front, so a
    read-then-write (a claim, a schema upgrade) cannot interleave with another writer's (`isolation_level=None`
    connections)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def use_wal(db: sqlite3.Connection, timeout_s: float = 60.0) -> None:
    """Put the connection's file in write-ahead-log mode, one process at a time: two connections converting the same
    new file together get "database is locked" at once, SQLite's busy timeout notwithstanding. WAL is kept in the
    file, so a file already converted takes no lock. Waits at most `timeout_s` (filelock's `Timeout`, an `OSError`)."""
    if db.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
        return
    path = next(file for _, name, file in db.execute("PRAGMA database_list") if name == "main")
    with FileLock(f"{path}.lock", timeout=timeout_s):
        db.execute("PRAGMA journal_mode=WAL")
