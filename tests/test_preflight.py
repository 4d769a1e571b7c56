"""The preflight: every problem a run would meet (a dataset config a baseline or task reads, a judge's API key, an
offline judge's folder, the disk) is found before the system answers anything, all at once, exit 2, nothing
written; `--dry-run` prints the same checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from nycc_bench.cli import main
from nycc_bench.evaluation import evaluate
from nycc_bench.preflight import PreflightFailed
from nycc_bench.systems import Output, System


@pytest.fixture()
def no_explanation(sample_dataset: str, tmp_path: Path) -> str:
    """The sample without Hessel's `explanation` config (the `random` baseline's HumorBench answers come from it)."""
    copy = tmp_path / "dataset"
    shutil.copytree(sample_dataset, copy)
    shutil.rmtree(copy / "data" / "explanation")
    return str(copy)


@pytest.fixture()
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "NYCC_JUDGE_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


class Counting(System):
    """A system that counts what it is asked (the preflight must ask nothing)."""

    spec = "counting"

    def __init__(self) -> None:
        self.asked = 0

    def choose(self, task, instances):
        self.asked += len(instances)
        return [Output(raw=i.letters[0], letter=i.letters[0]) for i in instances]

    def generate(self, task, instances):
        self.asked += len(instances)
        return [Output(raw="1. a caption") for _ in instances]

    def reads(self, task):
        return [("explanation", "train")]


def test_every_problem_before_the_first_call(no_explanation: str, no_key: None, tmp_path: Path) -> None:
    system = Counting()
    out = tmp_path / "run"
    with pytest.raises(PreflightFailed) as caught:
        evaluate(system, ["matching", "humorbench"], dataset=no_explanation, judge="humorbench_gpt4o", out=out,
                 progress=False)
    problems = caught.value.problems
    assert len(problems) == 2, problems
    assert "no config 'explanation'" in problems[0] and "humorbench (counting)" in problems[0]
    assert "OPENAI_API_KEY" in problems[1] and "humorbench_gpt4o" in problems[1]
    assert system.asked == 0 and not out.exists()  # nothing answered, nothing written


def test_cli_prints_each_problem_and_exits_2(no_explanation: str, no_key: None, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    argv = ["evaluate", "--system", "random", "--tasks", "humorbench", "--dataset", no_explanation, "--judge",
            "humorbench_gpt4o", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "error:" in line] == err and len(err) == 2, err
    assert "no config 'explanation'" in err[0] and "OPENAI_API_KEY" in err[1]
    assert not out.exists()
    # the dry run prints the same checks (the passing ones too) and exits 2 as well
    assert main([*argv, "--dry-run"]) == 2
    printed = capsys.readouterr().out
    assert "check dataset: ok (humorbench/test)" in printed
    assert "no config 'explanation'" in printed and "OPENAI_API_KEY" in printed
    assert "2 problem(s): the run would stop before its first call" in printed


def test_offline_judge_folder_and_disk(sample_dataset: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil as shutil_module
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil_module, "disk_usage", lambda _: usage(10**6, 10**6 - 1000, 1000))
    with pytest.raises(PreflightFailed) as caught:
        evaluate("random", ["caption_generation"], dataset=sample_dataset,
                 judge="reward:" + str(tmp_path / "missing" / "judge"), out=tmp_path / "run", progress=False)
    problems = caught.value.problems
    assert any(p.startswith("judge: reward:") and "no model folder" in p for p in problems), problems
    assert any(p.startswith("disk: ") and "MB free" in p for p in problems), problems
    assert not (tmp_path / "run").exists()


def test_score_reports_every_problem(judged_random_run, sample_dataset: str, no_key: None, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = Path(judged_random_run.path).parent
    predictions = folder / judged_random_run.record["tasks"]["humorbench"]["predictions"][0]
    copy = tmp_path / "dataset"
    shutil.copytree(sample_dataset, copy)
    shutil.rmtree(copy / "data" / "humorbench")
    argv = ["score", "--task", "humorbench", "--predictions", str(predictions), "--dataset", str(copy),
            "--judge", "humorbench_gpt4o"]
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "no config 'humorbench'" in err[0] and "OPENAI_API_KEY" in err[1], err


def test_worker_checks_before_the_model_loads(no_explanation: str, no_key: None, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from nycc_bench.leaderboard import worker
    from nycc_bench.leaderboard.settings import Settings
    from nycc_bench.leaderboard.store import Job

    loads: list[str] = []
    monkeypatch.setattr("nycc_bench.systems.make_system", lambda spec, *a, **k: loads.append(spec))
    job = Job(id="j1", model="m", spec="hf:some/model", source="hub", tasks=["humorbench"], user="u", run_key="k")
    settings = Settings(data_dir=tmp_path, dataset=no_explanation, judges={"humorbench": "humorbench_gpt4o"})
    with pytest.raises(PreflightFailed) as caught:
        worker.evaluate_job(job, tmp_path / "out", settings, lambda text: None)
    assert "OPENAI_API_KEY" in caught.value.problems[0] and not loads
