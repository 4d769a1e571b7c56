"""The Hub store stays in sync: a results commit that fails leaves no row on the board (the job ends FAILED, so
the model may be submitted again), and a retry is idempotent: one model, one row, here and on the Hub."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_leaderboard_store import FakeHub, record

from nycc_bench.leaderboard import worker
from nycc_bench.leaderboard.hub_store import HubStore
from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.store import FAILED, FINISHED, Job, run_id


class FailingCommits(FakeHub):
    """Commits fail while `failing` is set (the Hub is down, or refuses the commit)."""

    failing = True

    def create_commit(self, repo_id: str, operations: list[Any], **kw: Any) -> None:
        if self.failing:
            raise ConnectionError("502 Bad Gateway")
        super().create_commit(repo_id, operations, **kw)


def scored(run: str) -> dict[str, Any]:
    """A whole record of one task (what a finished job gives)."""
    result = record(run, "org/model", {"matching": []})
    result["tasks"]["matching"].update(n=8, scores={"accuracy": {"value": 0.5, "ci_low": 0.2, "ci_high": 0.8,
                                                                 "n": 8}})
    return result


def submit(store: HubStore, i: int) -> Job:
    return store.add_job(Job(id=f"job-{i}", model="org/model", spec="random", source="baseline",
                             tasks=["matching"], user="alice", run_key="same-model"), 10, 1e9)


def test_a_failed_results_commit_leaves_no_row_and_the_resubmission_gives_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = FailingCommits(tmp_path / "hub")
    store = HubStore(tmp_path / "a", "org/requests", "org/results", api=hub)
    settings = Settings(data_dir=tmp_path / "a")
    monkeypatch.setattr(worker, "run_in_child", lambda job, store, settings: scored(job.id))
    submit(store, 1)
    done = worker.run_worker_once(store, settings)
    assert done is not None and done.status == FAILED and "cannot save result job-1" in (done.reason or "")
    assert store.results() == []  # the board shows what the Hub holds: nothing
    assert not (tmp_path / "hub/org/results/results").exists()
    hub.failing = False
    submit(store, 2)  # the failed job does not block the same model
    done = worker.run_worker_once(store, settings)
    assert done is not None and done.status == FINISHED
    assert [run_id(r) for r in store.results()] == ["job-2"]
    assert [p.name for p in (tmp_path / "hub/org/results/results").iterdir()] == ["job-2.json"]


def test_saving_the_same_result_again_is_idempotent(tmp_path: Path) -> None:
    hub = FailingCommits(tmp_path / "hub")
    hub.failing = False
    store = HubStore(tmp_path / "a", "org/requests", "org/results", api=hub)
    store.save_result(record("job-1", "org/model"))
    store.save_result(record("job-1", "org/model"))  # a retried commit
    assert [run_id(r) for r in store.results()] == ["job-1"]
    fresh = HubStore(tmp_path / "b", "org/requests", "org/results", api=hub)  # a restart sees the same
    assert [run_id(r) for r in fresh.results()] == ["job-1"]
    assert not list((tmp_path / "a" / ".staging").iterdir())
