"""A live `nycc-bench leaderboard` in a fresh process group for a test: started on a free port, awaited over HTTP,
and stopped with every process of its group gone (job children included), so no file is still being written or
removed (SQLite's `-shm`, `-wal`) when the test reads the folder."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A port nothing listens on now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(data_dir: Path, dataset: str, port: int, log: Path, env: Mapping[str, str], cwd: Path = ROOT
          ) -> subprocess.Popen:
    """`nycc-bench leaderboard` in a new session (its own process group), output appended to `log`."""
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "nycc_bench.cli", "leaderboard", "--data-dir", str(data_dir),
                                 "--dataset", dataset, "--port", str(port)], cwd=cwd, env=dict(env), stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


def wait_answering(base: str, proc: subprocess.Popen, log: Path, limit_s: float = 240) -> None:
    """Until `base`/ answers 200; fails with the log's tail if the server exits or never answers (a guard against
    a hang, not a speed test)."""
    deadline = time.monotonic() + limit_s
    while True:
        try:
            if httpx.get(base + "/", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
        time.sleep(0.5)


def stop(proc: subprocess.Popen, limit_s: float = 60) -> None:
    """SIGTERM to the server's whole group, then wait until no live process of the group is left (SIGKILL past
    `limit_s`)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    proc.wait(timeout=limit_s)
    deadline = time.monotonic() + limit_s
    while _live_members(proc.pid):
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            return
        time.sleep(0.1)


def _live_members(group: int) -> bool:
    """Whether a process of `group` is still running (zombies, waiting for a reaper, hold no files)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            return True
    return False


@contextmanager
def leaderboard(data_dir: Path, dataset: str, log: Path, env: Mapping[str, str], cwd: Path = ROOT) -> Iterator[str]:
    """A running leaderboard's base URL for the block; stopped (its whole group) after it."""
    port = free_port()
    proc = start(data_dir, dataset, port, log, env, cwd)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_answering(base, proc, log)
        yield base
    finally:
        stop(proc)
