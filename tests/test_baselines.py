"""One set of baseline runs: the seed covers every registered task x baseline that answers it (by the systems'
declarations), names its judges by stable specs, and the model cards are rendered from it; no committed file
holds a temporary path; the sample's offline judges are built on demand, once, whole."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
from temporary_paths import TEMPORARY

from nycc_bench import sample_judges as sj
from nycc_bench.baselines import DATASET, RUN, placeholders
from nycc_bench.cli import parser as cli_parser
from nycc_bench.evaluation import evaluate
from nycc_bench.judging import JudgeSpec
from nycc_bench.offline_judges import offline_judges
from nycc_bench.paths import SEED_DIR
from nycc_bench.publish import ROOT
from nycc_bench.publish.cards import slug, write_cards
from nycc_bench.results import read_results
from nycc_bench.systems import BASELINES
from nycc_bench.systems.registry import REGISTRY, answered, baseline_matrix, lookup
from nycc_bench.tasks import all_tasks


def _seed(spec: str) -> dict:
    return read_results(SEED_DIR / "results" / f"seed-{spec.split(':')[0]}.json")


def test_the_matrix_comes_from_the_systems_declarations() -> None:
    matrix = baseline_matrix()
    assert set(matrix) == set(BASELINES)
    tasks = all_tasks()
    for spec, names in matrix.items():
        cls = lookup(spec).cls
        assert names == [n for n, t in tasks.items() if t.kind in cls.answers
                         and ("pixels" if t.from_pixels else "description") in cls.inputs]
    every = {n for names in matrix.values() for n in names}
    assert every == set(tasks), "a registered task no baseline answers has no number on a fresh leaderboard"
    for entry in REGISTRY.values():  # every registered system declares kinds and inputs that exist
        assert entry.cls.answers and entry.cls.answers <= {"choice", "generation"}
        assert entry.cls.inputs and entry.cls.inputs <= {"description", "pixels"}


@pytest.mark.parametrize("spec", sorted(BASELINES))
def test_the_seed_covers_every_task_each_baseline_answers(spec: str) -> None:
    record = _seed(spec)
    assert record["model"]["spec"] == spec and record["dataset"]["sample"] is True
    assert list(record["tasks"]) == baseline_matrix()[spec]
    assert not record["skipped"] and not record["errors"]
    for name, entry in record["tasks"].items():
        assert entry["n"] > 0 and entry["n_failed"] == 0, name
        judge = entry["config"].get("judge") or {}
        if judge.get("name"):  # judged by the sample's offline judges, named so the command reruns anywhere
            assert judge["name"] in ("reward:sample", "embedding:sample"), (name, judge["name"])


@pytest.mark.parametrize("spec", sorted(BASELINES))
def test_the_seed_commands_run_as_written_in_an_empty_folder(spec: str) -> None:
    commands = _seed(spec)["commands"]
    assert commands[0] == f"nycc-bench build --source sample --out {DATASET}"
    cli = cli_parser()
    for command in commands[1:]:
        words = shlex.split(command)
        assert words[:2] == ["nycc-bench", "evaluate"]
        args = cli.parse_args(words[1:])
        assert args.dataset == DATASET and args.out.startswith(f"{RUN}/")
        assert set(args.tasks.split(",")) == set(baseline_matrix()[spec])


def test_the_cards_are_rendered_from_the_seed(tmp_path: Path) -> None:
    written = write_cards(SEED_DIR / "results", tmp_path)
    assert {p.parent.name for p in written} == {slug(s) for s in BASELINES}
    for path in written:
        committed = ROOT / "model_cards" / path.parent.name / "README.md"
        assert committed.read_bytes() == path.read_bytes(), f"{committed} is stale: run model_cards/make_cards.py"
    assert not (ROOT / "model_cards" / "results").exists(), "the cards' records are the seed's, not a second copy"


def test_no_committed_file_holds_a_temporary_path() -> None:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    found = []
    for name in filter(None, listed.decode().split("\0")):
        path = ROOT / name
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        found += [f"{name}: {m.group(0)}" for m in TEMPORARY.finditer(text)]
    assert not found, f"temporary paths in committed files: {found[:5]}"


def test_placeholders_name_the_folders_and_lead_with_the_build(tmp_path: Path) -> None:
    dataset, runs = tmp_path / "dataset", tmp_path / "runs"
    record = {"dataset": {"name": str(dataset)}, "tasks": {"t": {"predictions": [str(runs / "random" / "p.jsonl")]}},
              "commands": [f"nycc-bench evaluate --dataset {dataset} --out {runs}/random"]}
    out = placeholders(record, dataset, runs, "sample")
    assert out["commands"] == ["nycc-bench build --source sample --out DATASET",
                               "nycc-bench evaluate --dataset DATASET --out RUN/random"]
    assert out["dataset"]["name"] == "DATASET" and out["tasks"]["t"]["predictions"] == ["RUN/random/p.jsonl"]
    assert str(tmp_path) not in str(out)


def test_a_system_cannot_answer_what_it_does_not_declare(sample_dataset: str, tmp_path: Path) -> None:
    """The declarations are the systems' behaviour: every task a baseline does not declare is one it refuses."""
    for spec in BASELINES:
        refused = [n for n in all_tasks() if n not in answered(lookup(spec))]
        if not refused:
            continue
        run = evaluate(spec, refused, dataset=sample_dataset, out=tmp_path / slug(spec), limit=2, progress=False)
        assert set(run.record["skipped"]) == set(refused), (spec, run.record["skipped"])
        assert not run.record["tasks"]


def test_the_sample_judges_are_named_and_resolve_to_the_built_folders(monkeypatch, tmp_path: Path) -> None:
    specs = offline_judges()
    assert {s.name for s in specs.values()} == {"reward:sample", "embedding:sample"}
    assert JudgeSpec.parse("reward:sample") == JudgeSpec("reward", "sample")
    assert sj.judge_folder("reward", str(tmp_path)) == str(tmp_path)  # any other model is a folder or a repo
    monkeypatch.setattr(sj, "sample_judges_dir", lambda: tmp_path)
    assert sj.judge_folder("embedding", "sample") == str(tmp_path / "element_grader")
    assert offline_judges(tmp_path)["humorbench"].model == str(tmp_path / "element_grader")


def test_the_sample_judges_are_trained_once_whole_and_keyed(monkeypatch, tmp_path: Path) -> None:
    import shutil

    calls = []

    def fake_train(dataset: Path, out: Path, rubric: Path, **bounds: object) -> dict:
        calls.append(out)
        if len(calls) == 2:
            raise RuntimeError("killed mid-training")
        for name in sj.FOLDERS.values():
            (out / name).mkdir(parents=True)
            (out / name / "config.json").write_text("{}")
        return {}

    sample = tmp_path / "sample"
    shutil.copytree(sj.SAMPLE_DIR, sample)
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(sj, "SAMPLE_DIR", sample)
    monkeypatch.setattr(sj, "train_judge_folders", fake_train)
    first = sj.sample_judges_dir()
    assert first.parent == tmp_path / "cache" / "judges" and first.name == f"sample-{sj.sample_key()}"
    assert sj.sample_judges_dir() == first and len(calls) == 1  # trained once, then found
    edited = next(p for p in sorted(sample.rglob("*")) if p.is_file())
    edited.write_bytes(edited.read_bytes() + b"\n")
    assert sj.sample_key() not in first.name  # another sample is another set
    with pytest.raises(RuntimeError, match="killed"):
        sj.sample_judges_dir()
    assert sorted(p.name for p in first.parent.iterdir() if not p.name.endswith(".lock")) == [first.name]
    assert sj.sample_judges_dir() != first and len(calls) == 3


def test_cards_with_systems_run_the_same_function_and_name_no_folder(tmp_path: Path) -> None:
    """`nycc-bench cards --systems` evaluates through `run_baselines` too: the tasks each answers, the sample's
    judges by name, its folders as placeholders."""
    from nycc_bench.cli import main

    work = tmp_path / "work"
    assert main(["cards", "--results", str(tmp_path / "results"), "--out", str(tmp_path / "cards"), "--systems",
                 "length", "--source", "sample", "--work", str(work)]) == 0
    record = read_results(tmp_path / "results" / "baseline-length.json", run_dir=work / "runs" / "baseline-length")
    assert list(record["tasks"]) == baseline_matrix()["length"] and not record["skipped"]
    assert record["commands"][0] == "nycc-bench build --source sample --out DATASET"
    assert "--dataset DATASET" in record["commands"][1] and "--out RUN/baseline-length" in record["commands"][1]
    assert str(tmp_path) not in json.dumps(record)
    assert (tmp_path / "cards" / "baseline-length" / "README.md").is_file()
