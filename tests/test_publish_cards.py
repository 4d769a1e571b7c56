"""Results files (one format, checked) and the model cards generated from them; the committed baseline cards are
up to date with their results files, labelled as sample data, and record commands the CLI accepts."""

from __future__ import annotations

import copy
import json
import math
import shlex
from pathlib import Path

import pytest
from huggingface_hub import ModelCard

from nycc_bench.builders import ALL_CONFIGS
from nycc_bench.cli import parser as cli_parser
from nycc_bench.publish import ROOT
from nycc_bench.publish.cards import base_model, is_ours, main, render_card, slug, write_cards
from nycc_bench.results import (
    FORMAT,
    ResultsError,
    dumps,
    make_results,
    model_ref,
    read_results,
    read_results_dir,
    validate_results,
    write_results,
)
from nycc_bench.tasks import TASKS

RESULTS = ROOT / "model_cards" / "results"
RESULT = {"task": "ranking", "configs": ["ranking", "ranking_1"], "split": "test", "folds": [0, 1],
          "metric": "crowd_ny_accuracy", "prompt_version": "ranking-v1", "n": 8, "n_unparsed": 1,
          "scores": {"accuracy": 0.5, "ci_low": 0.25, "ci_high": 0.75, "crowd_accuracy": 0.0, "ny_accuracy": 2 / 3,
                     "n": 8, "n_crowd": 2, "n_ny": 6, "fold_accuracies": {0: 0.5, 1: 0.5}}}
EXPECTED_TASKS = {
    "baseline-random": [t for t in TASKS if t != "humorbench"],
    "baseline-length": ["matching", "matching_from_pixels", "ranking", "ranking_from_pixels"],
    "baseline-sbert-all-MiniLM-L6-v2": ["matching", "ranking", "explanation", "caption_generation"],
}


def results(**overrides) -> dict:
    data = make_results(model_ref("hf:org/model@abc123"), "out/dataset", [RESULT], ["nycc-bench score ..."])
    data.update(overrides)
    return data


def test_results_round_trip_in_one_canonical_form(tmp_path: Path) -> None:
    data = results()
    assert data["format"] == FORMAT and data["model"] == {"spec": "hf:org/model@abc123", "name": "hf:org/model@abc123",
                                                          "revision": "abc123"}
    assert data["results"][0]["scores"]["fold_accuracies"] == {"0": 0.5, "1": 0.5}  # JSON-normal
    path = write_results(tmp_path / "r.json", data)
    assert read_results(path) == data
    first = path.read_bytes()
    write_results(path, read_results(path))
    assert path.read_bytes() == first == dumps(data).encode()
    assert [p.name for p, _ in read_results_dir(tmp_path)] == ["r.json"]


def _bad(edit) -> dict:
    data = copy.deepcopy(results())
    edit(data)
    return data


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["results"][0].update(task="ranknig"), r"results\[0\]\.task: unknown task 'ranknig'"),
    (lambda d: d["results"][0].update(metric="nycc_accuracy"), r"scored by 'crowd_ny_accuracy'"),
    (lambda d: d["results"][0].update(configs=["ranking"]), r"does not match folds \[0, 1\]"),
    (lambda d: d["results"][0].update(split="dev"), r"'dev' is not one of"),
    (lambda d: d["results"][0].update(folds=[7]), r"fold: expected 0\.\.4"),
    (lambda d: d["results"][0].pop("scores"), r"lacks scores"),
    (lambda d: d["results"].append(copy.deepcopy(d["results"][0])), r"a second result for task ranking on test"),
    (lambda d: d["results"][0]["scores"].update(accuracy=math.nan), r"NaN"),
    (lambda d: d.update(commands=[]), r"commands: is empty"),
    (lambda d: d.update(sample_data="yes"), r"sample_data: must be true or false"),
    (lambda d: d.update(extra=1), r"unknown keys extra"),
    (lambda d: d.update(format="v0"), r"format: expected"),
    (lambda d: d["model"].pop("spec"), r"model: needs a non-empty spec"),
])
def test_a_bad_results_file_names_the_field(edit, message: str) -> None:
    with pytest.raises(ResultsError, match=message):
        validate_results(_bad(edit))


def test_reading_refuses_non_json_and_bare_nan(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{not json")
    with pytest.raises(ResultsError, match="is not JSON"):
        read_results(tmp_path / "a.json")
    (tmp_path / "a.json").write_text(dumps(results()).replace("0.25", "NaN"))
    with pytest.raises(ResultsError, match="NaN is not a number"):
        read_results(tmp_path / "a.json")


def test_committed_cards_are_generated_from_the_committed_results(tmp_path: Path) -> None:
    written = write_cards(RESULTS, tmp_path)
    assert {p.parent.name for p in written} == set(EXPECTED_TASKS)
    for path in written:
        committed = ROOT / "model_cards" / path.parent.name / "README.md"
        assert committed.read_bytes() == path.read_bytes(), f"{committed} is stale: run model_cards/make_cards.py"
    folders = {p.name for p in (ROOT / "model_cards").iterdir() if p.is_dir() and p.name.startswith(("baseline-",
                                                                                                       "eval-"))}
    assert folders == {p.parent.name for p in written}


@pytest.mark.parametrize("name", sorted(EXPECTED_TASKS))
def test_committed_baseline_results_cover_what_each_baseline_answers(name: str) -> None:
    data = read_results(RESULTS / f"{name}.json")
    assert data["sample_data"] is True and is_ours(data["model"]["spec"])
    assert sorted(r["task"] for r in data["results"]) == sorted(EXPECTED_TASKS[name])
    for r in data["results"]:
        assert r["folds"] == ([0, 1] if TASKS[r["task"]].folds else [0])  # the sample has folds 0 and 1
    assert any("humorbench" in note for note in data["notes"])
    assert data["commands"][0] == "nycc-bench build --source sample --out sample-dataset"
    cli = cli_parser()
    for command in data["commands"]:
        words = shlex.split(command)
        assert words[0] == "nycc-bench"
        cli.parse_args(words[1:])  # every recorded command is one the CLI accepts
    scored = [shlex.split(c) for c in data["commands"] if c.startswith("nycc-bench score")]
    assert [w[w.index("--task") + 1] for w in scored] == [r["task"] for r in data["results"]]


@pytest.mark.parametrize("name", sorted(EXPECTED_TASKS))
def test_committed_cards_are_labelled_sample_data_and_match_the_dataset(name: str) -> None:
    card = ModelCard.load(ROOT / "model_cards" / name / "README.md")
    assert "sample-data" in card.data.tags and "baseline" in card.data.tags
    assert "Sample-data figures, not benchmark results" in card.text
    assert card.data.datasets == ["nycc-bench/newyorker-caption-contest"]
    for r in card.data.eval_results:
        assert r.metric_name.endswith("[sample data]") and "embedded sample" in r.dataset_name
        assert r.dataset_type == "nycc-bench/newyorker-caption-contest" and r.dataset_config in ALL_CONFIGS
        assert r.metric_type == TASKS[_task_of(r.dataset_config)].metric or r.metric_type == "group_win_rate"
        assert r.source_url and r.source_name
        if TASKS[_task_of(r.dataset_config)].folds:
            assert r.dataset_args == {"folds": [0, 1], "configs": [r.dataset_config, r.dataset_config + "_1"]}


def _task_of(config: str) -> str:
    return next(t.name for t in TASKS.values() if t.config == config)


def test_a_card_reports_every_leaderboard_column_of_a_result(tmp_path: Path) -> None:
    card = render_card(results())
    names = [r.metric_name for r in card.data.eval_results]
    assert names == ["Ranking", "CrowdAcc", "NYAcc"]
    assert [r.metric_value for r in card.data.eval_results] == [0.5, 0.0, 0.666667]
    assert card.data.base_model == "org/model" and card.data.license is None
    assert "| 0.5000 | 0.2500 – 0.7500 | 8 (1 unparsed) |" in card.text
    assert "hf:org/model@abc123" in card.text and "(revision `abc123`)" in card.text


def test_judged_scores_name_their_judge() -> None:
    generation = {"task": "caption_generation", "configs": ["caption_generation"], "split": "test", "folds": [0],
                  "metric": "ead_diversity", "prompt_version": "zhang2024-generation-v1", "n": 3, "n_unparsed": 0,
                  "scores": {"average_ead": 0.9, "n_groups": 3,
                             "judge": {"judge": "openai:gpt-4o", "protocol": "overall"},
                             "win_rate": {"human_top10": {"win_rate": 0.25, "ci_low": 0.0, "ci_high": 0.5,
                                                          "n_judgments": 6}}}}
    card = render_card(results(results=[generation]))
    rows = {r.metric_name: (r.metric_type, r.metric_value) for r in card.data.eval_results}
    assert rows == {"Win rate vs top 10 (judge openai:gpt-4o)": ("group_win_rate", 0.25),
                    "Average EAD": ("ead_diversity", 0.9)}


def test_slugs_and_ownership() -> None:
    assert slug("random") == "baseline-random" and slug("length") == "baseline-length"
    assert slug("sbert:sentence-transformers/all-MiniLM-L6-v2") == "baseline-sbert-all-MiniLM-L6-v2"
    assert slug("openai:gpt-4o") == "eval-openai-gpt-4o" and slug("hf:meta-llama/Llama-2-70b@rev") == \
        "eval-hf-Llama-2-70b"
    assert not is_ours("openai:gpt-4o") and is_ours("random:7")
    assert base_model("openai:gpt-4o") is None and base_model("hf:/local/folder") is None
    assert base_model("vlm:org/model@r1") == "org/model"


def test_the_cards_command_line(tmp_path: Path, capsys) -> None:
    write_results(tmp_path / "results" / "m.json", results())
    assert main(["--results", str(tmp_path / "results"), "--out", str(tmp_path / "cards")]) == 0
    assert (tmp_path / "cards" / "eval-hf-model" / "README.md").is_file()
    write_results(tmp_path / "results" / "n.json", results())
    assert main(["--results", str(tmp_path / "results"), "--out", str(tmp_path / "cards")]) == 2
    assert "both describe hf:org/model@abc123" in capsys.readouterr().err
    (tmp_path / "results" / "n.json").write_text(json.dumps({"format": FORMAT}))
    assert main(["--results", str(tmp_path / "results"), "--out", str(tmp_path / "cards")]) == 2
