"""No orphaned jobs: killing the leaderboard's process ends its job's child at once (process group, parent-death
check), the next start takes the job back at once (its worker's liveness lock is free) and runs it again without
"in use by another run", and a job interrupted twice ends FAILED with its reason; never lost, never stuck."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer, Reply

from nycc_bench.leaderboard.store import FAILED, PENDING, Job, LocalStore

ROOT = Path(__file__).resolve().parents[1]
SERVER = """
import sys
from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.store import LocalStore
from nycc_bench.leaderboard.worker import run_worker_once
store = LocalStore(sys.argv[1])
run_worker_once(store, Settings.from_env(data_dir=sys.argv[1], dataset=sys.argv[2]))
"""


def wait_for(check: Callable[[], Any], what: str, limit_s: float = 120.0) -> Any:
    """Poll `check()` until it is truthy (an event), failing after a generous bound."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if found := check():
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def job_child(parent: int) -> int | None:
    """The pid of the job's child process (multiprocessing spawn) of `parent`, if it runs."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"spawn_main" in cmdline:
            return int(entry.name)
    return None


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
def endpoint() -> Iterator[FakeChatServer]:
    with FakeChatServer(lambda body, attempt: Reply(text="A", delay_s=60)) as server:  # a slow endpoint
        yield server


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_the_server_ends_its_job_and_the_job_is_retried_once_then_failed(
        tmp_path: Path, sample_dataset: str, endpoint: FakeChatServer) -> None:
    data = tmp_path / "data"
    store = LocalStore(data)
    store.add_job(Job(id="job-1", model="fake-slow", spec="openai:fake-slow", source="api", tasks=["matching"],
                      user="alice", run_key="k1"), 10, 1e9)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NYCC_LB_ALLOW_API": "1", "NYCC_LB_API_BASE_URL": endpoint.base_url,
           "OPENAI_API_KEY": "sk-test", "NYCC_BENCH_CACHE": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}
    for attempt in (1, 2):
        seen = endpoint.count()
        server = subprocess.Popen([sys.executable, "-c", SERVER, str(data), sample_dataset], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            child = wait_for(lambda pid=server.pid: job_child(pid), "the job's child process")
            wait_for(lambda seen=seen: endpoint.count() > seen, "the job calling the endpoint")  # lock free
        finally:
            os.kill(server.pid, signal.SIGKILL)  # the server dies without a word
            server.wait()
        wait_for(lambda child=child: not alive(child), "the orphaned child to end")
        connections = endpoint.connections_so_far()  # the dead child's requests may still be read after this
        job = LocalStore(data).get_job("job-1")
        assert job is not None and job.status == "RUNNING"  # until a worker starts again
        restarted = LocalStore(data)
        (taken,) = restarted.recover(timeout_s=900, max_attempts=2)  # at once: no heartbeat timeout waited for
        if attempt == 1:
            assert taken.status == PENDING and "its worker ended" in (taken.reason or "")
            assert "attempt 1 of 2" in (taken.reason or "")
        else:
            assert taken.status == FAILED and "stopped 2 times" in (taken.reason or "")
            assert "last progress" in (taken.reason or "")
        assert endpoint.connections_so_far() == connections + 1  # nothing connects any more (+1: the probe)
