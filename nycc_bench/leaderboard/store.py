"""Where requests (jobs) and results live: the `Store` protocol and its local SQLite + folder implementation.

Jobs are rows of a SQLite table; every change is one transaction (`BEGIN IMMEDIATE` serialises writers), so
concurrent submissions and workers never lose or double-claim a job. Results are JSON files, one per run, in
`results/`, and the predictions they point to are JSONL files under `predictions/<run_id>/`; a file is written
to a temporary name and renamed, so a reader never sees half of one.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..predictions import messages_path
from ..results import ResultsError, dumps, read_results, run_id
from ..secrets import scrub, scrub_data
from ..sqlite_write import immediate, use_wal

PENDING, RUNNING, FINISHED, FAILED = "PENDING", "RUNNING", "FINISHED", "FAILED"
RUN_ID_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-_")


class Refused(ValueError):
    """A submission that is not queued; the message says why and what to do."""


class StoreUnavailable(RuntimeError):
    """The results store cannot be read or written; the app shows this, never sample data instead."""


@dataclass
class Job:
    """One evaluation request: a model at a fixed revision, its system options and the tasks to run."""

    id: str
    model: str  # display name: Hub id, local folder name, or API model
    spec: str  # the system spec the worker runs (`hf:<id>@<commit>`, `vlm:...`, `openai:<model>`)
    source: str  # "hub" | "local" | "api"
    tasks: list[str]
    user: str
    run_key: str  # same model, revision and options → same key (duplicate detection)
    revision: str | None = None  # as asked for
    commit: str | None = None  # the Hub commit it resolved to, or a local folder's fingerprint
    options: dict[str, Any] = field(default_factory=dict)
    params: int | None = None
    license: str | None = None
    status: str = PENDING
    reason: str | None = None
    progress: str | None = None
    attempts: int = 0
    worker: str | None = None
    submitted_at: float = 0.0
    started_at: float | None = None
    heartbeat_at: float | None = None
    finished_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The job as a JSON object (the Hub requests file)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


class Store(Protocol):
    """Jobs, results and predictions; `LocalStore` and `HubStore` implement it."""

    root: Path

    def add_job(self, job: Job, rate_limit: int, window_s: float) -> Job: ...
    def claim_job(self, worker: str) -> Job | None: ...
    def heartbeat(self, job_id: str, worker: str, progress: str | None = None) -> bool: ...
    def finish_job(self, job_id: str, worker: str, status: str, reason: str | None = None) -> bool: ...
    def recover(self, timeout_s: float, max_attempts: int) -> list[Job]: ...
    def hold_worker(self, worker: str) -> None: ...
    def get_job(self, job_id: str) -> Job | None: ...
    def jobs(self, limit: int | None = None) -> list[Job]: ...
    def save_result(self, result: dict[str, Any]) -> None: ...
    def results(self) -> list[dict[str, Any]]: ...
    def predictions_dir(self, run_id: str) -> Path: ...
    def resolve(self, relative: str) -> Path: ...
    def seed(self, folder: Path) -> int: ...
    def health(self) -> str | None: ...
    def problems(self) -> list[str]: ...


_COLUMNS = list(Job.__dataclass_fields__)
_QUOTED = ", ".join(f'"{c}"' for c in _COLUMNS)  # "commit" is an SQL keyword
_MARKS = ", ".join("?" * len(_COLUMNS))
_JSON_COLUMNS = {"tasks", "options"}
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS jobs ({", ".join(f'"{c}"' + (" TEXT PRIMARY KEY" if c == "id" else "") for c in _COLUMNS)});
CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status, submitted_at);
CREATE INDEX IF NOT EXISTS jobs_user ON jobs(user, submitted_at);
CREATE INDEX IF NOT EXISTS jobs_run_key ON jobs(run_key);
"""


def one_line(err: BaseException, limit: int = 300) -> str:
    """An error as one short line (for banners and reasons)."""
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_run_id(run_id: str) -> str:
    """Run ids become file names: lower-case letters, digits, '-' and '_' only."""
    if not run_id or not set(run_id) <= RUN_ID_CHARS or len(run_id) > 80:
        raise ValueError(f"run id {run_id!r}: use 1-80 lower-case letters, digits, '-' or '_'")
    return run_id


def write_atomic(path: Path, text: str) -> None:
    """Write a file under a temporary name and rename it, so readers see the old or the new file, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class LocalStore:
    """SQLite for jobs and a folder for results and predictions, under `root`."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        try:
            (self.root / "results").mkdir(parents=True, exist_ok=True)
            (self.root / "predictions").mkdir(exist_ok=True)
            # closed here, not left to the garbage collector: closing the last connection removes the -wal and
            # -shm files, which must not happen at an arbitrary later moment (a backup or a scan of the folder)
            with closing(self._connect()) as db:
                use_wal(db)
                db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as err:
            raise StoreUnavailable(f"local store {self.root}: {err}") from err
        self._cache: tuple[Any, list[dict[str, Any]]] | None = None
        self._cache_lock = threading.Lock()
        self._left_out: dict[str, str] = {}  # file -> why it is not shown (an unreadable result, a bad request)
        self._worker_locks: dict[str, Any] = {}  # this process's workers: their liveness locks, held for life

    # -- jobs ---------------------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.root / "requests.sqlite", timeout=60, isolation_level=None)
        db.row_factory = sqlite3.Row
        return db

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; writers queue on SQLite's lock instead of interleaving."""
        db = self._connect()
        try:
            with immediate(db):
                yield db
        finally:
            db.close()

    @staticmethod
    def _job(row: sqlite3.Row) -> Job:
        return Job(**{c: json.loads(row[c]) if c in _JSON_COLUMNS else row[c] for c in _COLUMNS})

    @staticmethod
    def _values(job: Job) -> list[Any]:
        data = job.to_json()
        return [json.dumps(data[c]) if c in _JSON_COLUMNS else data[c] for c in _COLUMNS]

    def _upsert(self, db: sqlite3.Connection, job: Job) -> None:
        for name in ("reason", "progress"):  # shown on the public queue page and in the request file
            setattr(job, name, scrub(getattr(job, name)) if getattr(job, name) else getattr(job, name))
        job.options = scrub_data(job.options)
        db.execute(f"INSERT OR REPLACE INTO jobs ({_QUOTED}) VALUES ({_MARKS})", self._values(job))

    def _changed(self, jobs: list[Job]) -> None:
        """Hook after a committed change (the Hub store pushes the request files)."""

    def add_job(self, job: Job, rate_limit: int, window_s: float) -> Job:
        """Queue a job unless it repeats a live one's tasks or its user is over the rate limit (one transaction)."""
        job.submitted_at = job.submitted_at or time.time()
        with self._write() as db:
            rows = db.execute("SELECT * FROM jobs WHERE run_key = ? AND status != ?", (job.run_key, FAILED))
            for other in map(self._job, rows):
                if overlap := [t for t in job.tasks if t in other.tasks]:
                    raise Refused(f"duplicate: {job.model} at this revision with these settings already has "
                                  f"{', '.join(overlap)} in job {other.id} ({other.status}); choose other tasks")
            since = job.submitted_at - window_s
            n = db.execute("SELECT COUNT(*) FROM jobs WHERE user = ? AND submitted_at > ?", (job.user, since))
            if n.fetchone()[0] >= rate_limit:
                hours = window_s / 3600
                raise Refused(f"rate limit: {job.user} has submitted {rate_limit} models in the last {hours:g} h; "
                              "try again later")
            self._upsert(db, job)
        self._changed([job])
        return job

    def claim_job(self, worker: str) -> Job | None:
        """Mark the oldest PENDING job RUNNING for `worker` and return it (None when the queue is empty)."""
        now = time.time()
        with self._write() as db:
            row = db.execute("SELECT * FROM jobs WHERE status = ? ORDER BY submitted_at, rowid LIMIT 1",
                             (PENDING,)).fetchone()
            if row is None:
                return None
            job = self._job(row)
            job.status, job.worker, job.attempts = RUNNING, worker, job.attempts + 1
            job.started_at = job.heartbeat_at = now
            job.reason = job.progress = None
            self._upsert(db, job)
        self._changed([job])
        return job

    def heartbeat(self, job_id: str, worker: str, progress: str | None = None) -> bool:
        """Say the job's worker is alive; False when the job is no longer this worker's (taken back)."""
        with self._write() as db:
            cur = db.execute("UPDATE jobs SET heartbeat_at = ?, progress = COALESCE(?, progress) "
                             "WHERE id = ? AND worker = ? AND status = ?",
                             (time.time(), scrub(progress) if progress else progress, job_id, worker, RUNNING))
            ok = cur.rowcount == 1
        if ok and progress is not None:
            self._changed([job for job in [self.get_job(job_id)] if job])
        return ok

    def finish_job(self, job_id: str, worker: str, status: str, reason: str | None = None) -> bool:
        """End a RUNNING job as FINISHED or FAILED; False when it is no longer this worker's."""
        if status not in (FINISHED, FAILED):
            raise ValueError(f"status: a job ends FINISHED or FAILED, not {status}")
        with self._write() as db:
            cur = db.execute("UPDATE jobs SET status = ?, reason = ?, finished_at = ?, progress = NULL "
                             "WHERE id = ? AND worker = ? AND status = ?",
                             (status, reason and scrub(reason), time.time(), job_id, worker, RUNNING))
            ok = cur.rowcount == 1
        if ok:
            self._changed([job for job in [self.get_job(job_id)] if job])
        return ok

    def _worker_lock(self, worker: str) -> Any:
        from filelock import FileLock

        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in worker)[:120]
        return FileLock(self.root / "workers" / f"{name}.lock", blocking=False, thread_local=False)

    def hold_worker(self, worker: str) -> None:
        """Hold `worker`'s liveness lock for the life of this process (the OS frees it when the process ends, so
        another worker sees at once that a RUNNING job's worker is gone)."""
        if worker not in self._worker_locks:
            (self.root / "workers").mkdir(exist_ok=True)
            lock = self._worker_lock(worker)
            lock.acquire()
            self._worker_locks[worker] = lock

    def worker_gone(self, worker: str | None) -> bool:
        """Whether a worker that held its liveness lock has ended (a restart, a crash); False when unknown."""
        if not worker or worker in self._worker_locks:
            return False
        lock = self._worker_lock(worker)
        if not Path(lock.lock_file).exists():
            return False
        from filelock import Timeout

        try:
            lock.acquire()
        except Timeout:
            return False
        lock.release()
        return True

    def recover(self, timeout_s: float, max_attempts: int) -> list[Job]:
        """RUNNING jobs whose worker is gone (its liveness lock is free: a restart) or went silent go back to
        PENDING, or to FAILED with the reason after `max_attempts` tries; never lost, never stuck."""
        now = time.time()
        changed: list[Job] = []
        with self._write() as db:
            rows = db.execute("SELECT * FROM jobs WHERE status = ?", (RUNNING,))
            for job in map(self._job, rows.fetchall()):
                gone = self.worker_gone(job.worker)
                if not gone and (job.heartbeat_at or 0) >= now - timeout_s:
                    continue
                why = "its worker ended (a restart or a crash)" if gone else "its worker stopped answering"
                last = f"; last progress: {job.progress}" if job.progress else ""
                if job.attempts >= max_attempts:
                    job.status, job.finished_at = FAILED, now
                    job.reason = (f"the worker stopped {job.attempts} times while running this job ({why}{last}); "
                                  "not retried")
                else:
                    job.status = PENDING
                    job.reason = f"requeued: {why}{last} (attempt {job.attempts} of {max_attempts})"
                job.worker = job.progress = None
                self._upsert(db, job)
                changed.append(job)
        if changed:
            self._changed(changed)
        return changed

    def get_job(self, job_id: str) -> Job | None:
        db = self._connect()
        try:
            row = db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        finally:
            db.close()
        return self._job(row) if row else None

    def jobs(self, limit: int | None = None) -> list[Job]:
        """Newest first."""
        db = self._connect()
        try:
            rows = db.execute("SELECT * FROM jobs ORDER BY submitted_at DESC, rowid DESC LIMIT ?", (limit or -1,))
            return [self._job(r) for r in rows]
        finally:
            db.close()

    # -- results ------------------------------------------------------------------------------------------
    def predictions_dir(self, run_id: str) -> Path:
        return self.root / "predictions" / check_run_id(run_id)

    def resolve(self, relative: str) -> Path:
        """A result's relative predictions path as a file under the store (never outside it)."""
        path = (self.root / relative).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise ValueError(f"predictions path {relative!r} leaves the store")
        return path

    def save_result(self, result: dict[str, Any]) -> None:
        write_atomic(self.root / "results" / f"{check_run_id(run_id(result))}.json", dumps(result))

    def results(self) -> list[dict[str, Any]]:
        """Every readable result, read again only when the folder changed; an unreadable one is left out and
        named by `problems()`, never hiding the others."""
        folder = self.root / "results"
        try:
            entries = sorted((e.name, e.stat().st_mtime_ns, e.stat().st_size) for e in os.scandir(folder)
                             if e.name.endswith(".json") and not e.name.startswith("."))
        except OSError as err:
            raise StoreUnavailable(f"results folder {folder}: {err}") from err
        with self._cache_lock:
            if self._cache is None or self._cache[0] != entries:
                loaded = []
                for name in list(self._left_out):
                    if name.startswith("results/"):
                        del self._left_out[name]
                for name, _, _ in entries:
                    try:
                        loaded.append(read_results(folder / name, run_dir=self.root))  # paths: predictions/<run>
                    except (OSError, ResultsError) as err:  # a hand-edited record fails the same checks
                        self._left_out[f"results/{name}"] = f"refused: {one_line(err)}"
                self._cache = (entries, loaded)
            return list(self._cache[1])

    def seed(self, folder: Path) -> int:
        """Copy a folder of results (and the predictions they name) in when the store has no result yet."""
        if self.results():
            return 0
        n = 0
        for path in sorted(Path(folder).glob("results/*.json")):
            result = read_results(path)
            for task in result.get("tasks", {}).values():
                for relative in task.get("predictions", []):
                    target = self.resolve(relative)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(Path(folder) / relative, target)
                    if messages_path(Path(folder) / relative).exists():  # the prompts the records reference
                        shutil.copyfile(messages_path(Path(folder) / relative), messages_path(target))
            self.save_result(result)
            n += 1
        return n

    def problems(self) -> list[str]:
        """The files left out of the board (unreadable results, bad request files), each with why."""
        return [f"{name}: {why}" for name, why in sorted(self._left_out.items())]

    def health(self) -> str | None:
        """None when the store works; else what is wrong, for the banner."""
        try:
            self.jobs(limit=1)
            self.results()
        except (sqlite3.Error, StoreUnavailable) as err:
            return str(err)
        return None
