"""Persistent SQLite cache of successful completions, shared safely by threads, engines and processes.

**What the key is.** SHA-256 of the backend's identity (backend, model, the full endpoint — scheme, host, port
and path, see :func:`endpoint_identity` — and extra request fields, or a local model's fingerprint), the identity
of the model the server says it serves (``served``: its ``/v1/models`` entry's id, root, created and fingerprint
fields, see :func:`served_identity`), the prompt version and the request (messages, sampling, max tokens, logprob
settings, sample index). Never the API key, user or password. Two servers serving different checkpoints under one
model name therefore never share an answer. Where the server reports a ``system_fingerprint`` in its replies, the
last one each endpoint answered with is kept too, and a cached answer made under another is asked again (known
from the first fresh call after the change: a run answered wholly from the cache cannot see it). The served
identity last seen for an endpoint is kept in the ``endpoints`` table, so a dry run finds the cached answers
without calling.

**Two runs, one folder.** Before calling, a run *claims* the key in the ``claims`` table (owner = host, pid and
a per-run token; expiry refreshed by the owner while it works). Another run — another process or another
engine in this one — that finds the key claimed waits for the owner's answer instead of paying for it again.
It takes the claim over when the owner releases it without an answer (its call failed), when the claim
expires, or at once when the owner is a process on this host that no longer exists (``kill -9``).

Only successes are stored: a failed or unusable call leaves no row, so a re-run asks again. Each answer is
committed (with its claim's release) in one transaction as it arrives: WAL journal, a busy timeout so
concurrent writers wait instead of failing, and a killed run loses nothing already answered.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ..sqlite_write import immediate, use_wal
from .chat import ChatRequest, Completion
from .errors import CacheError

T = TypeVar("T")

CACHE_FILE = "judge_cache.sqlite3"
KEY_SCHEMA = 3  # bump when the key's composition changes, so old rows are never misread (3: endpoint, served)
BUSY_TIMEOUT_S = 60.0
CLAIM_TTL_S = 60.0
"""A claim not refreshed for this long is abandoned; owners refresh theirs every third of it."""


def endpoint_identity(base_url: str) -> str:
    """The endpoint's part of the cache key: scheme, host (lower case), port (the scheme's default written out) and
    path, without user, password, query or fragment. Two servers on one host are two endpoints.

    >>> endpoint_identity("http://127.0.0.1:8011/v1"), endpoint_identity("http://User:pw@LOCALHOST:9000/v1/?k=1")
    ('http://127.0.0.1:8011/v1', 'http://localhost:9000/v1')
    >>> endpoint_identity("https://API.openai.com/v1"), endpoint_identity("api.together.xyz/v1")
    ('https://api.openai.com:443/v1', 'https://api.together.xyz:443/v1')
    """
    parts = urlsplit(base_url if "//" in base_url else f"https://{base_url}")
    scheme = (parts.scheme or "https").lower()
    host = (parts.hostname or "").lower().rstrip(".")
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    port = parts.port or {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port else "") + parts.path.rstrip("/")


SERVED_FIELDS = ("id", "root", "parent", "created", "owned_by")
"""The `/v1/models` entry fields that name what is served (with any field whose name holds one of FINGERPRINTS)."""
FINGERPRINTS = ("fingerprint", "revision", "digest", "sha", "checkpoint", "version")
VOLATILE_CREATED_S = 600.0
"""A `created` this close to now is the listing's own timestamp (vLLM writes the time of the request), not the
model's, and is left out of the identity."""


def served_identity(entry: Mapping[str, Any], now: float | None = None) -> dict[str, Any]:
    """What identifies the served model in its `/v1/models` entry: id, root, parent, owner, a stable `created`, and
    every fingerprint, revision or digest field the server reports.

    >>> served_identity({"id": "m", "created": 1700000000, "object": "model", "root": "/ckpt/a"}, now=1800000000)
    {'id': 'm', 'root': '/ckpt/a', 'created': 1700000000}
    """
    now = time.time() if now is None else now
    out = {k: entry[k] for k in SERVED_FIELDS if entry.get(k) is not None and not isinstance(entry[k], dict | list)}
    created = out.get("created")
    if not isinstance(created, int | float) or abs(now - float(created)) < VOLATILE_CREATED_S:
        out.pop("created", None)
    for key, value in sorted(entry.items()):
        if any(word in key.lower() for word in FINGERPRINTS) and isinstance(value, str | int | float):
            out[key] = value
    return out


def cache_key(identity: Mapping[str, Any], prompt_version: str, request: ChatRequest) -> str:
    """SHA-256 of everything that determines an answer: backend identity, prompt version, request.

    ``identity`` is the backend's (backend, model, endpoint, extra body) and never contains a key.
    """
    payload = {
        "schema": KEY_SCHEMA,
        "identity": dict(identity),
        "prompt_version": prompt_version,
        "request": request.key_data(),
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _canonical(data: Mapping[str, Any]) -> str:
    return json.dumps(dict(data), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def new_owner() -> str:
    """A claim owner for one run: ``host|pid|token``."""
    return f"{socket.gethostname()}|{os.getpid()}|{uuid.uuid4().hex[:12]}"


def owner_gone(owner: str) -> bool:
    """Whether a claim's owner is a process on this host that has exited (so its claim can be taken now)."""
    host, _, rest = owner.partition("|")
    pid_text = rest.partition("|")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False
    return False


def cache_problem(path: Path, err: BaseException) -> CacheError:
    """A one-line error naming the cache file and the fix: a damaged file is deleted, a full disk freed."""
    text = " ".join(str(err).split())
    if (isinstance(err, OSError) and err.errno == errno.ENOSPC) or "disk is full" in text or "SQLITE_FULL" in text:
        return CacheError(f"judge cache: cannot write {path}: the disk is full; free space on {path.parent} (or set "
                          "NYCC_BENCH_CACHE to a folder on another disk) and run again; nothing was written half")
    if isinstance(err, OSError) or (isinstance(err, sqlite3.OperationalError) and "malformed" not in text):
        return CacheError(f"judge cache: cannot use {path} ({text}); make {path.parent} writable or set "
                          "NYCC_BENCH_CACHE to another folder")
    return CacheError(f"judge cache: {path} is damaged ({text}); delete {path} (and {path.name}-wal, "
                      f"{path.name}-shm beside it) to start a new cache")


def _guarded(method: Callable[..., T]) -> Callable[..., T]:
    """Turn SQLite and file-system failures of a cache method into a one-line `CacheError`."""
    @functools.wraps(method)
    def wrapper(self: LLMCache, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.DatabaseError, OSError, ValueError, KeyError, TypeError) as err:
            if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
                raise  # a busy database is waited on by SQLite, not a damaged one
            raise cache_problem(self.path, err) from None
    return wrapper


class LLMCache:
    """Key → completion store in ``<directory>/judge_cache.sqlite3``, with in-flight claims (module docstring)."""

    @_guarded
    def __init__(self, directory: str | Path, claim_ttl_s: float = CLAIM_TTL_S) -> None:
        self.path = Path(directory).expanduser() / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.claim_ttl_s = claim_ttl_s
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None
        )
        self._db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        use_wal(self._db)
        self._db.execute("PRAGMA synchronous=NORMAL")
        with immediate(self._db):  # one process at a time creates or upgrades the schema
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS completions ("
                " key TEXT PRIMARY KEY, completion TEXT NOT NULL, model TEXT, prompt_version TEXT,"
                " created REAL NOT NULL, identity TEXT)"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires REAL NOT NULL)"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS endpoints (backend TEXT PRIMARY KEY, served TEXT, seen REAL NOT NULL)"
            )
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(completions)")}
            if "identity" not in columns:  # a cache written before rows named their endpoint (read by `cache info`)
                self._db.execute("ALTER TABLE completions ADD COLUMN identity TEXT")

    @_guarded
    def get(self, key: str) -> Completion | None:
        """The cached completion, or None."""
        with self._lock:
            row = self._db.execute("SELECT completion FROM completions WHERE key = ?", (key,)).fetchone()
        return None if row is None else Completion.from_dict(json.loads(row[0]))

    @_guarded
    def put(self, key: str, completion: Completion, model: str, prompt_version: str, owner: str | None = None,
            identity: Mapping[str, Any] | None = None) -> None:
        """Store one completion (with the backend identity it was asked of, for `cache info`) and drop ``owner``'s
        claim on it, in one committed transaction."""
        blob = json.dumps(completion.to_dict(), ensure_ascii=False)
        shown = json.dumps(dict(identity), sort_keys=True) if identity is not None else None
        with self._lock, immediate(self._db):
            self._db.execute(
                "INSERT OR REPLACE INTO completions (key, completion, model, prompt_version, created, identity) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key, blob, model, prompt_version, time.time(), shown),
            )
            if owner is not None:
                self._db.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, owner))

    @_guarded
    def claim(self, key: str, owner: str) -> bool:
        """Take the in-flight claim on ``key`` for ``owner``; False while another live owner holds it."""
        now = time.time()
        with self._lock, immediate(self._db):
            row = self._db.execute("SELECT owner, expires FROM claims WHERE key = ?", (key,)).fetchone()
            if row is not None and row[0] != owner and row[1] > now and not owner_gone(row[0]):
                return False
            self._db.execute(
                "INSERT OR REPLACE INTO claims VALUES (?, ?, ?)", (key, owner, now + self.claim_ttl_s)
            )
        return True

    @_guarded
    def release(self, key: str, owner: str) -> None:
        """Drop ``owner``'s claim on ``key`` (no-op if it holds none)."""
        with self._lock:
            self._db.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, owner))

    @_guarded
    def refresh_claims(self, owner: str) -> None:
        """Push back the expiry of every claim ``owner`` holds (the owner's heartbeat)."""
        with self._lock:
            self._db.execute(
                "UPDATE claims SET expires = ? WHERE owner = ?", (time.time() + self.claim_ttl_s, owner)
            )

    @_guarded
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

    @_guarded
    def remember_served(self, backend: Mapping[str, Any], served: Mapping[str, Any] | None) -> None:
        """Keep what an endpoint last said it serves (a dry run keys its look-ups by it without calling)."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO endpoints VALUES (?, ?, ?)",
                             (_canonical(backend), json.dumps(dict(served or {}), sort_keys=True), time.time()))

    @_guarded
    def served(self, backend: Mapping[str, Any]) -> dict[str, Any] | None:
        """What an endpoint last said it serves; None when it was never asked."""
        with self._lock:
            row = self._db.execute("SELECT served FROM endpoints WHERE backend = ?", (_canonical(backend),)).fetchone()
        return None if row is None else json.loads(row[0])

    @_guarded
    def remember_fingerprint(self, backend: Mapping[str, Any], fingerprint: str) -> None:
        """Keep the `system_fingerprint` an endpoint last answered with (cached answers with another are re-asked)."""
        self.remember_served({**backend, "kept": "system_fingerprint"}, {"system_fingerprint": fingerprint})

    @_guarded
    def fingerprint(self, backend: Mapping[str, Any]) -> str | None:
        """The `system_fingerprint` an endpoint last answered with; None when it never reported one."""
        return (self.served({**backend, "kept": "system_fingerprint"}) or {}).get("system_fingerprint")

    @_guarded
    def info(self) -> dict[str, Any]:
        """The cache file, its size, and its answers by backend identity (model, endpoint, served model)."""
        with self._lock:
            rows = self._db.execute("SELECT identity, model, COUNT(*), MIN(created), MAX(created) FROM completions "
                                    "GROUP BY identity, model ORDER BY COUNT(*) DESC").fetchall()
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        groups = [{"identity": json.loads(identity) if identity else {"model": model, "endpoint": "unknown (older "
                                                                               "rows)"},
                   "answers": count, "first": first, "last": last} for identity, model, count, first, last in rows]
        return {"path": str(self.path), "bytes": size, "answers": sum(g["answers"] for g in groups), "groups": groups}

    @_guarded
    def clear(self, model: str | None = None) -> int:
        """Delete every stored answer (or those of one model name); returns how many were deleted."""
        with self._lock, immediate(self._db):
            where, args = ("WHERE model = ?", (model,)) if model else ("", ())
            deleted = self._db.execute(f"DELETE FROM completions {where}", args).rowcount
            if not model:
                self._db.execute("DELETE FROM endpoints")
        if not model:
            with self._lock:
                self._db.execute("VACUUM")  # give the space back
        return int(deleted)

    @_guarded
    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM completions").fetchone()[0])

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> LLMCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LLMCache({str(self.path)!r})"
