"""`nycc_bench.evaluate` and `nycc-bench evaluate` on the sample: every task with the baselines, golden numbers,
one record shape everywhere (demo, leaderboard worker, model cards, seed), read-only scoring, refused
predictions, and the tasks as data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from float_tolerance import tolerance

from nycc_bench import evaluate, get_task, list_tasks, load_results
from nycc_bench.cli import main
from nycc_bench.errors import NyccBenchError
from nycc_bench.results import SCHEMA, read_results, upgrade, validate_results
from nycc_bench.score import score
from nycc_bench.tasks import resolve_tasks

# Golden numbers on the embedded sample: a silent drift in prompts, parsing, folds or scoring fails here. Each is
# compared at its source's tolerance (tests/float_tolerance.py): 1e-12 relative for arithmetic on counts and text,
# 1e-6 absolute for sbert_diversity (float32 mpnet embeddings averaged: the CPU's kernels move its last bits).
GOLDEN = {
    "random": {
        "matching": {"accuracy": (0.25, 8)},
        "ranking": {"accuracy": (0.375, 8), "crowd_accuracy": (0.0, 2), "ny_accuracy": (0.5, 6)},
        "matching_from_pixels": {"accuracy": (0.25, 8)},
        "explanation": {"rouge_l": (0.11559416836779421, 8), "bleu": (1.8297083669847662, 8)},
        # all 91 held-out contests pooled (test + validation): the sample can prompt four of them
        "caption_generation": {"average_ead": (0.9047729820871896, 4), "sbert_diversity": (0.7745736, 4),  # ±1e-6
                               # reward:sample is trained on invented captions (with the sample's prose as negatives):
                               # near chance on held-out groups, so these say the pipeline runs, not who is funnier
                               "win_rate_top10": (1.0, 8), "win_rate_200": (1.0, 8), "win_rate_median": (1.0, 8)},
        "humorbench": {"element_accuracy": (0.03225806451612903, 31), "caption_all_pass": (0.05555555555555555, 18)},
    },
    "length": {
        "matching": {"accuracy": (0.0, 8)},
        "ranking": {"accuracy": (0.75, 8), "crowd_accuracy": (1.0, 2), "ny_accuracy": (2 / 3, 6)},
    },
}


@pytest.fixture
def random_run(judged_random_run):
    """The session's judged run of `random` on every task (conftest; shared with test_truth)."""
    return judged_random_run


def test_every_task_is_evaluated_into_one_valid_record(random_run, sample_dataset: str) -> None:
    record = random_run.record
    assert record["schema"] == SCHEMA and validate_results(record) == record
    assert set(record["tasks"]) == set(list_tasks())  # random answers everything; judged tasks use offline judges
    assert record["model"]["spec"] == "random" and record["dataset"]["name"] == sample_dataset
    assert record["dataset"]["fingerprint"].startswith("sha256:") and record["dataset"]["sample"]
    assert {"python", "torch", "transformers", "datasets", "evaluate", "platform", "device"} <= set(
        record["environment"])
    for name, entry in record["tasks"].items():
        task = get_task(name)
        config = entry["config"]
        assert config["prompt_version"] == task.prompt_version
        assert {role: p["sha256"] for role, p in config["prompts"].items()} == task.prompt_sha256
        assert entry["n_failed"] == 0 and isinstance(config["deviations"], list)
        for key, value in entry["scores"].items():
            assert set(value) == {"value", "ci_low", "ci_high", "n"}, key
        for rel in entry["predictions"]:
            assert (random_run.path.parent / rel).is_file()
    assert "offline judge" in " ".join(record["tasks"]["humorbench"]["config"]["deviations"])
    assert load_results(random_run.path.parent).record == record


@pytest.mark.parametrize("system", sorted(GOLDEN))
def test_golden_numbers(system: str, sample_dataset: str, random_run, tmp_path: Path) -> None:
    run = random_run if system == "random" else evaluate(system, list(GOLDEN[system]), dataset=sample_dataset,
                                                          out=tmp_path, progress=False)
    for task, scores in GOLDEN[system].items():
        for key, (value, n) in scores.items():
            got = run.scores[task][key]
            assert got["n"] == n, (task, key)
            assert got["value"] == pytest.approx(value, **tolerance(key)), (task, key, got)


def test_the_cli_writes_the_same_record(sample_dataset: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "cli"
    assert main(["evaluate", "--system", "random", "--tasks", "hessel", "--dataset", sample_dataset,
                 "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "Matching" in printed and "results:" in printed
    record = read_results(out / "results.json")
    assert set(record["tasks"]) == set(resolve_tasks("hessel"))
    assert (out / "predictions" / "matching.jsonl").is_file()
    assert (out / "predictions" / "matching_fold1.jsonl").is_file()
    assert record["tasks"]["matching"]["scores"] == evaluate(
        "random", ["matching"], dataset=sample_dataset, out=tmp_path / "api", progress=False).scores["matching"]


def test_score_leaves_its_input_byte_identical_and_refuses_other_tasks(random_run, sample_dataset: str) -> None:
    folder = random_run.path.parent / "predictions"
    files = sorted(folder.iterdir())
    before = {f: f.read_bytes() for f in files}
    result = score("matching", [folder / "matching.jsonl", folder / "matching_fold1.jsonl"], dataset=sample_dataset,
                   folds=[0, 1])
    assert result["scores"] == random_run.scores["matching"]
    with pytest.raises(NyccBenchError, match="made for task 'ranking', not 'matching'"):
        score("matching", [folder / "ranking.jsonl"], dataset=sample_dataset)
    with pytest.raises(NyccBenchError, match="made for config 'matching_1', not 'matching'"):
        score("matching", [folder / "matching_fold1.jsonl"], dataset=sample_dataset, folds=[0])
    with pytest.raises(NyccBenchError, match="split"):
        score("matching", [folder / "matching.jsonl"], dataset=sample_dataset, split="validation")
    assert {f: f.read_bytes() for f in files} == before


def test_a_torn_predictions_file_is_not_repaired_by_score(random_run, sample_dataset: str, tmp_path: Path) -> None:
    src = random_run.path.parent / "predictions" / "caption_generation.jsonl"
    path = tmp_path / "gen.jsonl"
    shutil.copy(src, path)
    shutil.copy(str(src) + ".meta.json", str(path) + ".meta.json")
    lines = path.read_bytes().splitlines(keepends=True)
    torn = b"".join(lines[:-1]) + lines[-1][:20]  # the writer was killed in the middle of the last record
    path.write_bytes(torn)
    with pytest.raises(NyccBenchError, match="no prediction for 1 of"):
        score("caption_generation", [path], dataset=sample_dataset)
    assert path.read_bytes() == torn  # never repaired by a reader


def test_a_task_variant_is_data_only() -> None:
    """matching_5shot is a YAML file and nothing else: it inherits matching and changes one default."""
    variant, base = get_task("matching_5shot"), get_task("matching")
    assert variant.option_values()["shots"] == 5 and base.option_values()["shots"] == 0
    assert variant.prompts == base.prompts and variant.metric == base.metric
    folder = Path(__import__("nycc_bench").__file__).parent / "tasks"
    assert sorted(p.name for p in folder.glob("hessel2023/matching_5shot*")) == ["matching_5shot.yaml"]


def test_prompt_version_follows_the_prompt_text() -> None:
    from dataclasses import replace

    task = get_task("matching")
    changed = replace(task, prompts={"instruction": task.prompts["instruction"] + " "})
    assert changed.prompt_version != task.prompt_version and changed.prompt_version.startswith("matching-")


def test_tasks_show_json_lists_defaults_and_deviations(capsys: pytest.CaptureFixture) -> None:
    for name in list_tasks():
        assert main(["tasks", "show", name, "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown["name"] == name and isinstance(shown["deviations"], list)
        assert {"dataset", "prompts", "parser", "scorer", "judge", "decoding", "options", "version"} <= set(shown)
    assert main(["tasks", "show", "caption_generation", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["decoding"] == {"temperature": 0.7, "top_p": 0.95, "repetition_penalty": 1.15, "seed": 0,
                                 "max_new_tokens": 512}
    # issue 22: upstream's settings per system kind, read by the systems (setting=per_system, the default)
    kinds = shown["by_system_kind"]
    assert kinds["hf"]["decoding"] == {"temperature": 0.7, "top_p": 0.95, "repetition_penalty": 1.15, "seed": 2024,
                                       "max_new_tokens": 256, "samples": 10}
    assert kinds["hf"]["options"] == {"prompt": "save_results", "description": "gpt4o"}
    assert kinds["openai"]["decoding"] == {"max_new_tokens": 1000}
    assert kinds["openai"]["options"] == {"prompt": "caption_gen", "description": "hessel", "parser": "caption_gen"}
    assert shown["options"]["setting"]["default"] == "per_system" and "uniform" in shown["options"]["setting"]["values"]
    assert not any("upstream's API runs" in d for d in shown["deviations"])  # a default API run is upstream's
    assert shown["judge"]["settings"]["rule"] == "zhang_top2"
    assert main(["tasks", "show", "matchin"]) == 2
    assert "Did you mean 'matching'" in capsys.readouterr().err


def test_settings_per_system_kind() -> None:
    """`decoding_for` / `options_for`: a kind's upstream settings under setting=per_system, the single setting
    under uniform or for a kind without an entry; a set option is kept; `when: path=a|b` limits a paper setting."""
    from nycc_bench.tasks.definition import PaperSetting

    task = get_task("caption_generation")
    values = task.option_values()
    assert task.decoding_for("hf", values)["seed"] == 2024 and task.decoding_for("random", values) == task.decoding
    assert task.decoding_for("hf", {**values, "setting": "uniform"}) == task.decoding
    assert task.options_for("openai", values)["prompt"] == "caption_gen"
    assert task.options_for("random", values)["prompt"] == "paper"
    assert task.options_for("hf", {**values, "prompt": "paper"})["prompt"] == "paper"
    setting = PaperSetting("x", "options.p", (1,), "s", "p is {value}", when="system.kind=hf|vlm")
    assert setting.differs({"system": {"kind": "vlm"}, "options": {"p": 2}}) == "p is 2"
    assert setting.differs({"system": {"kind": "openai"}, "options": {"p": 2}}) is None
    from nycc_bench.systems.hf import sent_settings

    uniform = {**values, "setting": "uniform"}  # an hf: model in the single setting: each difference is named
    effective = {"options": task.options_for("hf", uniform),
                 "system": {"kind": "hf", "dtype": "float16",
                            "request": sent_settings(task.decoding_for("hf", uniform))}}
    assert task.computed_deviations(effective) == [
        "Prompted with the paper prompt; the published zero-shot rows were generated from the prompt stored in "
        "upstream's examples/generations/zs.csv (`save_results`).",
        "Generations are capped at 512 new tokens; upstream's Hugging Face runs capped them at 256.",
        "Sampled with seed 0; upstream seeded 2024.",
        "1 generation(s) per contest; upstream sampled 10 one-caption generations and kept the first line of each.",
        "Sampling seeded none (none: per batch, from the seed and the contests' ids); upstream seeded once per run.",
        "Generation config: none (none: a fresh one with the task's settings only); upstream started from the "
        "checkpoint's own (its defaults, such as top_k, kept)."]
    effective = {"options": task.options_for("hf", values),
                 "system": {"kind": "hf", "dtype": "float16",
                            "request": sent_settings(task.decoding_for("hf", values))}}
    assert task.computed_deviations(effective) == []  # the default: upstream's
    matching = get_task("matching")  # no `by_system_kind`: the task's decoding for every kind
    assert not matching.by_system_kind and matching.decoding_for("hf", matching.option_values()) == matching.decoding


def test_unknown_task_and_bad_options_are_one_line_errors(sample_dataset: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture) -> None:
    assert main(["evaluate", "--system", "random", "--tasks", "matchng", "--dataset", sample_dataset,
                 "--out", str(tmp_path)]) == 2
    assert main(["evaluate", "--system", "random", "--tasks", "humorbench", "--dataset", sample_dataset,
                 "--task-option", "humorbench.unit=sentence", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "Did you mean 'matching'" in err[0] and "humorbench.unit must be one of" in err[1]


def test_old_results_files_are_upgraded() -> None:
    old = {"format": "nycc-bench-results/1", "model": {"spec": "random", "name": "random", "revision": None},
           "dataset": "x", "dataset_revision": None, "sample_data": True,
           "results": [{"task": "matching", "configs": ["matching"], "split": "test", "folds": [0],
                        "metric": "nycc_accuracy", "prompt_version": "matching-v1", "n": 4, "n_unparsed": 0,
                        "scores": {"accuracy": 0.5, "ci_low": 0.0, "ci_high": 1.0, "n": 4}}],
           "commands": ["nycc-bench run ..."], "nycc_bench": "0.1.0"}
    new = validate_results(upgrade(old))
    assert new["tasks"]["matching"]["scores"]["accuracy"] == {"value": 0.5, "ci_low": 0.0, "ci_high": 1.0, "n": 4}
