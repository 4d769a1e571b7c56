"""Results records (one schema, checked) and the model cards generated from them; the committed baseline cards
are up to date with their results records, labelled as sample data, and record commands the CLI accepts."""

from __future__ import annotations

import copy
import json
import math
import shlex
from pathlib import Path

import pytest
from huggingface_hub import ModelCard

from nycc_bench.builders import ALL_CONFIGS
from nycc_bench.cli import main
from nycc_bench.cli import parser as cli_parser
from nycc_bench.publish import ROOT
from nycc_bench.publish.cards import base_model, is_ours, render_card, slug, write_cards
from nycc_bench.results import (
    SCHEMA,
    ResultsError,
    dumps,
    read_results,
    read_results_dir,
    validate_results,
    write_results,
)
from nycc_bench.tasks import get_task

RESULTS = ROOT / "model_cards" / "results"
ENTRY = {"config": {"name": "ranking", "prompt_version": "ranking-abc", "scorer": {"metric": "crowd_ny_accuracy"},
                    "dataset": {"config": "ranking", "split": "test", "folds": [0, 1]}, "judge": {"name": None},
                    "deviations": ["Scored on folds [0, 1] of [0, 1, 2, 3, 4]."]},
         "scores": {"accuracy": {"value": 0.5, "ci_low": 0.25, "ci_high": 0.75, "n": 8},
                    "crowd_accuracy": {"value": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 2},
                    "ny_accuracy": {"value": 2 / 3, "ci_low": 0.3, "ci_high": 1.0, "n": 6}},
         "n": 8, "n_unparsed": 1, "n_failed": 0, "n_error": 0, "details": {"fold_accuracies": {0: 0.5, 1: 0.5}},
         "predictions": ["predictions/ranking.jsonl", "predictions/ranking_fold1.jsonl"]}
EXPECTED_TASKS = {
    "baseline-random": ["matching", "matching_from_pixels", "ranking", "ranking_from_pixels", "explanation",
                        "explanation_from_pixels", "matching_5shot", "caption_generation", "humorbench"],
    "baseline-length": ["matching", "matching_from_pixels", "ranking", "ranking_from_pixels", "matching_5shot"],
    "baseline-sbert-all-MiniLM-L6-v2": ["matching", "ranking", "explanation", "matching_5shot",
                                        "caption_generation", "humorbench"],
}


def results(**overrides) -> dict:
    data = {"schema": SCHEMA, "nycc_bench_version": "0.2.0", "git_commit": None, "created_at": "2026-11-23",
            "model": {"spec": "hf:org/model@abc123", "name": "hf:org/model@abc123", "source": "hub",
                      "revision": "abc123", "fingerprint": None, "parameters": None},
            "dataset": {"name": "out/dataset", "revision": None, "fingerprint": "sha256:00", "sample": False},
            "environment": {"python": "3.11"}, "judge": None, "tasks": {"ranking": copy.deepcopy(ENTRY)},
            "commands": ["nycc-bench evaluate ..."]}
    data.update(overrides)
    return data


def test_results_round_trip_in_one_canonical_form(tmp_path: Path) -> None:
    data = validate_results(results())
    assert data["tasks"]["ranking"]["details"]["fold_accuracies"] == {"0": 0.5, "1": 0.5}  # JSON-normal
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
    (lambda d: d["tasks"]["ranking"]["config"].update(name="ranknig"), r"tasks\.ranking\.config: must be the config"),
    (lambda d: d["tasks"]["ranking"].pop("scores"), r"lacks scores"),
    (lambda d: d["tasks"]["ranking"]["scores"]["accuracy"].pop("n"), r"must have exactly value, ci_low"),
    (lambda d: d["tasks"]["ranking"].update(n_failed=-1), r"n_failed: must be a count"),
    (lambda d: d["tasks"]["ranking"].update(n_unparsed=9), r"cannot exceed n"),
    (lambda d: d["tasks"]["ranking"]["scores"]["accuracy"].update(value=math.nan), r"NaN"),
    (lambda d: d.update(tasks={}), r"tasks: is empty and nothing says why"),
    (lambda d: d["dataset"].update(sample="yes"), r"dataset\.sample: must be true or false"),
    (lambda d: d.update(extra_key=1), r"unknown keys extra_key"),
    (lambda d: d.update(schema="nycc-bench-results/9"), r"schema: expected"),
    (lambda d: d.pop("environment"), r"lacks environment"),
])
def test_a_bad_results_record_names_the_field(edit, message: str) -> None:
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
    assert data["schema"] == SCHEMA and data["dataset"]["sample"] is True and is_ours(data["model"]["spec"])
    assert sorted(data["tasks"]) == sorted(EXPECTED_TASKS[name])
    for task, entry in data["tasks"].items():
        assert entry["config"]["dataset"]["folds"] == ([0, 1] if get_task(task).has_folds else [0])
    assert data["commands"][0] == "nycc-bench build --source sample --out DATASET"
    cli = cli_parser()
    for command in data["commands"]:
        words = shlex.split(command)
        assert words[0] == "nycc-bench"
        cli.parse_args(words[1:])  # every recorded command is one the CLI accepts


@pytest.mark.parametrize("name", sorted(EXPECTED_TASKS))
def test_committed_cards_are_labelled_sample_data_and_match_the_dataset(name: str) -> None:
    card = ModelCard.load(ROOT / "model_cards" / name / "README.md")
    assert "sample-data" in card.data.tags and "baseline" in card.data.tags
    assert "Sample-data figures, not benchmark results" in card.text
    assert card.data.datasets == ["nycc-bench/newyorker-caption-contest"]
    for r in card.data.eval_results:
        assert r.metric_name.endswith("[sample data]") and "embedded sample" in r.dataset_name
        assert r.dataset_type == "nycc-bench/newyorker-caption-contest" and r.dataset_config in ALL_CONFIGS
        assert r.source_url and r.source_name


def test_a_card_reports_every_leaderboard_column_of_a_result() -> None:
    card = render_card(validate_results(results()))
    names = [r.metric_name for r in card.data.eval_results]
    assert names == ["Ranking", "CrowdAcc", "NYAcc"]
    assert [r.metric_value for r in card.data.eval_results] == [0.5, 0.0, 0.666667]
    assert card.data.base_model == "org/model" and card.data.license is None
    assert "| 0.5000 | 0.2500 – 0.7500 | 8 (1 unparsed) |" in card.text
    assert "hf:org/model@abc123" in card.text and "(revision `abc123`)" in card.text
    assert "Scored on folds [0, 1]" in card.text  # deviations become limitations


def test_judged_scores_name_their_judge() -> None:
    generation = {"config": {"name": "caption_generation", "prompt_version": "caption_generation-x",
                             "scorer": {"metric": "ead_diversity"}, "judge": {"name": "openai:gpt-4o"},
                             "dataset": {"config": "caption_generation", "split": "test", "folds": [0]},
                             "deviations": []},
                  "scores": {"average_ead": {"value": 0.9, "ci_low": None, "ci_high": None, "n": 3},
                             "win_rate_top10": {"value": 0.25, "ci_low": 0.0, "ci_high": 0.5, "n": 6}},
                  "n": 3, "n_unparsed": 0, "n_failed": 0, "n_error": 0, "details": {}, "predictions": []}
    card = render_card(validate_results(results(tasks={"caption_generation": generation})))
    rows = {r.metric_name: (r.metric_type, r.metric_value) for r in card.data.eval_results}
    assert rows == {"Win rate vs top 10 (judge openai:gpt-4o)": ("group_win_rate", 0.25),
                    "Average EAD": ("ead_diversity", 0.9)}


def test_slugs_and_ownership() -> None:
    assert slug("random") == "baseline-random" and slug("length") == "baseline-length"
    assert slug("sbert:all-MiniLM-L6-v2") == "baseline-sbert-all-MiniLM-L6-v2"
    assert slug("openai:gpt-4o") == "eval-openai-gpt-4o" and slug("hf:meta-llama/Llama-2-70b@rev") == \
        "eval-hf-Llama-2-70b"
    assert not is_ours("openai:gpt-4o") and is_ours("random:7")
    assert base_model("openai:gpt-4o") is None and base_model("hf:/local/folder") is None
    assert base_model("vlm:org/model@r1") == "org/model"


def test_the_cards_command_line(tmp_path: Path, capsys) -> None:
    write_results(tmp_path / "results" / "m.json", results())
    assert main(["cards", "--results", str(tmp_path / "results"), "--out", str(tmp_path / "cards")]) == 0
    assert (tmp_path / "cards" / "eval-hf-model" / "README.md").is_file()
    write_results(tmp_path / "results" / "n.json", results())
    assert main(["cards", "--results", str(tmp_path / "results"), "--out", str(tmp_path / "cards")]) == 2
    assert "both describe hf:org/model@abc123" in capsys.readouterr().err
    (tmp_path / "results" / "n.json").write_text(json.dumps({"schema": SCHEMA}))
    assert main(["cards", "--results", str(tmp_path / "results"), "--out", str(tmp_path / "cards")]) == 2
