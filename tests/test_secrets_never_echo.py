"""Secrets never echo back. With recognisable fake secrets set (API keys and an HF token in the environment, a
password and a query-string key in the endpoint URLs), an endpoint that echoes everything it was sent (the
`Authorization` header and the URL, in 200 replies and in errors) is run by a judged evaluation, a leaderboard
job, and the whole demo; then every file written (run folders, caches, predictions, prompt logs, logs, request
files, the leaderboard's store) and every HTTP response of the leaderboard is searched for the secrets: none."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from live_leaderboard import leaderboard

ROOT = Path(__file__).resolve().parents[1]
SECRETS = {"OPENAI_API_KEY": "sk-FAKEOPENAI7c1e9a0b", "NYCC_JUDGE_API_KEY": "sk-FAKEJUDGE5d2f8b3c",
           "HF_TOKEN": "hf_FAKEHFTOKEN9e4a7d1f", "TOGETHER_API_KEY": "tg-FAKETOGETHER3b8c2e6a"}
URL_PASSWORD, QUERY_KEY = "PWFAKEURL4f7a1c9e", "QKFAKEQUERY8d3b6e2a"
ALL = [*SECRETS.values(), URL_PASSWORD, QUERY_KEY, base64.b64encode(f"user:{URL_PASSWORD}".encode()).decode()]


class Echo(ThreadingHTTPServer):
    """An OpenAI-compatible endpoint that echoes the key and URL it was sent, in replies and in errors."""

    daemon_threads = True

    def __init__(self) -> None:
        self.seen: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                said = f"you sent {self.headers.get('Authorization')} to {self.path}"
                server.seen.append(said)
                if "error" in str(body.get("model")):
                    status, payload = 401, {"error": {"message": f"Incorrect API key: {said}", "type": "auth"}}
                else:
                    status, payload = 200, {
                        "id": "x", "object": "chat.completion", "created": 0, "model": body.get("model"),
                        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                                     "message": {"role": "assistant", "content": f"A. PASS. {said}"}}],
                        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up on a reply (a timed-out request)
                    pass

        super().__init__(("127.0.0.1", 0), Handler)

    def url(self, password: bool = False) -> str:
        """The endpoint with a query-string key (and a `user:password@`, which clients send as Basic auth)."""
        user = f"user:{URL_PASSWORD}@" if password else ""
        return f"http://{user}127.0.0.1:{self.server_address[1]}/v1?api_key={QUERY_KEY}"


@pytest.fixture(scope="module")
def echo() -> Iterator[Echo]:
    server = Echo()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()


def environment(root: Path, **more: str) -> dict[str, str]:
    return {**os.environ, **SECRETS, **more, "PYTHONPATH": str(ROOT), "NYCC_BENCH_CACHE": str(root / "cache"),
            "HF_HOME": str(root / "hf"), "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}


def hits(*places: Path | str) -> list[str]:
    """Each file under `places` (or text given) that holds a secret, with which; binary files (SQLite) too."""
    found = []
    for place in places:
        if isinstance(place, str):
            found += [f"text: {s}" for s in ALL if s in place]
            continue
        found += _file_hits(place)
    return found


def _file_hits(place: Path, tries: int = 20) -> list[str]:
    """The secrets in the files under `place`, from one scan during which no file vanished (SQLite removes its
    `-wal` and `-shm` files when a connection closes: a scan that lost one is done again)."""
    for _ in range(tries):
        found = []
        try:
            for path in [place] if place.is_file() else [p for p in place.rglob("*") if p.is_file()]:
                data = path.read_bytes()
                found += [f"{path}: {s}" for s in ALL if s.encode() in data]
        except FileNotFoundError:
            time.sleep(0.2)
            continue
        return found
    raise AssertionError(f"files under {place} kept vanishing during {tries} scans")


def echoed(server: Echo, password: bool = False) -> None:
    """The endpoint really got (and echoed) the key, the URL's query key (and its password, as Basic auth)."""
    assert any(SECRETS["OPENAI_API_KEY"] in s or SECRETS["NYCC_JUDGE_API_KEY"] in s for s in server.seen)
    assert any(QUERY_KEY in s for s in server.seen)
    assert not password or any(ALL[-1] in s for s in server.seen)


def test_a_judged_run_writes_no_secret(echo: Echo, tmp_path: Path, sample_dataset: str) -> None:
    env = environment(tmp_path)
    run = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "nycc_bench.cli", "evaluate", "--system", "openai:echo",
                           "--base-url", echo.url(), "--tasks", "matching,humorbench", "--judge", "openai:echo",
                           "--judge-base-url", echo.url(password=True), "--dataset", sample_dataset,
                           "--allow-incomplete", "--quiet", "--out", str(run)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert (run / "results.json").is_file(), done.stderr[-3000:]
    echoed(echo, password=True)
    failing = subprocess.run([sys.executable, "-m", "nycc_bench.cli", "evaluate", "--system", "openai:echo-error",
                              "--base-url", echo.url(), "--tasks", "matching", "--dataset", sample_dataset, "--quiet",
                              "--out", str(tmp_path / "failing")], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=900)
    assert failing.returncode != 0 and "Incorrect API key" in failing.stderr + failing.stdout
    assert hits(tmp_path, done.stdout + done.stderr, failing.stdout + failing.stderr) == []


def test_a_leaderboard_job_writes_and_serves_no_secret(echo: Echo, tmp_path: Path, sample_dataset: str) -> None:
    from gradio_client import Client

    from nycc_bench.leaderboard.store import PENDING, RUNNING, LocalStore

    data = tmp_path / "data"
    env = environment(tmp_path, NYCC_LB_ALLOW_API="1", NYCC_LB_API_BASE_URL=echo.url(), NYCC_LB_SAMPLE_DATA="1",
                      NYCC_LB_RATE_LIMIT="50")
    responses: list[str] = []
    # stopped with its whole group before the files are read: no job child still writing or removing a file
    with leaderboard(data, sample_dataset, tmp_path / "server.log", env, cwd=tmp_path) as base:
        client = Client(base, verbose=False, download_files=str(tmp_path / "downloads"))
        for model in ("openai:echo", "openai:echo-error"):
            responses.append(json.dumps(client.predict(model, "", ["matching"], "default", api_name="/submit"),
                                        default=str))
        store = LocalStore(data)
        deadline = time.time() + 600
        while not (len(store.jobs()) == 2 and all(j.status not in (PENDING, RUNNING) for j in store.jobs())):
            assert time.time() < deadline, [(j.model, j.status, j.progress) for j in store.jobs()]
            time.sleep(1)
        failed = next(j for j in store.jobs() if j.model == "echo-error")
        assert failed.reason and "Incorrect API key" in failed.reason  # the echo reached the reason, scrubbed
        responses.append(json.dumps(client.predict(api_name="/queue"), default=str))
        for page in ("/", "/gradio_api/info", "/config"):
            responses.append(httpx.get(base + page, timeout=30).text)
    echoed(echo)
    assert hits(tmp_path, *responses) == []


def test_a_hub_request_file_holds_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_leaderboard_store import FakeHub, job

    from nycc_bench.leaderboard.hub_store import HubStore
    from nycc_bench.leaderboard.store import FAILED

    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("NYCC_LB_API_BASE_URL", f"http://u:{URL_PASSWORD}@h/v1?key={QUERY_KEY}")
    store = HubStore(tmp_path / "a", "org/requests", "org/results", api=FakeHub(tmp_path / "hub"))
    store.add_job(job(1), 10, 1e9)
    store.claim_job("w")
    store.heartbeat("job-001", "w", f"calling http://127.0.0.1/v1?api_key={QUERY_KEY}")
    store.finish_job("job-001", "w", FAILED, f"HTTP 401: Incorrect API key {SECRETS['OPENAI_API_KEY']} at "
                                             f"/v1?api_key={QUERY_KEY} (password {URL_PASSWORD})")
    assert "Incorrect API key [REDACTED]" in (store.get_job("job-001").reason or "")  # type: ignore[union-attr]
    assert hits(tmp_path) == []


@pytest.mark.slow  # the whole demo, in a child process
def test_the_whole_demo_writes_no_secret(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "nycc_bench.cli", "demo", "--out", str(tmp_path / "demo"),
                           "--quiet"], cwd=tmp_path, env=environment(tmp_path), capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert hits(tmp_path, done.stdout + done.stderr) == []
