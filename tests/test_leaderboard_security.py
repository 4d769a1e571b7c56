"""A live `nycc-bench leaderboard` attacked over HTTP (gradio_client and plain requests): failed and hung jobs are
never published and can be resubmitted, decoy safetensors are refused before queueing, the file route serves
only what pages link to, and the endpoint's password is written nowhere."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_openai import FakeChatServer, Reply
from live_leaderboard import leaderboard

from nycc_bench.leaderboard.store import FAILED, FINISHED, PENDING, RUNNING, LocalStore

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # a live leaderboard, and a job left to hang until its limit
PASSWORD = "PWs3cretPW"
TIMEOUT_S = 45
"""The job limit: past it the silent job is killed. Every other job here must finish inside it: they take 5 to 8 s
on a busy 2-core machine (child start-up included) and went past 20 s on one loaded four times over, so the limit
is generous."""


def responder(body: dict[str, Any], attempt: int) -> Reply:
    """`fake-500` fails every call, `fake-silent` never answers in time, anything else answers "Answer: A"."""
    if body["model"] == "fake-500":
        return Reply(status=500, error_message="upstream exploded", headers={"retry-after": "0"})
    if body["model"] == "fake-silent":
        return Reply(delay_s=600)  # past the job limit: only the limit ends it
    return Reply(text="Answer: A")  # a readable answer: a run of unreadable ones is never published


def decoy_folder(root: Path) -> Path:
    """A model folder whose 1-parameter model.safetensors sits next to a real pickled pytorch_model.bin."""
    import struct

    import torch

    folder = root / "decoy"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"]}))
    (folder / "README.md").write_text("---\nlicense: mit\n---\n# decoy\n")
    header = json.dumps({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"\0\0\0\0")
    torch.save({"model.embed_tokens.weight": torch.zeros(1000, 28)}, folder / "pytorch_model.bin")
    return folder


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("leaderboard_security")
    data = root / "data"
    with FakeChatServer(responder) as server:
        url = server.base_url.replace("http://", f"http://user:{PASSWORD}@")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GRADIO_ANALYTICS_ENABLED": "False",
               "NYCC_LB_ALLOW_API": "1", "NYCC_LB_API_BASE_URL": url, "NYCC_LB_ALLOW_LOCAL": "1",
               "NYCC_LB_JOB_TIMEOUT_S": str(TIMEOUT_S), "NYCC_LB_RATE_LIMIT": "50", "NYCC_LB_SAMPLE_DATA": "1",
               "OPENAI_API_KEY": "sk-test", "NYCC_BENCH_CACHE": str(root / "cache"), "HF_HUB_OFFLINE": "1"}
        log = root / "server.log"
        with leaderboard(data, sample_dataset, log, env) as base:  # stopped with its job processes
            from gradio_client import Client

            client = Client(base, verbose=False, download_files=str(root / "downloads"))
            yield {"client": client, "base": base, "data": data, "root": root, "log": log, "server": server}


def every_row() -> list[Any]:
    """The leaderboard's filters with nothing filtered out (search, sample rows, details, type, size, setting,
    then each view's plotted metric)."""
    from nycc_bench.leaderboard.ui import VIEWS
    from nycc_bench.standings import SETTINGS, SIZES, TYPES, UNKNOWN_SIZE
    from nycc_bench.tasks.scores import family_metrics

    return ["", True, False, list(TYPES.values()), [s[0] for s in SIZES] + [UNKNOWN_SIZE], list(SETTINGS),
            *(family_metrics(family)[0].label for family, _, _ in VIEWS)]


def submit(live: dict[str, Any], model: str, tasks: tuple[str, ...] = ("matching",)) -> str:
    message, _ = live["client"].predict(model, "", list(tasks), "default", api_name="/submit")
    return message


def wait_done(store: LocalStore, models: list[str], limit_s: float = 300) -> dict[str, Any]:
    """The last job of each model, once none of them is PENDING or RUNNING."""
    deadline = time.time() + limit_s
    while True:
        jobs = {j.model: j for j in reversed(store.jobs()) if j.model in models}
        if len(jobs) == len(set(models)) and all(j.status not in (PENDING, RUNNING) for j in jobs.values()):
            return jobs
        assert time.time() < deadline, [(j.model, j.status, j.progress) for j in jobs.values()]
        time.sleep(1)


def test_failed_and_hung_jobs_end_failed_are_never_shown_and_can_be_resubmitted(live: dict[str, Any]) -> None:
    for model in ("openai:fake-500", "openai:fake-silent", "openai:fake-good"):
        assert "Queued" in submit(live, model)
    store = LocalStore(live["data"])
    jobs = wait_done(store, ["fake-500", "fake-silent", "fake-good"])
    broken, silent, good = jobs["fake-500"], jobs["fake-silent"], jobs["fake-good"]
    assert broken.status == FAILED and "matching: 8 of 8 items failed" in (broken.reason or ""), broken
    assert "HTTP 500" in (broken.reason or "") or "upstream exploded" in (broken.reason or ""), broken.reason
    assert silent.status == FAILED and silent.reason == f"timed out after {TIMEOUT_S} s", silent
    assert good.status == FINISHED, good  # the queue went on after both
    assert silent.finished_at - silent.started_at < TIMEOUT_S + 60

    names = {r["model"]["name"] for r in store.results()}
    assert "fake-good" in names and not names & {"fake-500", "fake-silent"}
    shown = json.dumps(live["client"].predict(*every_row(), api_name="/refresh_1")[1:-3], default=str)  # tables
    assert "fake-good" in shown and "fake-500" not in shown and "fake-silent" not in shown

    again = submit(live, "openai:fake-500")  # the duplicate rule ignores the failed job
    assert "Queued" in again, again
    duplicate = submit(live, "openai:fake-good")
    assert "duplicate" in duplicate


def test_a_decoy_safetensors_next_to_a_pickle_is_refused_before_queueing(live: dict[str, Any]) -> None:
    folder = decoy_folder(live["root"])
    before = len(LocalStore(live["data"]).jobs())
    message = submit(live, str(folder))
    assert "Not queued" in message and "not all safetensors (pytorch_model.bin)" in message, message
    assert len(LocalStore(live["data"]).jobs()) == before


def test_the_file_route_serves_linked_files_only(live: dict[str, Any]) -> None:
    store = LocalStore(live["data"])
    wait_done(store, [j.model for j in store.jobs()])
    files = [p for p in live["data"].rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"requests.sqlite", "requests.sqlite-wal"} & names and any(n.endswith(".meta.json") for n in names)
    assert any(n.startswith(".") for n in names)  # the run lock and the like
    for path in files:
        for shown in (str(path), str(path.relative_to(live["data"])), f"{live['data']}/../{path.parent.name}/"
                      f"{path.name}"):
            answer = httpx.get(f"{live['base']}/gradio_api/file={shown}", timeout=30)
            assert answer.status_code in (403, 404), (shown, answer.status_code)

    run = next(r for r in store.results() if r["model"]["name"] == "fake-good")["extra"]["run_id"]
    _, links = live["client"].predict(run, api_name="/detail")  # what the run-detail page links to
    assert links and all(Path(link).name.endswith(".jsonl") for link in links)
    assert sum(Path(link).read_text().count("\n") for link in links) == 8  # both folds' files, served whole


def test_the_endpoint_password_is_written_nowhere(live: dict[str, Any]) -> None:
    wait_done(LocalStore(live["data"]), [j.model for j in LocalStore(live["data"]).jobs()])
    found = subprocess.run(["grep", "-rl", PASSWORD, str(live["data"]), str(live["log"])], capture_output=True,
                           text=True)
    assert found.stdout == "", found.stdout
