"""Results records (`nycc_bench.results`): one schema, checked field by field with the field named; one canonical
text; atomic writes; older schemas upgraded on read; counts checked against the predictions files they name."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from nycc_bench.results import (
    SCHEMA,
    ResultsError,
    dumps,
    read_results,
    read_results_dir,
    run_id,
    validate_results,
    write_results,
)

ENTRY = {"config": {"name": "ranking", "prompt_version": "ranking-abc", "scorer": {"metric": "crowd_ny_accuracy"},
                    "dataset": {"config": "ranking", "split": "test", "folds": [0, 1]}, "judge": {"name": None},
                    "deviations": ["Scored on folds [0, 1] of [0, 1, 2, 3, 4]."]},
         "scores": {"accuracy": {"value": 0.5, "ci_low": 0.25, "ci_high": 0.75, "n": 8},
                    "crowd_accuracy": {"value": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 2},
                    "ny_accuracy": {"value": 2 / 3, "ci_low": 0.3, "ci_high": 1.0, "n": 6}},
         "n": 8, "n_unparsed": 1, "n_failed": 0, "n_error": 0, "details": {"fold_accuracies": {0: 0.5, 1: 0.5}},
         "predictions": ["predictions/ranking.jsonl", "predictions/ranking_fold1.jsonl"]}
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


def test_a_failed_write_leaves_the_previous_record_whole(tmp_path: Path, monkeypatch) -> None:
    path = write_results(tmp_path / "r.json", results())
    before = path.read_bytes()
    with pytest.raises(ResultsError, match="lacks scores"):
        write_results(path, _bad(lambda d: d["tasks"]["ranking"].pop("scores")))
    import os

    def killed(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        write_results(path, results(created_at="2026-11-24"))
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary left


def test_reading_names_a_missing_file_and_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="does not exist"):
        read_results(tmp_path / "none.json")
    with pytest.raises(ResultsError, match="is not a folder"):
        read_results_dir(tmp_path / "none")
    write_results(tmp_path / "run" / "results.json", results())
    assert read_results(tmp_path / "run") == read_results(tmp_path / "run" / "results.json")  # a run folder


def test_a_record_reads_without_the_predictions_it_names(tmp_path: Path) -> None:
    """A record travels alone (cards, the seed, a download): counts are checked only where the files are
    (`tests/test_truth.py` checks a mismatch against a real run)."""
    data = results()
    data["tasks"]["ranking"]["predictions"] = ["predictions/ranking.jsonl"]
    write_results(tmp_path / "results.json", data)
    assert read_results(tmp_path / "results.json")["tasks"]["ranking"]["n"] == 8


def test_run_id_is_the_records_leaderboard_run() -> None:
    assert run_id(results(extra={"run_id": "seed-random"})) == "seed-random"
    assert run_id(results()) == ""
    assert json.loads(dumps(results(extra={"run_id": "x"})))["extra"] == {"run_id": "x"}
