"""One writer per run folder: a second process is refused with the holder's pid; results.json is replaced
atomically under concurrent writers; `score` refuses a predictions file that mixes two runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from nycc_bench.errors import NyccBenchError
from nycc_bench.evaluation import evaluate
from nycc_bench.results import read_results, write_results
from nycc_bench.run_lock import RunFolderBusy, run_lock
from nycc_bench.score import score

ROOT = Path(__file__).resolve().parents[1]
HOLD = """
import sys, time
from nycc_bench.run_lock import run_lock
with run_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_second_process_is_refused_with_the_folder_and_the_holders_pid(tmp_path: Path, sample_dataset: str,
                                                                          capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(RunFolderBusy, match=rf"^out: {out} is in use by another run \(pid {holder.pid}\)"):
            evaluate("random", ["matching"], dataset=sample_dataset, out=out, progress=False)
        from nycc_bench.cli import main

        code = main(["evaluate", "--system", "random", "--tasks", "matching", "--dataset", sample_dataset,
                     "--out", str(out), "--quiet"])
        assert code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"pid {holder.pid}" in err[0] and str(out) in err[0]
        assert not (out / "predictions").exists()  # nothing was written by the refused run
    finally:
        holder.kill()
        holder.wait()
    run = evaluate("random", ["matching"], dataset=sample_dataset, out=out, progress=False)  # the lock died with it
    assert run.scores["matching"]["accuracy"]["n"] == 8
    with run_lock(out), pytest.raises(RunFolderBusy):  # in one process too
        evaluate("random", ["matching"], dataset=sample_dataset, out=out, progress=False)


def test_concurrent_results_writes_never_fail_and_readers_never_see_half(tmp_path: Path, sample_dataset: str) -> None:
    record = evaluate("random", ["matching"], dataset=sample_dataset, out=tmp_path / "run", progress=False).record
    target = tmp_path / "results.json"
    write_results(target, record)
    errors: list[BaseException] = []
    stop = threading.Event()

    def write() -> None:
        try:
            for _ in range(50):
                write_results(target, record)
        except BaseException as err:
            errors.append(err)

    def read() -> None:
        while not stop.is_set():
            try:
                read_results(target)
            except BaseException as err:
                errors.append(err)

    readers = [threading.Thread(target=read) for _ in range(2)]
    writers = [threading.Thread(target=write) for _ in range(4)]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert errors == []
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_score_refuses_a_predictions_file_mixing_two_systems(tmp_path: Path, sample_dataset: str) -> None:
    from nycc_bench.runner import run_task

    path = tmp_path / "matching.jsonl"
    run_task("matching", "random", path, dataset=sample_dataset, progress=False)
    lines = path.read_text().splitlines()
    other = json.loads(lines[-1])
    other["system"] = "length"
    path.write_text("\n".join([*lines[:-1], json.dumps(other)]) + "\n")
    with pytest.raises(NyccBenchError, match=r"mixes records of 2 runs \(system 'length', 'random'\)"):
        score("matching", [path], dataset=sample_dataset)
    other["system"], other["prompt_version"] = "random", "another"
    path.write_text("\n".join([*lines[:-1], json.dumps(other)]) + "\n")
    with pytest.raises(NyccBenchError, match="prompt_version"):
        score("matching", [path], dataset=sample_dataset)
