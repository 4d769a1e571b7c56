"""A run whose model and judge endpoints carry `user:password@` writes the password nowhere: not in the run
folder (results, predictions, sidecars), not in what it prints, not in the staged model card."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from fake_openai import FakeChatServer, Reply, last_user_text

from nycc_bench.publish.cli import main as publish

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "PWs3cretPW"


def test_a_password_in_endpoint_urls_is_written_nowhere(tmp_path: Path, sample_dataset: str) -> None:
    def reply(body: dict, attempt: int) -> Reply:  # readable answers and verdicts: the record is whole, its card made
        if "anticipated answer point" in last_user_text(body).lower():
            return Reply(text="<reasoning>Yes.</reasoning>\n<judgement>PASS</judgement>", top_logprobs=None)
        return Reply(text="Answer: A")

    with FakeChatServer(reply) as server:
        plain = server.base_url
        url = plain.replace("http://", f"http://user:{PASSWORD}@")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test",
               "NYCC_BENCH_CACHE": str(tmp_path / "cache")}
        run = tmp_path / "run"
        done = subprocess.run([sys.executable, "-m", "nycc_bench.cli", "evaluate", "--system", "openai:fake",
                               "--base-url", url, "--tasks", "matching,humorbench", "--judge", "openai:fake",
                               "--judge-base-url", url, "--dataset", sample_dataset, "--quiet", "--allow-incomplete",
                               "--out", str(run)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        assert server.count() > 0  # both endpoints were really called, with the URL's credentials
    assert PASSWORD not in done.stdout + done.stderr
    results = (run / "results.json").read_text()
    assert f"--judge-base-url {plain}" in results  # the reproduce command keeps the endpoint, no user

    cards, staged = tmp_path / "cards", tmp_path / "staged"
    cards.mkdir()
    shutil.copyfile(run / "results.json", cards / "fake.json")
    assert publish(["--dry-run", "--out", str(staged), "--dataset-dir", sample_dataset, "--allow-sample",
                    "--only", "models", "--push-third-party", "--results", str(cards)]) == 0
    assert list(staged.rglob("README.md"))
    found = subprocess.run(["grep", "-rl", PASSWORD, str(run), str(cards), str(staged)], capture_output=True,
                           text=True)
    assert found.stdout == "", found.stdout
