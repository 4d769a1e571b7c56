"""The builders on the embedded sample: every config, every split, every rule it was written to exercise."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
from datasets import load_dataset
from PIL import Image

from nycc_bench.builders import build_dataset
from nycc_bench.cli import main
from nycc_bench.contests import zhang_split
from nycc_bench.paths import SAMPLE_DIR

SPLITS3 = {"train", "validation", "test"}
EXPECTED_SPLITS = {
    **{f"{t}{p}{f}": SPLITS3 for t in ("matching", "ranking", "explanation") for p in ("", "_from_pixels")
       for f in ("", "_1")},
    "caption_ratings": SPLITS3, "preference_pairs": SPLITS3, "caption_generation": {"validation", "test"},
    "humorbench": {"test"}, "humorbench_hard": {"test"},
    "matching_leaderboard": {"test"}, "ranking_leaderboard": {"test"},
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample built once for this module."""
    out = tmp_path_factory.mktemp("sample_build")
    build_dataset(SAMPLE_DIR, out, progress=False)
    return out


def test_every_config_has_every_split(built: Path) -> None:
    """Each config the sample covers loads with `load_dataset` and has all its splits, none empty."""
    for config, splits in EXPECTED_SPLITS.items():
        ds = load_dataset(str(built), config)
        assert set(ds) == splits, config
        assert all(len(ds[s]) > 0 for s in splits), config


def test_hessel_configs_keep_upstream_schema_and_images(built: Path) -> None:
    """Upstream columns in upstream order; images decode; labels and winner sources are in their sets."""
    matching = load_dataset(str(built), "matching")["test"]
    assert matching.column_names == [
        "image", "contest_number", "image_location", "image_description", "image_uncanny_description", "entities",
        "questions", "caption_choices", "from_description", "label", "n_tokens_label", "instance_id"]
    assert isinstance(matching[0]["image"], Image.Image)
    assert all(len(r["caption_choices"]) == 5 and r["label"] in "ABCDE" for r in matching)
    ranking = load_dataset(str(built), "ranking_from_pixels")
    assert ranking["test"].column_names == ["image", "contest_number", "caption_choices", "winner_source", "label",
                                            "n_tokens_label", "instance_id"]
    for split in ranking.values():
        assert set(split["winner_source"]) == {"official_winner", "crowd_winner"}
    explanation = load_dataset(str(built), "explanation")["train"][0]
    assert isinstance(explanation["caption_choices"], str) and len(explanation["label"].split()) > 5
    assert (set(load_dataset(str(built), "matching")["test"]["instance_id"])
            != set(load_dataset(str(built), "matching_1")["test"]["instance_id"]))


def test_caption_ratings_keeps_every_run(built: Path) -> None:
    """Two algorithms and two questions over one caption set stay apart; one primary run per contest."""
    rows = [r for s in SPLITS3 for r in load_dataset(str(built), "caption_ratings")[s]]
    runs = Counter(r["run_id"] for r in rows)
    api = "caption-contest-data-api"
    assert runs[f"{api}/510_summary_LilUCB"] == runs[f"{api}/510_summary_RoundRobin"] == 300
    primary = {(r["contest_number"], r["run_id"]) for r in rows if r["is_primary"]}
    assert len(primary) == len({c for c, _ in primary}) == 9
    assert (560, "caption-contest-data-api/560_summary_KLUCB_funny") in primary
    by_run = {r["run_id"]: r for r in rows if r["rank"] == 0}
    assert by_run["caption-contest-data-api/560_summary_KLUCB_original"]["question"] == "original"
    assert by_run["caption-contest-data-api/560_summary_KLUCB_original"]["algorithm"] == "KLUCB"
    assert by_run["caption-contest-data-api/508-round2_summary_RoundRobin"]["round"] == 2
    assert by_run["caption-contest-data/758_KLUCB"]["upstream_rank"] is None
    assert any("\n" in r["caption"] for r in rows)  # quoted newlines survive
    assert all(zhang_split(r["contest_number"]) == s for s in SPLITS3
               for r in load_dataset(str(built), "caption_ratings")[s])


def test_caption_generation_rule_on_ties_and_both_header_variants(built: Path) -> None:
    """For the four sample contests with summaries the rule reproduces the published groups exactly."""
    ds = load_dataset(str(built), "caption_generation")
    rows = {r["contest_number"]: r for s in ds for r in ds[s]}
    assert len(rows) == 91
    for contest in (543, 536, 701, 758):
        assert rows[contest]["matches_summary_rule"] is True, contest
        assert all(len(rows[contest][g]) == 10 for g in ("human_top10", "human_200", "human_1000", "human_median"))
    assert rows[543]["image"] is not None and rows[543]["image_description"]
    assert rows[536]["description"]
    assert rows[544]["matches_summary_rule"] is None  # no summary for it: published groups only


def test_preference_pairs_rule(built: Path) -> None:
    """Every pair satisfies the 3-sigma rule; pairs are distinct; train pairs only from train contests."""
    ds = load_dataset(str(built), "preference_pairs")
    for split, rows in ds.items():
        for r in rows:
            assert r["chosen_mean"] - r["rejected_mean"] > 3 * math.sqrt(
                r["chosen_precision"] ** 2 + r["rejected_precision"] ** 2)
            assert zhang_split(r["contest_number"]) == split
    counts = Counter(ds["train"]["contest_number"])
    assert counts[530] > 100 and max(counts.values()) <= 1000


def test_humorbench_keys_and_categories(built: Path) -> None:
    """An idx upstream uses twice gets distinct element ids; categories and the hard subset join by row."""
    rows = load_dataset(str(built), "humorbench")["test"]
    ids = [i for r in rows for i in r["element_ids"]]
    assert len(ids) == 31 == len(set(ids)) and "37-2" in ids
    assert any(r["cartoonstock_id"] and r["contest_number"] is None for r in rows)
    assert sum(h for r in rows for h in r["element_in_hard"]) == 17
    hard = load_dataset(str(built), "humorbench_hard")["test"]
    assert (len(hard), sum(len(r["elements"]) for r in hard)) == (8, 17)  # caption-level: all of a caption's elements


def test_cli_build_prints_summary_table_and_marks_the_sample(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """`nycc-bench build --source sample` prints the table; the card says it is sample data."""
    assert main(["build", "--source", "sample", "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "caption_generation" in out and "humorbench_hard" in out and "no source for: matching_2" in out
    card = (tmp_path / "README.md").read_text()
    assert "- sample-data" in card and "**Sample data.**" in card and "## How to score" in card
    assert load_dataset(str(tmp_path), "preference_pairs")["validation"].num_rows > 0
