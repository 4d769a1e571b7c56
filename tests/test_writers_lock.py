"""Every writer takes the run-folder lock (`evaluate` did; now `run`, `score --out`, `import` and the leaderboard
worker too): a second writer into a folder another process holds is refused with one line naming the folder and
the holder's pid, and writes nothing; a lock whose owner died is taken over with a log line."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nycc_bench.cli import main
from nycc_bench.errors import NyccBenchError
from nycc_bench.run_lock import OWNER_NAME, run_lock

ROOT = Path(__file__).resolve().parents[1]
HOLD = """
import sys, time
from nycc_bench.run_lock import run_lock
with run_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(120)
"""


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A run folder whose lock another process holds: (folder, holder pid)."""
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    yield out, proc.pid
    proc.kill()
    proc.wait()


def refused(capsys: pytest.CaptureFixture, argv: list[str], out: Path, pid: int) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "in use by another run" in err[0] and f"pid {pid}" in err[0] and str(out) in err[0]


def test_run_and_score_out_are_refused_while_another_process_writes_the_folder(
        held: tuple[Path, int], sample_dataset: str, capsys: pytest.CaptureFixture) -> None:
    out, pid = held
    target = out / "matching.jsonl"
    refused(capsys, ["run", "--system", "random", "--task", "matching", "--dataset", sample_dataset, "--out",
                     str(target), "--quiet"], out, pid)
    assert not target.exists()
    scored = out.parent / "scored"
    assert main(["run", "--system", "random", "--task", "matching", "--dataset", sample_dataset, "--out",
                 str(scored / "matching.jsonl"), "--quiet"]) == 0
    refused(capsys, ["score", "--task", "matching", "--predictions", str(scored / "matching.jsonl"), "--dataset",
                     sample_dataset, "--out", str(out / "score.json")], out, pid)
    assert not (out / "score.json").exists()
    inside = out / "predictions" / "matching.jsonl"  # where `evaluate --out RUN` writes its predictions
    refused(capsys, ["run", "--system", "random", "--task", "matching", "--dataset", sample_dataset, "--out",
                     str(inside), "--quiet"], out, pid)
    assert not inside.exists()


def test_import_is_refused_while_another_process_writes_the_folder(held: tuple[Path, int], tmp_path: Path) -> None:
    from nycc_bench.lmeval.importer import import_lm_eval

    out, pid = held
    (tmp_path / "lm").mkdir()
    with pytest.raises(NyccBenchError, match=rf"in use by another run \(pid {pid}\)"):
        import_lm_eval(tmp_path / "lm", out)


def test_the_worker_does_not_publish_a_folder_another_process_writes(tmp_path: Path, sample_dataset: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from nycc_bench.leaderboard import worker
    from nycc_bench.leaderboard.settings import Settings
    from nycc_bench.leaderboard.store import FAILED, Job, LocalStore

    store = LocalStore(tmp_path / "data")
    store.add_job(Job(id="job-1", model="random", spec="random", source="baseline", tasks=["matching"],
                      user="alice", run_key="k"), 10, 1e9)
    settings = Settings(data_dir=tmp_path / "data", dataset=sample_dataset)
    record = {"tasks": {"matching": {"n": 8, "n_failed": 0, "scores": {"accuracy": {"value": 0.5}},
                                     "predictions": []}}, "run_id": "job-1"}
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(store.predictions_dir("job-1"))],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        monkeypatch.setattr(worker, "run_in_child", lambda job, store, settings: record)
        done = worker.run_worker_once(store, settings)
    finally:
        proc.kill()
        proc.wait()
    assert done is not None and done.status == FAILED and "in use by another run" in (done.reason or "")
    assert store.results() == []


def test_a_lock_whose_owner_died_is_taken_over_with_a_log_line(tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    proc.kill()  # killed: its owner file stays behind
    proc.wait()
    assert (out / OWNER_NAME).read_text() == str(proc.pid)
    with caplog.at_level(logging.WARNING, logger="nycc_bench"), run_lock(out):
        assert (out / OWNER_NAME).read_text() == str(os.getpid())
    assert any(f"took over the lock of {out} from pid {proc.pid}" in r.getMessage() for r in caplog.records)
