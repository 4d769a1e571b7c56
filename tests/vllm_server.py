"""A real vLLM OpenAI-compatible server on 127.0.0.1 for a local model folder, from vLLM's own environment
(`make vllm-env`: `.venv-vllm`, or NYCC_VLLM_PYTHON); `tests/test_served_real.py` and `benchmarks/runner.py --served`
start it. Its CPU build runs here: float32, `--enforce-eager` (no torch.compile warm-up: about two minutes on 2 cores),
a 1 GiB KV cache, no usage reports, offline; and without chunked prefill (every prompt prefilled in one step, up to
MAX_BATCHED_TOKENS a step): vLLM 0.32's CPU build fails a seeded sampling request whose prefill was split over steps
("RuntimeError: CPU Generator does not use offset", in `_bookkeeping_sync`), and the engine dies with it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READY = "Application startup complete"
MAX_BATCHED_TOKENS = 16384  # tokens of prefill a step without chunked prefill (at least --max-model-len)
START_GUARD_S = 1200  # a guard against a server that never says it is ready, not a speed test


class ServerFailed(RuntimeError):
    """The server exited, or never said it was ready; the message holds the end of its log."""


def vllm_python() -> Path | None:
    """The vLLM environment's interpreter: NYCC_VLLM_PYTHON, else `.venv-vllm` (made by `make vllm-env`)."""
    path = Path(os.environ.get("NYCC_VLLM_PYTHON") or ROOT / ".venv-vllm" / "bin" / "python")
    return path if path.is_file() else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def vllm_server(model: Path, python: Path, log: Path) -> Iterator[tuple[str, int]]:
    """(base URL, server pid) of a vLLM server for `model` once it says it is ready; its process group ends after."""
    port = free_port()
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_CPU_OMP_THREADS_BIND": "nobind", "HF_HUB_OFFLINE": "1",
           "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "PYTHONUNBUFFERED": "1"}
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
