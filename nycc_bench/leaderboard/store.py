"""Where requests (jobs) and results live: the `Store` protocol and its local SQLite + folder implementation.

Jobs are rows of a SQLite table; every change is one transaction (`BEGIN IMMEDIATE` serialises writers), so
concurrent submissions and workers never lose or double-claim a job. Results are JSON files, one per run, in
`results/`, and the predictions they point to are JSONL files under `predictions/<run_id>/`; a file is written
to a temporary name and renamed, so a reader never sees half of one.

A result is published with its digest (`published` table: the sha256 of the record file and of every predictions
and prompts file it names). On load, a result whose files no longer match its digest, or that has none (a file
dropped in by hand), is withdrawn from the board: left out, its reason recorded in the table and shown to the
operator (`problems()`); the board shows only what was scored.
"""

from __future__ import annotations

import hashlib
import json
import logging
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

log = logging.getLogger("nycc_bench.leaderboard")

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
    def adopt(self) -> list[str]: ...


_COLUMNS = list(Job.__dataclass_fields__)
_QUOTED = ", ".join(f'"{c}"' for c in _COLUMNS)  # "commit" is an SQL keyword
_MARKS = ", ".join("?" * len(_COLUMNS))
_JSON_COLUMNS = {"tasks", "options"}
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS jobs ({", ".join(f'"{c}"' + (" TEXT PRIMARY KEY" if c == "id" else "") for c in _COLUMNS)});
CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status, submitted_at);
CREATE INDEX IF NOT EXISTS jobs_user ON jobs(user, submitted_at);
CREATE INDEX IF NOT EXISTS jobs_run_key ON jobs(run_key);
CREATE TABLE IF NOT EXISTS published (run_id TEXT PRIMARY KEY, digest TEXT NOT NULL, published_at REAL,
                                      withdrawn TEXT);
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


def sha256_file(path: Path) -> str:
    """The sha256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def published_files(result: dict[str, Any], resolve: Any) -> list[str]:
    """The store files a record names (its predictions and the prompts stores beside them), relative paths."""
    predictions = [p for task in result.get("tasks", {}).values() for p in task.get("predictions") or []]
    stores = [messages_path(p).as_posix() for p in predictions]
    return predictions + [m for m in stores if resolve(m).exists()]


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
        self._hashes: dict[str, tuple[tuple[int, int], str]] = {}  # file -> ((mtime_ns, size), sha256)

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

    def digest(self, result: dict[str, Any], text: str) -> dict[str, Any]:
        """What publication vouches for: the sha256 of the record's text and of each store file it names."""
        files = {p: sha256_file(self.resolve(p)) for p in published_files(result, self.resolve)}
        return {"record": hashlib.sha256(text.encode("utf-8")).hexdigest(), "files": files}

    def record_digest(self, run: str, digest: dict[str, Any]) -> None:
        """Keep a run's digest (a run published again gets its new digest; a withdrawal is cleared)."""
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO published (run_id, digest, published_at, withdrawn) "
                       "VALUES (?, ?, ?, NULL)", (check_run_id(run), json.dumps(digest, sort_keys=True), time.time()))

    def digests(self) -> dict[str, dict[str, Any]]:
        """run id -> its digest at publication."""
        db = self._connect()
        try:
            return {row["run_id"]: json.loads(row["digest"]) for row in db.execute("SELECT * FROM published")}
        finally:
            db.close()

    def save_result(self, result: dict[str, Any]) -> None:
        """Publish a result: its digest first, then the record (a reader never sees a record without one)."""
        text = dumps(result)
        self.record_digest(run_id(result), self.digest(result, text))
        write_atomic(self.root / "results" / f"{check_run_id(run_id(result))}.json", text)

    def adopt(self) -> list[str]:
        """Record digests for readable results that have none (published before digests were kept), as they are
        now; the operator's one-time step (`NYCC_LB_ADOPT_RESULTS=1`) after checking them. The runs adopted."""
        known, adopted = self.digests(), []
        for path in sorted((self.root / "results").glob("*.json")):
            if path.name.startswith(".") or path.stem in known:
                continue
            try:
                result = read_results(path, run_dir=self.root)
            except (OSError, ResultsError):
                continue
            if run_id(result) == path.stem:
                self.record_digest(path.stem, self.digest(result, path.read_text(encoding="utf-8")))
                adopted.append(path.stem)
        return adopted

    def _hash(self, path: Path) -> str | None:
        """A file's sha256, computed again only when its size or time changed; None when it is gone."""
        try:
            st = path.stat()
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        known = self._hashes.get(str(path))
        if known is None or known[0] != stamp:
            known = (stamp, sha256_file(path))
            self._hashes[str(path)] = known
        return known[1]

    def _stamps(self, digests: dict[str, dict[str, Any]]) -> list[tuple[str, int, int]]:
        """(file, mtime, size) of every file a digest names: an edit to any of them reloads the board."""
        out = []
        for digest in digests.values():
            for relative in digest.get("files", {}):
                try:
                    st = self.resolve(relative).stat()
                    out.append((relative, st.st_mtime_ns, st.st_size))
                except (OSError, ValueError):
                    out.append((relative, -1, -1))
        return sorted(out)

    def withdrawal(self, name: str, result: dict[str, Any], digest: dict[str, Any] | None) -> str | None:
        """Why a loaded record is not what was published (None when every file matches its digest)."""
        stem = name.removesuffix(".json")
        if run_id(result) != stem:
            return f"its run id {run_id(result)!r} is not its file name's {stem!r}"
        if digest is None:
            return "no digest was recorded when it was published (a file added by hand, or never published here)"
        if self._hash(self.root / "results" / name) != digest.get("record"):
            return "the record was edited after publication (its sha256 differs from the published digest)"
        named = set(published_files(result, self.resolve))
        if named != set(digest.get("files", {})):
            return "it names other predictions files than the ones published"
        for relative, sha in sorted(digest.get("files", {}).items()):
            if self._hash(self.resolve(relative)) != sha:
                return f"{relative} was edited or removed after publication (its sha256 differs)"
        return None

    def _withdraw(self, withdrawn: dict[str, str]) -> None:
        """Record each withdrawal's reason beside the digest (once), and log it for the operator."""
        with self._write() as db:
            for run, why in withdrawn.items():
                db.execute("UPDATE published SET withdrawn = ? WHERE run_id = ?", (why, run))
                log.warning("result %s withdrawn from the board: %s", run, why)

    def results(self) -> list[dict[str, Any]]:
        """Every readable result, read again only when the folder changed; an unreadable one is left out and
        named by `problems()`, never hiding the others."""
        folder = self.root / "results"
        try:
            entries = sorted((e.name, e.stat().st_mtime_ns, e.stat().st_size) for e in os.scandir(folder)
                             if e.name.endswith(".json") and not e.name.startswith("."))
        except OSError as err:
            raise StoreUnavailable(f"results folder {folder}: {err}") from err
        digests = self.digests()
        key = (entries, self._stamps(digests), sorted((k, json.dumps(v, sort_keys=True)) for k, v in digests.items()))
        with self._cache_lock:
            if self._cache is None or self._cache[0] != key:
                loaded, withdrawn = [], {}
                for name in list(self._left_out):
                    if name.startswith("results/"):
                        del self._left_out[name]
                for name, _, _ in entries:
                    try:
                        result = read_results(folder / name, run_dir=self.root)  # paths: predictions/<run>
                    except (OSError, ResultsError) as err:  # a hand-edited record fails the same checks
                        self._left_out[f"results/{name}"] = f"refused: {one_line(err)}"
                        continue
                    if why := self.withdrawal(name, result, digests.get(name.removesuffix(".json"))):
                        self._left_out[f"results/{name}"] = f"withdrawn: {why}"
                        withdrawn[name.removesuffix(".json")] = why
                        continue
                    loaded.append(result)
                if withdrawn:
                    self._withdraw(withdrawn)
                self._cache = (key, loaded)
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
