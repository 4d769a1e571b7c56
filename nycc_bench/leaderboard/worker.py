"""The evaluation worker: claims the oldest PENDING job, runs and scores its tasks, stores the result.

`run_worker_once` does one job (tests drive it); `Worker` is the app's background thread that loops on it.
Each job runs in a child process (`multiprocessing` spawn) that the worker kills when it passes its wall-clock
limit (`NYCC_LB_JOB_TIMEOUT_S`); the child's exit frees its GPU memory. The child leads a process group of its
own that the worker kills whole, and it dies with the worker (a parent-death signal and a watch on its parent), so
no job outlives its server. The heartbeat comes from progress: the
child reports every batch of items answered and the worker passes it on, so a job that hangs stops beating
and a dead worker's job is put back to PENDING by `Store.recover` (its written predictions are resumed).

A job is published only when it is whole, by the one rule `evaluate` recorded (`nycc_bench.wholeness`): a task
that errored or an entry recorded `incomplete` (failed items, too few instances scored, mostly unparsed
answers, judge errors beyond the task's share, a missing score) ends the job FAILED with the recorded reason,
and nothing of it reaches the table (the
duplicate rule ignores FAILED jobs, so the same model can be submitted again). On ZeroGPU Spaces the job runs
in this process inside `spaces.GPU`, whose own duration limit applies. With NYCC_LB_SERVED_BASE_URL set, an `hf:` job
whose model the operator's vLLM deployment serves runs there as `vllm-server:` (`served_job`), in the same child
process under the same limits and rules.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..run_lock import RunFolderBusy, run_lock
from ..secrets import scrub, scrub_logs
from ..urls import redact_urls_in
from ..wholeness import record_problems
from .settings import Settings
from .store import FAILED, FINISHED, Job, Store

log = logging.getLogger("nycc_bench.leaderboard")
WORKER_ID = f"{socket.gethostname()}-{os.getpid()}"
BEAT_EVERY_S = 5.0  # item progress is passed on as a heartbeat at most this often
SERVED_ENV = "NYCC_LB_SERVED_BASE_URL"  # an OpenAI-compatible deployment (vLLM) that answers `hf:` jobs it serves
SERVED_OPTIONS = ("chat_template", "mc_mode", "trust_remote_code")  # the `hf:` job options `vllm-server:` takes too


class JobFailed(RuntimeError):
    """A job that cannot be published; the message is the reason the queue shows."""


def on_gpu(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`spaces.GPU(fn)` on a ZeroGPU Space (the `spaces` package is only there); `fn` itself elsewhere."""
    if os.environ.get("SPACES_ZERO_GPU"):
        try:
            import spaces
        except ImportError:
            return fn
        return spaces.GPU(duration=int(os.environ.get("NYCC_LB_GPU_DURATION_S", "600")))(fn)
    return fn


def model_record(job: Job, loaded: int | None = None) -> dict[str, Any]:
    """What the leaderboard knows of a submitted model beyond what the system reports (no user, no secret);
    `parameters` is the count of the model as loaded when there is one."""
    return {"name": job.model, "source": job.source, "revision": job.revision, "commit": job.commit,
            "parameters": loaded if loaded is not None else job.params, "license": job.license,
            "type": "api" if job.source == "api" else "open",
            "url": f"https://huggingface.co/{job.model}" if job.source == "hub" else None}


def store_paths(result: dict[str, Any], run: str) -> dict[str, Any]:
    """The record with its predictions paths relative to the store (`predictions/<run>/...`)."""
    for entry in result["tasks"].values():
        entry["predictions"] = [f"predictions/{run}/{p}" for p in entry["predictions"]]
    return result


def check_loaded(job: Job, system: Any) -> int | None:
    """The loaded model's parameter count; `JobFailed` when it differs from the safetensors headers counted at
    submission (the weights loaded are not the ones that were checked)."""
    loaded = (system.describe() or {}).get("parameters") if hasattr(system, "describe") else None
    if job.source in ("hub", "local") and job.params is not None and loaded is not None and loaded != job.params:
        raise JobFailed(f"the loaded model has {loaded:,} parameters but its safetensors weights declare "
                        f"{job.params:,}; refused (only the checked safetensors weights may be loaded)")
    return loaded


def with_progress(system: Any, beat: Callable[[int], None]) -> Any:
    """`system` whose `choose`/`generate` report each answered batch's size to `beat` (the heartbeat)."""
    for name in ("choose", "generate"):
        method = getattr(system, name)

        def answered(task: Any, instances: list[Any], _method: Callable[..., Any] = method) -> Any:
            outputs = _method(task, instances)
            beat(len(instances))
            return outputs

        setattr(system, name, answered)
    return system


def served_job(job: Job) -> tuple[str, str, dict[str, Any]] | None:
    """(spec, base URL, options) that run an `hf:` job on the operator's deployment (NYCC_LB_SERVED_BASE_URL, see
    spaces/leaderboard/SIZING.md) when it serves the job's model (its `/models` lists the name): `vllm-server:`,
    which scores and prompts as `hf:` does, with the tokenizer of the submitted revision; None: load it here."""
    from ..llm import LLMConfig, run_sync
    from ..llm.backends.openai_backend import OpenAIBackend
    from ..systems.hf import parse_ref

    base_url = os.environ.get(SERVED_ENV, "").strip()
    kind, _, arg = job.spec.partition(":")
    if not base_url or kind != "hf":
        return None
    name = parse_ref(kind, arg).name
    if run_sync(OpenAIBackend(LLMConfig(backend="openai", model=name, base_url=base_url)).served_model) is None:
        return None
    options = {k: v for k, v in job.options.items() if k in SERVED_OPTIONS}
    return f"vllm-server:{name}", base_url, {**options, "tokenizer": arg}


def evaluate_job(job: Job, out: Path, settings: Settings, progress: Callable[[str | None], None],
                 system: Any = None) -> dict[str, Any]:
    """Every task of a job through `nycc_bench.evaluate` (the same path as the CLI, the cards and the seed); a
    task that fails is recorded in `errors` and the others still run. `progress(text)` is called per task,
    `progress(None)` per batch of items answered."""
    from ..evaluation import evaluate
    from ..systems import make_system

    base_url = settings.api_base_url if job.source == "api" else None
    loaded = None
    if system is None:  # the run's problems (data, judges' keys and folders, disk) before the model loads
        from ..preflight import check_judged_run

        check_judged_run(job.tasks, settings.dataset, dict(settings.judges),
                         list(settings.folds) if settings.folds else None, out=out)
    if system is None and (served := served_job(job)) is not None:
        spec, url, options = served
        progress("on the served deployment")
        system = make_system(spec, settings.dataset, base_url=url, **options)
    if system is None:
        progress("loading the model")
        system = make_system(job.spec, settings.dataset, base_url=base_url, **job.options)
        loaded = check_loaded(job, system)
    system = with_progress(system, lambda n: progress(None))
    result = evaluate(system, job.tasks, dataset=settings.dataset, judge=dict(settings.judges),
                      folds=list(settings.folds) if settings.folds else None, out=out,
                      progress=False, raise_errors=False, model=model_record(job, loaded),
                      extra={"run_id": job.id, "options": job.options},
                      on_task=lambda task, i, n: progress(f"{task} ({i}/{n})"))
    return store_paths(result.record, job.id)


_evaluate_on_gpu = on_gpu(evaluate_job)  # ZeroGPU wants its functions wrapped at import time


def unpublishable(result: dict[str, Any]) -> str | None:
    """Why a record must not be published (`wholeness.record_problems`: a task errored, an entry not whole,
    nothing scored), or None when it is whole."""
    return record_problems(result, redact_urls_in)


def _kill_group(*_: Any) -> None:
    """End this process and everything it started (its process group)."""
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _watch_parent(parent: int) -> None:
    """Poll the parent; when it is gone (this process was re-parented), end the group."""
    while os.getppid() == parent:
        time.sleep(1.0)
    _kill_group()


def die_with_parent(parent: int) -> None:
    """In the job's child: lead a process group of its own, and end it when the worker's process ends (Linux's
    parent-death signal, and a thread that watches the parent id where that signal does not exist)."""
    os.setpgid(0, 0)
    signal.signal(signal.SIGTERM, _kill_group)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the watch below is the check
        pass
    if os.getppid() != parent:  # the worker died while this process started
        _kill_group()
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="nycc-parent-watch").start()


def _child(job: Job, out: str, settings: Settings, conn: Any, parent: int | None = None) -> None:
    """The child process: run the job, send progress, then the record or the one-line reason it failed."""
    if parent is not None:
        die_with_parent(parent)
    scrub_logs()
    logging.basicConfig(level=logging.WARNING)
    last = [0.0]

    def progress(text: str | None) -> None:
        if text is not None or time.monotonic() - last[0] >= BEAT_EVERY_S:
            last[0] = time.monotonic()
            conn.send(("progress", text))

    try:
        conn.send(("result", evaluate_job(job, Path(out), settings, progress)))
    except Exception as err:  # any failure of the job is its reason, shown in the queue
        log.exception("job %s failed", job.id)
        conn.send(("error", scrub(f"{type(err).__name__}: {err}" if not isinstance(err, JobFailed) else str(err))))
    finally:
        conn.close()


def run_in_child(job: Job, store: Store, settings: Settings) -> dict[str, Any]:
    """Run `job` in a child process under the wall-clock limit; its record, or `JobFailed` with the reason."""
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    out = store.predictions_dir(job.id)
    child = ctx.Process(target=_child, args=(job, str(out), settings, send, os.getpid()), name=f"nycc-job-{job.id}")
    child.start()
    send.close()
    limit = settings.job_timeout_s
    deadline = time.monotonic() + limit
    try:
        while (left := deadline - time.monotonic()) > 0:
            if not receive.poll(min(left, 1.0)):
                continue
            try:
                kind, payload = receive.recv()
            except EOFError:  # the child exited without a word: killed (out of memory) or crashed
                child.join(timeout=10)
                raise JobFailed(f"the job's process exited with code {child.exitcode} before it finished") from None
            if kind == "progress":
                store.heartbeat(job.id, WORKER_ID, payload)
            elif kind == "result":
                return payload
            else:
                raise JobFailed(payload)
        child.kill()  # at once: no grace for a job past its limit (its GPU memory goes with the process)
        raise JobFailed(f"timed out after {limit:g} s")
    finally:
        receive.close()
        child.join(timeout=5)
        if child.is_alive():
            child.kill()
            child.join(timeout=30)
        if child.pid is not None and child.exitcode is not None:  # whatever the child started goes with it
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)


def run_worker_once(store: Store, settings: Settings) -> Job | None:
    """Recover stalled jobs, claim the oldest PENDING one, run it to FINISHED or FAILED; None if none waits."""
    store.hold_worker(WORKER_ID)
    store.recover(settings.heartbeat_timeout_s, settings.max_attempts)
    job = store.claim_job(WORKER_ID)
    if job is None:
        return None
    try:
        if os.environ.get("SPACES_ZERO_GPU"):
            result = _evaluate_on_gpu(job, store.predictions_dir(job.id), settings,
                                      lambda p: store.heartbeat(job.id, WORKER_ID, p))
        else:
            result = run_in_child(job, store, settings)
        try:
            with run_lock(store.predictions_dir(job.id)):  # nobody writes the job's folder while it is published
                if reason := unpublishable(result):
                    raise JobFailed(reason)
                store.save_result(result)
        except RunFolderBusy as err:
            raise JobFailed(str(err)) from None
        store.finish_job(job.id, WORKER_ID, FINISHED)
    except JobFailed as err:
        log.warning("job %s of %s failed: %s", job.id, job.model, err)
        store.finish_job(job.id, WORKER_ID, FAILED, redact_urls_in(str(err))[:1000])
    except Exception as err:  # the store itself failed: the job stays visible as FAILED with why
        log.exception("job %s failed", job.id)
        store.finish_job(job.id, WORKER_ID, FAILED, redact_urls_in(f"{type(err).__name__}: {err}")[:500])
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
