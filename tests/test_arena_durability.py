"""A kill -9 of the leaderboard in the middle of a burst of arena votes loses none that were acknowledged: the
served app (`nycc-bench leaderboard`, a subprocess on a free port) takes votes from three clients at once through its
API (the tab's own handlers: a battle, then a vote on its token); the process is killed without warning; every vote
a client saw acknowledged is in the reopened database, and the app restarted on the same folder counts them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from live_leaderboard import free_port

from nycc_bench.arena import VoteStore

gradio_client = pytest.importorskip("gradio_client")
RECEIPT = re.compile(r"Vote <code>([0-9a-f]{16})</code> recorded")


def start(data_dir: Path, dataset: str, log: Path) -> tuple[subprocess.Popen, str]:
    """The served leaderboard, once it answers HTTP (its startup is the event waited on; 300 s is a failure)."""
    port = free_port()
    env = {**os.environ, "NYCC_LB_WORKER": "0", "NYCC_ARENA_MIN_SECONDS": "0", "NYCC_ARENA_SECRET": "test-secret",
           "NYCC_ARENA_ANONYMOUS_CAP": "100000",
           "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    process = subprocess.Popen([sys.executable, "-m", "nycc_bench.cli", "leaderboard", "--data-dir", str(data_dir),
                                "--port", str(port), "--dataset", dataset], env=env, stdout=log.open("ab"),
                               stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()[-3000:]
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return process, url
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise AssertionError(f"the leaderboard did not start: {log.read_text()[-3000:]}")


def test_kill_9_during_a_vote_burst_loses_no_acknowledged_vote(tmp_path: Path, sample_dataset: str) -> None:
    data_dir, log = tmp_path / "data", tmp_path / "server.log"
    process, url = start(data_dir, sample_dataset, log)
    acknowledged: list[str] = []
    refused: list[str] = []
    enough = threading.Event()
    lock = threading.Lock()

    def voter(k: int) -> None:
        try:
            client = gradio_client.Client(url, verbose=False)
            while True:
                client.predict(api_name="/arena_next")
                reply = client.predict(False, k == 1, api_name="/arena_vote_left")
                found = RECEIPT.search(reply)
                with lock:
                    (acknowledged.append(found.group(1)) if found else refused.append(reply))
                    if len(acknowledged) >= 24:
                        enough.set()
        except Exception:  # the server is gone: this client stops
            return

    threads = [threading.Thread(target=voter, args=(k,), daemon=True) for k in range(3)]
    for t in threads:
        t.start()
    assert enough.wait(240), (acknowledged, refused, log.read_text()[-2000:])
    os.kill(process.pid, signal.SIGKILL)  # in the middle of the burst: the clients are still voting
    process.wait()
    for t in threads:
        t.join(60)
    assert not refused, refused[:3]
    seen = list(acknowledged)
    store = VoteStore(data_dir / "arena")
    stored = {v.vote_id for v in store.votes("WHERE simulated = 0")}
    assert set(seen) <= stored, sorted(set(seen) - stored)
    assert store.count(simulated=True) == 600  # the seed, untouched
    store.close()

    process, url = start(data_dir, sample_dataset, log)  # a restart on the same folder
    try:
        client = gradio_client.Client(url, verbose=False)
        client.predict(api_name="/arena_next")
        reply = client.predict(False, False, api_name="/arena_vote_tie")
        assert RECEIPT.search(reply), reply
        assert VoteStore(data_dir / "arena").count(simulated=False) == len(stored) + 1
    finally:
        process.kill()
        process.wait()
