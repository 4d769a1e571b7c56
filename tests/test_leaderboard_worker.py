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


def test_a_failing_task_fails_the_job_with_its_reason_and_keeps_the_rest(tmp_path: Path, dataset: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import nycc_bench.evaluation as evaluation

    real = evaluation._evaluate_task

    def flaky(name: str, *args: object, **kwargs: object) -> object:
        if name == "ranking":
            raise RuntimeError("the GPU fell over")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(evaluation, "_evaluate_task", flaky)
    store, settings = LocalStore(tmp_path), Settings(data_dir=tmp_path, dataset=dataset)
    queued(store, "random", ["matching", "ranking"])
    done = run_worker_once(store, settings)
    assert done is not None and done.status == FAILED
    assert "ranking: RuntimeError: the GPU fell over" in (done.reason or "")
    (result,) = store.results()
    assert "ranking" in result["errors"] and "ranking" not in result["tasks"]
    assert result["tasks"]["matching"]["scores"]["accuracy"]["value"] is not None
    queued(store, "nonsense:spec", ["matching"], i=2)
    bad = run_worker_once(store, settings)
    assert bad is not None and bad.status == FAILED and "cannot read 'nonsense:spec'" in (bad.reason or "")
    assert len(store.results()) == 1  # a job with nothing done stores no result


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
        deadline = time.time() + 60
        while (status := store.get_job("job-1").status) in (PENDING, RUNNING):  # type: ignore[union-attr]
            assert time.time() < deadline
            time.sleep(0.1)
        assert status == FINISHED
    finally:
        worker.stopped.set()
        worker.join(timeout=10)
