"""The evaluation worker: claims the oldest PENDING job, runs and scores its tasks, stores the result.

`run_worker_once` does one job (tests drive it); `Worker` is the app's background thread that loops on it.
While a job runs, a heartbeat thread keeps `heartbeat_at` fresh; a job whose worker died (no heartbeat for
`heartbeat_timeout_s`) is put back to PENDING by `Store.recover`, and its already written predictions are
resumed, not redone. On ZeroGPU Spaces the model work runs inside `spaces.GPU`; elsewhere on CUDA or CPU.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import shlex
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..tasks import get_task
from .settings import Settings
from .store import FAILED, FINISHED, Job, Store

log = logging.getLogger("nycc_bench.leaderboard")
WORKER_ID = f"{socket.gethostname()}-{os.getpid()}"
SCHEMA_VERSION = 1


def on_gpu(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`spaces.GPU(fn)` on a ZeroGPU Space (the `spaces` package is only there); `fn` itself elsewhere."""
    if os.environ.get("SPACES_ZERO_GPU"):
        try:
            import spaces
        except ImportError:
            return fn
        return spaces.GPU(duration=int(os.environ.get("NYCC_LB_GPU_DURATION_S", "600")))(fn)
    return fn


def predictions_name(task: str, fold: int) -> str:
    """File name of one task's (and fold's) predictions."""
    return f"{task}.jsonl" if fold == 0 else f"{task}_fold{fold}.jsonl"


def reproduce_command(task: str, spec: str, dataset: str, folds: list[int], options: dict[str, Any],
                      judge: str | None, source: str) -> str:
    """The `nycc-bench run … && nycc-bench score …` lines that reproduce one task's cell."""
    q = shlex.quote
    extra = "".join(f" --system-option {q(f'{k}={v}')}" for k, v in options.items())
    if source == "api":
        extra += " --base-url URL"
    files = [f"preds/{predictions_name(task, f)}" for f in folds]
    runs = [f"nycc-bench run --task {task} --system {q(spec)} --dataset {q(dataset)}"
            + (f" --fold {f}" if f else "") + f"{extra} --out {out}" for f, out in zip(folds, files, strict=True)]
    score = f"nycc-bench score --task {task} --predictions {' '.join(files)} --dataset {q(dataset)}"
    if len(folds) > 1:
        score += " --fold " + " ".join(map(str, folds))
    if judge:
        score += f" --judge {q(judge)}"
    return " && \\\n".join([*runs, score])


def model_record(job: Job) -> dict[str, Any]:
    """How results describe the model (no user, no secret)."""
    return {"name": job.model, "spec": job.spec, "source": job.source, "revision": job.revision,
            "commit": job.commit, "params": job.params, "license": job.license,
            "type": "api" if job.source == "api" else "open",
            "url": f"https://huggingface.co/{job.model}" if job.source == "hub" else None}


def evaluate_task(task_name: str, system: Any, spec: str, out_dir: Path, settings: Settings,
                  dataset_label: str, source: str, options: dict[str, Any]) -> dict[str, Any]:
    """Run one task (every configured fold) and score it; an unjudged judged task is stored unscored."""
    from ..judging import JudgeSpec
    from ..runner import run_task
    from ..score import score

    task = get_task(task_name)
    folds = list(settings.folds) if task.folds else [0]
    files = [out_dir / predictions_name(task_name, f) for f in folds]
    for fold, out in zip(folds, files, strict=True):
        run_task(task_name, spec, out, dataset=settings.dataset, fold=fold, system=system, progress=False)
    judge = settings.judges.get(task_name)
    entry: dict[str, Any] = {"score": None}
    try:
        entry["score"] = score(task_name, files, dataset=settings.dataset, folds=folds,
                               judge=JudgeSpec.parse(judge) if judge else None)
    except ValueError as err:
        if judge or "judge" not in str(err):
            raise
        entry["unscored"] = "needs a judge; none is configured on this leaderboard (predictions are kept)"
    entry["predictions"] = [str(Path("predictions") / out_dir.name / f.name) for f in files]
    entry["command"] = reproduce_command(task_name, spec, dataset_label, folds, options, judge, source)
    return entry


def evaluate_job(job: Job, store: Store, settings: Settings, progress: Callable[[str], None]) -> dict[str, Any]:
    """Every task of a job; a task that fails is recorded with its error and the others still run."""
    from ..systems import make_system

    result: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION, "run_id": job.id, "model": model_record(job), "options": job.options,
        "dataset": {"name": settings.dataset, "sample": settings.sample_data}, "tasks": {}}
    out_dir = store.predictions_dir(job.id)
    base_url = settings.api_base_url if job.source == "api" else None
    system = None
    for i, task in enumerate(job.tasks, 1):
        progress(f"{task} ({i}/{len(job.tasks)})")
        try:
            system = system or make_system(job.spec, settings.dataset, base_url=base_url, **job.options)
            result["tasks"][task] = evaluate_task(task, system, job.spec, out_dir, settings, settings.dataset,
                                                  job.source, job.options)
        except Exception as err:  # a broken model or task must fail the job with a reason, not the worker
            log.exception("job %s, task %s failed", job.id, task)
            result["tasks"][task] = {"score": None, "error": f"{type(err).__name__}: {err}"[:500]}
    result["created_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return result


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
        failed = {t: e["error"] for t, e in result["tasks"].items() if "error" in e}
        result["complete"] = not failed
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
