"""Push failures are one line, the run kept: a Hub that cannot be reached (after `evaluate --push-to-hub` has
recorded the run) and a token the Hub refuses; `nycc-bench hub serve`, the documented rehearsal Hub, serves a push
end to end (started and stopped here as a user would)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from nycc_bench import evaluate

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "hf_" + "RehearsalToken" * 3
REPO = "someone/nycc-details"


def env(tmp_path: Path, token: str | None, endpoint: str | None = None) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    clean.update(HF_HOME=str(tmp_path / "home"), NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost",
                 PYTHONPATH=str(ROOT), **({"HF_TOKEN": token} if token else {}),
                 **({"HF_ENDPOINT": endpoint} if endpoint else {}))
    return clean


def cli(tmp_path: Path, *args: str, token: str | None = TOKEN, endpoint: str | None = None
        ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nycc_bench.cli", *args], env=env(tmp_path, token, endpoint),
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


def closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> Path:
    out = tmp_path_factory.mktemp("push-errors") / "run"
    evaluate(system="random", tasks=["matching"], folds=[0], dataset=sample_dataset, out=out, progress=False)
    return out


def one_line_error(done: subprocess.CompletedProcess, *fragments: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert all(f in lines[0] for f in fragments), lines[0]


def test_an_unreachable_hub_is_one_line_and_the_run_is_kept(run_dir: Path, sample_dataset: str,
                                                            tmp_path: Path) -> None:
    nowhere = f"http://127.0.0.1:{closed_port()}"
    one_line_error(cli(tmp_path, "push", str(run_dir), REPO, "--endpoint", nowhere), f"cannot reach {nowhere}")
    out = tmp_path / "run"
    done = cli(tmp_path, "evaluate", "--system", "random", "--tasks", "matching", "--folds", "0", "--dataset",
               sample_dataset, "--out", str(out), "--quiet", "--push-to-hub", REPO, endpoint=nowhere)
    one_line_error(done, f"cannot reach {nowhere}", f"the run is kept in {out}", f"nycc-bench push {out} {REPO}")
    assert (out / "results.json").exists()


def test_hub_serve_rehearses_a_push_and_a_refused_token_is_one_line(run_dir: Path, tmp_path: Path) -> None:
    server = subprocess.Popen([sys.executable, "-m", "nycc_bench.cli", "hub", "serve", "--token", TOKEN],
                              env=env(tmp_path, None), stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = server.stdout.readline()  # waits for the server's first line: its URL
        assert line.startswith("local Hub at http://127.0.0.1:"), line
        url = line.split()[3]
        done = cli(tmp_path, "push", str(run_dir), REPO, "--endpoint", url)
        assert done.returncode == 0, done.stderr
        assert f"details: {url}/datasets/{REPO}" in done.stdout
        one_line_error(cli(tmp_path, "push", str(run_dir), REPO, "--endpoint", url, token="hf_" + "wrong" * 8),
                       f"hub: {url} refused the token (HTTP 401)", "HF_TOKEN")
    finally:
        server.terminate()
        server.wait(timeout=60)
