"""A real vLLM OpenAI-compatible server on 127.0.0.1 for a local model folder, from vLLM's own environment
(`make vllm-env`: `.venv-vllm`, or NYCC_VLLM_PYTHON); `tests/test_served_real.py` and `benchmarks/runner.py --served`
start it, and run `vllm:` in process there (`in_process`). Its CPU build runs here: float32, `--enforce-eager` (no
torch.compile warm-up: about two minutes on 2 cores), a 1 GiB KV cache, no usage reports, offline; and without
chunked prefill (every prompt prefilled in one step, up to MAX_BATCHED_TOKENS a step): vLLM 0.32's CPU build fails a
seeded sampling request whose prefill was split over steps ("RuntimeError: CPU Generator does not use offset", in
`_bookkeeping_sync`), and the engine dies with it."""

from __future__ import annotations

import json
import os
import signal
import site
import socket
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READY = "Application startup complete"
MAX_BATCHED_TOKENS = 16384  # tokens of prefill a step without chunked prefill (at least --max-model-len)
START_GUARD_S = 1200  # a guard against a server that never says it is ready, not a speed test
NO_ENV = "no vLLM environment: run `make vllm-env` (or set NYCC_VLLM_PYTHON)"
# vLLM's CPU build here: a 1 GiB KV cache, its OpenMP threads unpinned (the machine is shared), offline, no reports
CPU_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_CPU_OMP_THREADS_BIND": "nobind", "HF_HUB_OFFLINE": "1",
           "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "PYTHONUNBUFFERED": "1"}


class ServerFailed(RuntimeError):
    """The server exited or never said it was ready, or `vllm:` in process printed no result; the message holds the
    end of its log."""


def vllm_python() -> Path | None:
    """The vLLM environment's interpreter: NYCC_VLLM_PYTHON, else `.venv-vllm` (made by `make vllm-env`)."""
    path = Path(os.environ.get("NYCC_VLLM_PYTHON") or ROOT / ".venv-vllm" / "bin" / "python")
    return path if path.is_file() else None


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system, every thread) of a process and all its descendants so far."""
    import psutil

    root = psutil.Process(pid)
    total = 0.0
    for proc in [root, *root.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def vllm_server(model: Path, python: Path, log: Path) -> Iterator[tuple[str, int]]:
    """(base URL, server pid) of a vLLM server for `model` once it says it is ready; its process group ends after."""
    port = free_port()
    env = {**os.environ, **CPU_ENV}
    env.pop("PYTHONPATH", None)
    process = subprocess.Popen(
        [str(python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(model), "--dtype", "float32",
         "--max-model-len", "2048", "--enforce-eager",
         "--no-enable-chunked-prefill", "--max-num-batched-tokens", str(MAX_BATCHED_TOKENS), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
    ready = threading.Event()

    def read() -> None:  # the server's log, kept; `ready` is set when it says so, or when it exits
        assert process.stdout is not None
        with log.open("w") as out:
            for line in process.stdout:
                out.write(line)
                out.flush()
                if READY in line:
                    ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        ready.wait(START_GUARD_S)
        if process.poll() is not None or not ready.is_set():
            raise ServerFailed(f"vLLM did not start (exit {process.poll()}):\n{log.read_text()[-3000:]}")
        yield f"http://127.0.0.1:{port}/v1", process.pid
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def in_process(python: Path, model: Path, dataset: str, tasks: Sequence[str], splits: Sequence[str] | None = None,
               limit: int | None = None, warmup: int = 0) -> dict:
    """`vllm:` on `model` scoring `tasks` in vLLM's environment (`tests/vllm_in_process.py`: one process, the engine
    in it; the first `limit` instances): what that script prints as its RESULT; ServerFailed with the end of its
    output when it prints none."""
    env = {**os.environ, **CPU_ENV, "PYTHONPATH": str(ROOT), "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
    job = {"site": site.getsitepackages()[0], "model": str(model), "dataset": dataset, "tasks": list(tasks),
           "splits": list(splits) if splits else None, "limit": limit, "warmup": warmup}
    done = subprocess.run([str(python), str(ROOT / "tests" / "vllm_in_process.py"), json.dumps(job)],
                          capture_output=True, text=True, env=env, check=False)
    result = next((line for line in reversed(done.stdout.splitlines()) if line.startswith("RESULT ")), None)
    if result is None:
        raise ServerFailed(f"vllm: in process failed (exit {done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")
    return json.loads(result.removeprefix("RESULT "))
