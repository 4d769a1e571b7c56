"""The worker on the sample dataset with baseline systems: results, failures with reasons, crash recovery."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.store import FAILED, FINISHED, PENDING, RUNNING, Job, LocalStore, run_id
from nycc_bench.leaderboard.worker import Worker, run_worker_once
from nycc_bench.results import SCHEMA
from nycc_bench.runner import run_task


@pytest.fixture(scope="module")
def dataset(sample_dataset: str) -> str:
    return sample_dataset


def queued(store: LocalStore, spec: str, tasks: list[str], i: int = 1) -> Job:
    job = Job(id=f"job-{i}", model=spec, spec=spec, source="baseline", tasks=tasks, user="alice", run_key=f"k{i}")
    return store.add_job(job, 10, 1e9)


def test_a_job_runs_to_finished_with_scores_predictions_and_commands(tmp_path: Path, dataset: str) -> None:
    store, settings = LocalStore(tmp_path), Settings(data_dir=tmp_path, dataset=dataset)
    queued(store, "random", ["matching", "ranking", "caption_generation", "humorbench"])
    done = run_worker_once(store, settings)
    assert done is not None and done.status == FINISHED and done.reason is None and done.attempts == 1
    assert run_worker_once(store, settings) is None  # the queue is empty
    (result,) = store.results()
    assert result["schema"] == SCHEMA and run_id(result) == "job-1"
    tasks = result["tasks"]
    assert tasks["matching"]["scores"]["accuracy"]["n"] == 8  # both folds of the sample, as `evaluate` runs them
    assert tasks["matching"]["config"]["dataset"]["folds"] == [0, 1]
    assert {"crowd_accuracy", "ny_accuracy"} <= set(tasks["ranking"]["scores"])
    assert "average_ead" in tasks["caption_generation"]["scores"]
    assert tasks["caption_generation"]["status"] == "no judge"  # published: its judged cells say "no judge"
    assert "humorbench" not in tasks and "needs a judge" in result["skipped"]["humorbench"]
    for entry in tasks.values():
        lines = store.resolve(entry["predictions"][0]).read_text().splitlines()
        assert lines and all(json.loads(line)["instance_id"] for line in lines)
    assert result["commands"][0].startswith("nycc-bench evaluate --system random --tasks matching,ranking,")
    assert "alice" not in json.dumps(result) and not result["errors"]


def test_a_task_the_system_cannot_answer_is_skipped_with_its_reason(tmp_path: Path, dataset: str) -> None:
    store, settings = LocalStore(tmp_path), Settings(data_dir=tmp_path, dataset=dataset)
    queued(store, "length", ["matching", "explanation"])
    done = run_worker_once(store, settings)
    assert done is not None and done.status == FINISHED
    (result,) = store.results()
    assert "length answers multiple-choice tasks only" in result["skipped"]["explanation"]
    assert result["tasks"]["matching"]["scores"]["accuracy"]["value"] is not None


def test_a_record_that_is_not_whole_is_never_published() -> None:
    """The worker reads the status `evaluate` recorded (`wholeness`), and decides nothing of its own."""
    from nycc_bench.leaderboard.worker import unpublishable

    def entry(status: str = "complete", reason: str | None = None) -> dict:
        return {"n": 8, "n_failed": 0, "scores": {"accuracy": {"value": 0.5}}, "predictions": [], "status": status,
                **({"status_reason": reason} if reason else {})}

    assert unpublishable({"tasks": {"matching": entry()}, "errors": {}}) is None
    assert unpublishable({"tasks": {"caption_generation": entry("no judge", "add --judge x")}}) is None
    assert unpublishable({"tasks": {"matching": entry("incomplete", "3 of 8 items failed")}}) == \
        "matching: 3 of 8 items failed"
    assert unpublishable({"tasks": {"matching": {**entry(), "status": None, "n_failed": 2}}}) == \
        "matching: 2 of 8 items failed"  # a record from before `status`: failed items still count
    assert unpublishable({"tasks": {"matching": entry()}, "errors": {"ranking": "RuntimeError: boom"}}) == \
        "ranking: RuntimeError: boom"
    assert unpublishable({"tasks": {}, "skipped": {"humorbench": "needs a judge"}}) == \
        "no task was scored (humorbench: needs a judge)"


def test_a_job_that_fails_stores_nothing_and_can_be_resubmitted(tmp_path: Path, dataset: str) -> None:
    store, settings = LocalStore(tmp_path), Settings(data_dir=tmp_path, dataset=dataset)
    queued(store, "nonsense:spec", ["matching"], i=2)
    bad = run_worker_once(store, settings)
    assert bad is not None and bad.status == FAILED and "cannot read 'nonsense:spec'" in (bad.reason or "")
    assert store.results() == []  # a job with nothing done stores no result
    again = Job(id="job-3", model="nonsense:spec", spec="nonsense:spec", source="baseline", tasks=["matching"],
                user="alice", run_key="k2")
    assert store.add_job(again, 10, 1e9).status == PENDING  # the duplicate rule ignores the failed job


@pytest.mark.parametrize("declared", ["right", "wrong"])
def test_the_loaded_parameter_count_must_match_the_safetensors_headers(tmp_path: Path, dataset: str,
                                                                      declared: str) -> None:
    from tiny_models import save_tiny_llama

    from nycc_bench.leaderboard.validate import local_facts

    folder = save_tiny_llama(tmp_path / "tiny-llama")
    facts = local_facts(str(folder))
    params = facts.params if declared == "right" else 1
    store, settings = LocalStore(tmp_path / "store"), Settings(data_dir=tmp_path / "store", dataset=dataset)
    job = Job(id="job-1", model="tiny-llama", spec=facts.spec, source="local", tasks=["matching"], user="alice",
              run_key="k1", params=params, options={"dtype": "float32"})
    store.add_job(job, 10, 1e9)
    done = run_worker_once(store, settings)
    assert done is not None
    if declared == "wrong":
        assert done.status == FAILED and done.reason == (f"the loaded model has {facts.params:,} parameters but its "
                                                         "safetensors weights declare 1; refused (only the checked "
                                                         "safetensors weights may be loaded)")
        assert store.results() == []
    else:
        assert done.status == FINISHED, done.reason
        (result,) = store.results()
        assert result["model"]["parameters"] == facts.params


def test_a_job_whose_worker_died_is_resumed_not_lost(tmp_path: Path, dataset: str) -> None:
    store = LocalStore(tmp_path)
    settings = Settings(data_dir=tmp_path, dataset=dataset, heartbeat_timeout_s=60)
    job = queued(store, "random", ["matching"])
    assert store.claim_job("worker-that-dies") is not None
    partial = store.predictions_dir(job.id) / "predictions" / "matching.jsonl"
    run_task("matching", "random", partial, dataset=dataset, limit=2, progress=False)  # it got half way
    before = partial.read_text().splitlines()
    assert run_worker_once(store, settings) is None  # heartbeat still fresh: nobody takes it over yet
    with store._write() as db:
        db.execute("UPDATE jobs SET heartbeat_at = ?", (time.time() - 3600,))
    done = run_worker_once(store, settings)
    assert done is not None and done.status == FINISHED and done.attempts == 2
    after = partial.read_text().splitlines()
    assert after[:2] == before and len(after) == 4  # the first answers were kept, the rest added


def test_background_worker_thread(tmp_path: Path, dataset: str) -> None:
    store = LocalStore(tmp_path)
    worker = Worker(store, Settings(data_dir=tmp_path, dataset=dataset, poll_s=0.1))
    worker.start()
    try:
        queued(store, "random", ["matching"])
        deadline = time.time() + 600  # a guard against a hang, not a speed test
        while (status := store.get_job("job-1").status) in (PENDING, RUNNING):  # type: ignore[union-attr]
            assert time.time() < deadline
            time.sleep(0.1)
        assert status == FINISHED
    finally:
        worker.stopped.set()
        worker.join(timeout=10)
