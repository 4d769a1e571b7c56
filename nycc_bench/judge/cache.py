"""Persistent SQLite cache of successful completions, one committed row per result."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .chat import ChatRequest, Completion

CACHE_FILE = "judge_cache.sqlite3"
KEY_SCHEMA = 1  # bump when the key's composition changes, so old rows are never misread


def cache_key(identity: Mapping[str, Any], prompt_version: str, request: ChatRequest) -> str:
    """SHA-256 of everything that determines an answer: backend identity, prompt version, request.

    ``identity`` is the backend's (backend, model, base_url, extra body) and never contains a key.
    """
    payload = {
        "schema": KEY_SCHEMA,
        "identity": dict(identity),
        "prompt_version": prompt_version,
        "request": request.key_data(),
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class JudgeCache:
    """Key → completion store in ``<directory>/judge_cache.sqlite3`` (WAL; every put is committed at once).

    Only successes are stored: a failed or unparseable call leaves no row, so a re-run asks again.
    Safe to share between threads and between processes (SQLite locking).
    """

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory).expanduser() / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS completions ("
            " key TEXT PRIMARY KEY, completion TEXT NOT NULL, model TEXT, prompt_version TEXT,"
            " created REAL NOT NULL)"
        )

    def get(self, key: str) -> Completion | None:
        """The cached completion, or None."""
        with self._lock:
            row = self._db.execute("SELECT completion FROM completions WHERE key = ?", (key,)).fetchone()
        return None if row is None else Completion.from_dict(json.loads(row[0]))

    def put(self, key: str, completion: Completion, model: str, prompt_version: str) -> None:
        """Store and commit one completion (autocommit: durable once this returns)."""
        blob = json.dumps(completion.to_dict(), ensure_ascii=False)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO completions VALUES (?, ?, ?, ?, ?)",
                (key, blob, model, prompt_version, time.time()),
            )

    def cached_keys(self, keys: Iterable[str]) -> set[str]:
        """The subset of ``keys`` present."""
        wanted = list(dict.fromkeys(keys))
        found: set[str] = set()
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(f"SELECT key FROM completions WHERE key IN ({marks})", chunk)
                found.update(row[0] for row in rows)
        return found

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM completions").fetchone()[0])

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> JudgeCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.path)!r})"
