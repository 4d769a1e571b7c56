"""Model cards generated from results records: the card of a result, its judge named, slugs and ownership, the
`cards` command line; the committed baseline cards are labelled as sample data (`tests/test_baselines.py` checks
they are rendered from the seed). The records themselves: `tests/test_results.py`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from huggingface_hub import ModelCard
from test_results import results

from nycc_bench.builders import ALL_CONFIGS
from nycc_bench.cli import main
from nycc_bench.publish import ROOT
from nycc_bench.publish.cards import base_model, is_ours, render_card, slug
from nycc_bench.results import SCHEMA, validate_results, write_results
from nycc_bench.systems import BASELINES


@pytest.mark.parametrize("name", sorted(slug(s) for s in BASELINES))
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
