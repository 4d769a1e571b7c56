"""The leaderboard's store: atomic claims, concurrent submissions, crash recovery, results, seeding, Hub sync."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from nycc_bench.leaderboard import SEED_DIR, Settings, create_app
from nycc_bench.leaderboard.hub_store import HubStore, request_bytes
from nycc_bench.leaderboard.store import (
    FAILED,
    FINISHED,
    PENDING,
    RUNNING,
    Job,
    LocalStore,
    Refused,
    StoreUnavailable,
    check_run_id,
    run_id,
)
from nycc_bench.results import SCHEMA

ROOT = Path(__file__).resolve().parents[1]


def record(run: str, name: str, predictions: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """A minimal v2 results record of a leaderboard run (`extra.run_id`)."""
    tasks = {task: {"config": {"name": task, "deviations": []}, "scores": {}, "n": 0, "n_unparsed": 0,
                    "n_failed": 0, "n_error": 0, "details": {}, "predictions": files}
             for task, files in (predictions or {}).items()}
    return {"schema": SCHEMA, "nycc_bench_version": "0.2.0", "created_at": "2026-01-01", "model": {"spec": name,
            "name": name}, "dataset": {"name": "d"}, "environment": {}, "tasks": tasks,
            "skipped": {} if tasks else {"matching": "not run"}, "extra": {"run_id": run}}


def job(i: int, user: str = "alice", run_key: str | None = None, tasks: tuple[str, ...] = ("matching",)) -> Job:
    return Job(id=f"job-{i:03d}", model=f"org/model-{i}", spec=f"hf:org/model-{i}@abc", source="hub",
               tasks=list(tasks), user=user, run_key=run_key or f"key-{i}", commit="abc", submitted_at=1000.0 + i)


def test_claim_is_oldest_first_and_atomic(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    for i in (3, 1, 2):
        store.add_job(job(i), rate_limit=10, window_s=1e9)
    claimed: list[Job | None] = []
    lock = threading.Lock()

    def claim(name: str) -> None:
        got = store.claim_job(name)
        with lock:
            claimed.append(got)

    threads = [threading.Thread(target=claim, args=(f"w{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = sorted(j.id for j in claimed if j is not None)
    assert got == ["job-001", "job-002", "job-003"]  # each job claimed exactly once, the rest found none
    assert claimed.count(None) == 5
    assert [j.status for j in store.jobs()] == [RUNNING] * 3


def test_concurrent_submissions_lose_nothing_and_admit_one_duplicate(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    errors: list[str] = []

    def add(j: Job) -> None:
        try:
            store.add_job(j, rate_limit=1000, window_s=1e9)
        except Refused as err:
            errors.append(str(err))

    distinct = [threading.Thread(target=add, args=(job(i, user=f"u{i}"),)) for i in range(40)]
    same = [threading.Thread(target=add, args=(job(100 + i, user=f"v{i}", run_key="same"),)) for i in range(10)]
    for t in distinct + same:
        t.start()
    for t in distinct + same:
        t.join()
    ids = {j.id for j in store.jobs()}
    assert {f"job-{i:03d}" for i in range(40)} <= ids
    assert len(ids) == 41 and len(errors) == 9 and all("duplicate" in e for e in errors)


def test_rate_limit_per_user_under_concurrency(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    refused: list[str] = []
    now = time.time()

    def add(i: int, user: str) -> None:
        j = job(i, user=user)
        j.submitted_at = now + i / 1000
        try:
            store.add_job(j, rate_limit=3, window_s=3600)
        except Refused as err:
            refused.append(str(err))

    threads = [threading.Thread(target=add, args=(i, "mallory")) for i in range(12)]
    threads.append(threading.Thread(target=add, args=(99, "bob")))  # another user has their own bucket
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    users = [j.user for j in store.jobs()]
    assert users.count("mallory") == 3 and users.count("bob") == 1
    assert len(refused) == 9 and all("rate limit: mallory has submitted 3 models in the last 1 h" in r
                                     for r in refused)
    late = job(200, user="mallory")
    late.submitted_at = now + 3601  # the window slides: older submissions stop counting
    store.add_job(late, rate_limit=3, window_s=3600)


def test_duplicates_are_per_task_and_failed_jobs_can_be_resubmitted(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    store.add_job(job(1, run_key="k", tasks=("matching", "ranking")), 10, 1e9)
    with pytest.raises(Refused, match=r"duplicate: org/model-2 .* already has ranking in job job-001 \(PENDING\)"):
        store.add_job(job(2, run_key="k", tasks=("ranking", "explanation")), 10, 1e9)
    store.add_job(job(3, run_key="k", tasks=("explanation",)), 10, 1e9)  # a task not yet asked for is fine
    claimed = store.claim_job("w")
    assert claimed is not None and claimed.id == "job-001"
    assert store.finish_job("job-001", "w", FAILED, "boom")
    store.add_job(job(4, run_key="k", tasks=("matching",)), 10, 1e9)  # failed → may be resubmitted


def test_recovery_requeues_then_fails_after_max_attempts(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    store.add_job(job(1), 10, 1e9)
    for attempt in (1, 2):
        claimed = store.claim_job("dead-worker")
        assert claimed is not None and claimed.attempts == attempt
        assert store.recover(timeout_s=60, max_attempts=2) == []  # fresh heartbeat: left alone
        with store._write() as db:  # the worker dies: its heartbeat grows old
            db.execute("UPDATE jobs SET heartbeat_at = ?", (time.time() - 3600,))
        recovered = store.recover(timeout_s=60, max_attempts=2)
        assert [j.id for j in recovered] == ["job-001"]
    after = store.get_job("job-001")
    assert after is not None and after.status == FAILED and "stopped 2 times" in (after.reason or "")
    assert not store.finish_job("job-001", "dead-worker", FINISHED)  # a zombie worker cannot overwrite it


def test_requeued_job_is_pending_with_reason(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    store.add_job(job(1), 10, 1e9)
    store.claim_job("w1")
    with store._write() as db:
        db.execute("UPDATE jobs SET heartbeat_at = 0")
    store.recover(timeout_s=1, max_attempts=3)
    j = store.get_job("job-001")
    assert j is not None and j.status == PENDING and j.worker is None and "requeued" in (j.reason or "")
    assert not store.heartbeat("job-001", "w1")  # the old worker is told the job is no longer its own


def test_results_are_atomic_files_and_paths_stay_inside(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    store.save_result(record("r1", "m"))
    assert [run_id(r) for r in store.results()] == ["r1"]
    assert not list((tmp_path / "results").glob(".*"))  # no temporary file left behind
    with pytest.raises(ValueError, match="leaves the store"):
        store.resolve("../../etc/passwd")
    for bad in ("../x", "A", "a/b", "", "x" * 81):
        with pytest.raises(ValueError):
            check_run_id(bad)


def test_seed_only_when_empty(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    from nycc_bench.systems import BASELINES

    assert store.seed(SEED_DIR) == len(BASELINES)  # the seed holds every registered baseline (`nycc-bench seed`)
    names = sorted(r["model"]["name"] for r in store.results())
    assert names == sorted(BASELINES)
    assert all(r["dataset"]["sample"] for r in store.results())
    first = store.results()[0]
    for entry in first["tasks"].values():
        assert all(store.resolve(p).is_file() for p in entry["predictions"])
    assert store.seed(SEED_DIR) == 0


def test_unreachable_store_is_an_error_banner_not_sample_data(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the store folder should be")
    _, app = create_app(Settings(data_dir=blocker, dataset=str(tmp_path / "none")), start_worker=False)
    results, error = app.results()
    assert results == [] and error and "local store" in error
    html = app.banner_html(error, results)
    assert "cannot be read" in html and "nycc-error" in html


class FakeHub:
    """An `HfApi` stand-in: repos are folders; uploads and commits write into them."""

    def __init__(self, root: Path, fail: bool = False) -> None:
        self.root, self.fail, self.commits = root, fail, 0

    def snapshot_download(self, repo_id: str, repo_type: str, local_dir: str) -> str:
        if self.fail:
            raise ConnectionError("Hub unreachable")
        src = self.root / repo_id
        for path in src.rglob("*") if src.exists() else []:
            if path.is_file():
                target = Path(local_dir) / path.relative_to(src)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(path.read_bytes())
        return local_dir

    def upload_file(self, path_or_fileobj: bytes, path_in_repo: str, repo_id: str, **_: Any) -> None:
        if self.fail:
            raise ConnectionError("Hub unreachable")
        target = self.root / repo_id / path_in_repo
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path_or_fileobj)

    def create_commit(self, repo_id: str, operations: list[Any], **_: Any) -> None:
        self.commits += 1
        for op in operations:
            target = self.root / repo_id / op.path_in_repo
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(Path(op.path_or_fileobj).read_bytes())


def test_hub_store_mirrors_requests_and_results_and_restores_the_queue(tmp_path: Path) -> None:
    hub = FakeHub(tmp_path / "hub")
    store = HubStore(tmp_path / "a", "org/requests", "org/results", api=hub)
    store.add_job(job(1), 10, 1e9)
    store.claim_job("w")
    pushed = json.loads((tmp_path / "hub/org/requests/requests/job-001.json").read_text())
    assert pushed["status"] == RUNNING and pushed["spec"] == "hf:org/model-1@abc"
    assert request_bytes(Job.from_json(pushed)) == request_bytes(store.get_job("job-001"))  # type: ignore[arg-type]
    run_dir = store.predictions_dir("job-001")
    run_dir.mkdir(parents=True)
    (run_dir / "matching.jsonl").write_text('{"instance_id": "x", "prediction": "A"}\n')
    saved = record("job-001", "org/model-1", {"matching": ["predictions/job-001/matching.jsonl"]})
    saved["tasks"]["matching"]["n"] = 1  # the board checks counts against the predictions files
    store.save_result(saved)
    assert hub.commits == 1 and (tmp_path / "hub/org/results/predictions/job-001/matching.jsonl").is_file()
    assert not any("token" in p.read_text().lower() for p in (tmp_path / "hub").rglob("*.json"))
    # a restarted Space (empty disk) gets the queue and the results back from the Hub
    fresh = HubStore(tmp_path / "b", "org/requests", "org/results", api=hub)
    restored = fresh.get_job("job-001")
    assert restored is not None and restored.status == RUNNING
    assert [run_id(r) for r in fresh.results()] == ["job-001"]
    assert fresh.resolve("predictions/job-001/matching.jsonl").is_file()


def test_hub_store_failures_are_visible(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable, match="cannot download"):
        HubStore(tmp_path / "a", "org/requests", "org/results", api=FakeHub(tmp_path / "hub", fail=True))
    hub = FakeHub(tmp_path / "hub")
    store = HubStore(tmp_path / "b", "org/requests", "org/results", api=hub)
    hub.fail = True
    store.add_job(job(1), 10, 1e9)  # queued locally; the upload is retried on the next change
    assert "not yet saved" in (store.health() or "")
    hub.fail = False
    store.add_job(job(2), 10, 1e9)
    assert store.health() is None
    assert sorted(p.name for p in (tmp_path / "hub/org/requests/requests").iterdir()) == ["job-001.json",
                                                                                          "job-002.json"]


def test_an_unreadable_result_is_left_out_and_named_and_the_rest_is_shown(tmp_path: Path) -> None:
    _, app = create_app(Settings(data_dir=tmp_path / "data", dataset=str(tmp_path / "none")), start_worker=False)
    store = app.store
    seeded = len(store.results())
    assert seeded and store.problems() == []
    (store.root / "results" / "broken.json").write_text('{"schema": "nycc-bench-results/2", "tas')
    (store.root / "results" / "wrong.json").write_text(json.dumps({"schema": "nope"}))
    results, error = app.results()
    assert len(results) == seeded and error is None
    problems = store.problems()
    assert [p.split(":")[0] for p in problems] == ["results/broken.json", "results/wrong.json"]
    banner = app.banner_html(error, results)
    assert "Left out" in banner and "results/broken.json" in banner and "results/wrong.json" in banner
    assert "cannot be read" not in banner  # not the store-down banner: the board is shown
    (store.root / "results" / "broken.json").unlink()
    (store.root / "results" / "wrong.json").unlink()
    assert len(app.results()[0]) == seeded and store.problems() == []


class FlakyHub(FakeHub):
    """A Hub that refuses the upload of one request file until told otherwise."""

    def __init__(self, root: Path, refuse: str) -> None:
        super().__init__(root)
        self.refuse = refuse

    def upload_file(self, path_or_fileobj: bytes, path_in_repo: str, repo_id: str, **kw: Any) -> None:
        if self.refuse and path_in_repo.endswith(self.refuse):
            raise ConnectionError("413 payload too large")
        super().upload_file(path_or_fileobj, path_in_repo, repo_id, **kw)


def test_a_request_that_cannot_be_uploaded_is_retried_reported_and_does_not_block_others(tmp_path: Path) -> None:
    hub = FlakyHub(tmp_path / "hub", refuse="job-001.json")
    store = HubStore(tmp_path / "a", "org/requests", "org/results", api=hub)
    store.add_job(job(1), 10, 1e9)
    store.add_job(job(2), 10, 1e9)
    store.add_job(job(3), 10, 1e9)
    folder = tmp_path / "hub/org/requests/requests"
    assert sorted(p.name for p in folder.iterdir()) == ["job-002.json", "job-003.json"]  # the others went on
    health = store.health() or ""
    assert "1 request(s) not yet saved" in health and "job-001 (413 payload too large)" in health
    hub.refuse = ""
    store.claim_job("w")  # the next change retries it
    assert sorted(p.name for p in folder.iterdir()) == ["job-001.json", "job-002.json", "job-003.json"]
    assert store.health() is None


def test_a_hub_store_starts_whatever_one_request_file_holds(tmp_path: Path) -> None:
    hub = FakeHub(tmp_path / "hub")
    store = HubStore(tmp_path / "a", "org/requests", "org/results", api=hub)
    store.add_job(job(1), 10, 1e9)
    folder = tmp_path / "hub/org/requests/requests"
    for name, text in {"bad-json.json": "{", "a-list.json": "[1, 2]", "no-id.json": '{"model": "x"}',
                       "bad-id.json": json.dumps({**job(9).to_json(), "id": "../../etc"}),
                       "bad-tasks.json": json.dumps({**job(8).to_json(), "tasks": "matching"})}.items():
        (folder / name).write_text(text)
    fresh = HubStore(tmp_path / "b", "org/requests", "org/results", api=hub)
    assert [j.id for j in fresh.jobs()] == ["job-001"]
    assert sorted(p.split(":")[0] for p in fresh.problems()) == [
        "requests/a-list.json", "requests/bad-id.json", "requests/bad-json.json", "requests/bad-tasks.json",
        "requests/no-id.json"]


def test_space_app_builds_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import runpy

    monkeypatch.setenv("NYCC_LB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NYCC_LB_DATASET", str(tmp_path / "no-dataset"))
    monkeypatch.setenv("NYCC_LB_WORKER", "0")
    namespace = runpy.run_path(str(ROOT / "spaces" / "leaderboard" / "app.py"), run_name="space_app")
    assert type(namespace["demo"]).__name__ == "Blocks"
    assert len(LocalStore(tmp_path / "data").results()) == 3  # seeded on first start
    child = runpy.run_path(str(ROOT / "spaces" / "leaderboard" / "app.py"), run_name="__mp_main__")
    assert "demo" not in child  # a job's spawn process re-imports the main module: it builds no second app
