"""The evaluation worker: claims the oldest PENDING job, runs and scores its tasks, stores the result.

`run_worker_once` does one job (tests drive it); `Worker` is the app's background thread that loops on it.
While a job runs, a heartbeat thread keeps `heartbeat_at` fresh; a job whose worker died (no heartbeat for
`heartbeat_timeout_s`) is put back to PENDING by `Store.recover`, and its already written predictions are
resumed, not redone. On ZeroGPU Spaces the model work runs inside `spaces.GPU`; elsewhere on CUDA or CPU.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from typing import Any

from .settings import Settings
from .store import FAILED, FINISHED, Job, Store

log = logging.getLogger("nycc_bench.leaderboard")
WORKER_ID = f"{socket.gethostname()}-{os.getpid()}"


def on_gpu(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`spaces.GPU(fn)` on a ZeroGPU Space (the `spaces` package is only there); `fn` itself elsewhere."""
    if os.environ.get("SPACES_ZERO_GPU"):
        try:
            import spaces
        except ImportError:
            return fn
        return spaces.GPU(duration=int(os.environ.get("NYCC_LB_GPU_DURATION_S", "600")))(fn)
    return fn


def model_record(job: Job) -> dict[str, Any]:
    """What the leaderboard knows of a submitted model beyond what the system reports (no user, no secret)."""
    return {"name": job.model, "source": job.source, "revision": job.revision, "commit": job.commit,
            "parameters": job.params, "license": job.license, "type": "api" if job.source == "api" else "open",
            "url": f"https://huggingface.co/{job.model}" if job.source == "hub" else None}


def store_paths(result: dict[str, Any], run: str) -> dict[str, Any]:
    """The record with its predictions paths relative to the store (`predictions/<run>/...`)."""
    for entry in result["tasks"].values():
        entry["predictions"] = [f"predictions/{run}/{p}" for p in entry["predictions"]]
    return result


def evaluate_job(job: Job, store: Store, settings: Settings, progress: Callable[[str], None],
                 system: Any = None) -> dict[str, Any]:
    """Every task of a job through `nycc_bench.evaluate` (the same path as the CLI, the cards and the seed); a
    task that fails is recorded in `errors` and the others still run."""
    from ..evaluation import evaluate

    base_url = settings.api_base_url if job.source == "api" else None
    result = evaluate(system or job.spec, job.tasks, dataset=settings.dataset, judge=dict(settings.judges),
                      folds=list(settings.folds) if settings.folds else None, out=store.predictions_dir(job.id),
                      base_url=base_url, progress=False, raise_errors=False, model=model_record(job),
                      extra={"run_id": job.id, "options": job.options},
                      on_task=lambda task, i, n: progress(f"{task} ({i}/{n})"), **job.options)
    return store_paths(result.record, job.id)


_evaluate_on_gpu = on_gpu(evaluate_job)  # ZeroGPU wants its functions wrapped at import time


class _Heartbeat(threading.Thread):
    """Refreshes a running job's heartbeat until stopped."""

    def __init__(self, store: Store, job: Job, every_s: float) -> None:
        super().__init__(daemon=True, name=f"heartbeat-{job.id}")
        self.store, self.job, self.every_s = store, job, every_s
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(self.every_s):
            self.store.heartbeat(self.job.id, WORKER_ID)


def run_worker_once(store: Store, settings: Settings) -> Job | None:
    """Recover stalled jobs, claim the oldest PENDING one, run it to FINISHED or FAILED; None if none waits."""
    store.recover(settings.heartbeat_timeout_s, settings.max_attempts)
    job = store.claim_job(WORKER_ID)
    if job is None:
        return None
    beat = _Heartbeat(store, job, settings.heartbeat_every_s)
    beat.start()
    try:
        result = _evaluate_on_gpu(job, store, settings, lambda p: store.heartbeat(job.id, WORKER_ID, p))
        failed = dict(result.get("errors") or {})
        if len(failed) < len(job.tasks):
            store.save_result(result)
        reason = "; ".join(f"{t}: {e}" for t, e in failed.items()) or None
        store.finish_job(job.id, WORKER_ID, FAILED if failed else FINISHED, reason)
    except Exception as err:  # the store itself failed: the job stays visible as FAILED with why
        log.exception("job %s failed", job.id)
        store.finish_job(job.id, WORKER_ID, FAILED, f"{type(err).__name__}: {err}"[:500])
    finally:
        beat.stopped.set()
    return store.get_job(job.id)


class Worker(threading.Thread):
    """The app's background worker: one job at a time, polling the queue every `poll_s` seconds."""

    def __init__(self, store: Store, settings: Settings) -> None:
        super().__init__(daemon=True, name="nycc-leaderboard-worker")
        self.store, self.settings = store, settings
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                job = run_worker_once(self.store, self.settings)
            except Exception:  # keep serving; the next poll tries again
                log.exception("worker loop")
                job = None
            if job is None:
                self.stopped.wait(self.settings.poll_s)
