"""Labels that say what is true: one interval wording in every README, incomplete-run advice that names the real
cause and fix, `--limit` said to be per fold, `score` printing `evaluate`'s score line (JSON with `--json`), and
deviations only where they apply (a baseline that decodes nothing lists no decoding deviation)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nycc_bench.cli import main
from nycc_bench.commands.evaluate import remedies
from nycc_bench.evaluation import evaluate

ROOT = Path(__file__).resolve().parents[1]


def test_one_interval_wording_in_every_readme() -> None:
    for path in [ROOT / "README.md", *ROOT.glob("spaces/*/README.md"), *ROOT.glob("metrics/*/README.md")]:
        text = path.read_text(encoding="utf-8")
        assert "half its" not in text and "half the interval" not in text, path


def test_incomplete_advice_names_the_cause() -> None:
    unpromptable = {"n_failed": 0, "n_error": 0, "n_unparsed": 0,
                    "coverage": {"n": 2, "of": 4, "why": "2 dataset rows cannot be prompted"}}
    (advice,) = remedies(unpromptable)
    assert advice.startswith("2 dataset rows cannot be prompted: a re-run does not help") and "retry" not in advice
    assert remedies({"n_failed": 3}) == ["re-run the same command to retry the failed items"]


def test_limit_says_it_is_per_fold(sample_dataset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = evaluate("random", ["matching"], dataset=sample_dataset, folds=[0, 1], limit=2, out=tmp_path / "run",
                   progress=False)
    assert run.scores["matching"]["accuracy"]["n"] == 4
    assert any("each task and fold" in note and "2×k" in note for note in run.record["notes"])
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "per fold" in " ".join(capsys.readouterr().out.split())


def test_score_prints_evaluates_score_line(sample_dataset: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["evaluate", "--system", "length", "--tasks", "matching", "--folds", "0", "--dataset", sample_dataset,
                 "--out", str(out), "--quiet"]) == 0
    evaluated = capsys.readouterr().out.splitlines()[0]
    predictions = str(out / "predictions" / "matching.jsonl")
    assert main(["score", "--task", "matching", "--predictions", predictions, "--dataset", sample_dataset]) == 0
    assert capsys.readouterr().out.splitlines() == [evaluated]
    assert main(["score", "--task", "matching", "--predictions", predictions, "--dataset", sample_dataset,
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"]["accuracy"]["n"] == 4


def test_a_baseline_that_decodes_nothing_lists_no_decoding_deviation(sample_dataset: str, tmp_path: Path) -> None:
    from nycc_bench.tasks import get_task

    run = evaluate("random", ["matching_from_pixels"], dataset=sample_dataset, folds=[0], out=tmp_path / "run",
                   progress=False)
    deviations = run.record["tasks"]["matching_from_pixels"]["config"]["deviations"]
    assert not any("decoding" in d.lower() for d in deviations), deviations
    sent = get_task("matching_from_pixels").computed_deviations({"system": {"request": {"temperature": 0.0}}})
    assert any(d.startswith("Decoding at temperature 0 with at most 256 new tokens") for d in sent)
