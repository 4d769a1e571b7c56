"""One SQLite write transaction, the same for every store (judge cache, leaderboard jobs, arena votes)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


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
