"""The builders on the real upstream subsets in ../shared/data: the published rules, reproduced exactly."""

from __future__ import annotations

import csv
import math
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from datasets import load_dataset

from nycc_bench.builders import build_dataset
from nycc_bench.contests import ZHANG_HELD_OUT, zhang_split

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
NEXTML = SHARED / "nextml_caption_contest_data_api"
GROUPS = SHARED / "zhang_cartoon_caption_generation" / "examples" / "generations"
pytestmark = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is not beside this checkout")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every config ../shared/data allows, built once for this module."""
    out = tmp_path_factory.mktemp("shared_build")
    build_dataset(SHARED, out, progress=False)
    return out


def _table(root: Path, config: str, split: str | None = None) -> list[dict]:
    """All rows of a config (optionally one split) as dicts, read straight from the parquet shards."""
    pattern = f"{split}-*.parquet" if split else "*.parquet"
    return [r for p in sorted((root / "data" / config).glob(pattern)) for r in pq.read_table(p).to_pylist()]


def _published_groups() -> dict[int, dict[str, list[str]]]:
    """Zhang's human_*.csv, row i = contest ZHANG_HELD_OUT[i]."""
    out: dict[int, dict[str, list[str]]] = {c: {} for c in ZHANG_HELD_OUT}
    for group, name in [("human_top10", "human_top.csv"), ("human_200", "human_200.csv"),
                        ("human_1000", "human_1000.csv"), ("human_median", "human_median.csv")]:
        with open(GROUPS / name, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))[1:]
        for contest, row in zip(ZHANG_HELD_OUT, rows, strict=True):
            out[contest][group] = row
    return out


def test_groups_from_summaries_equal_published_lists(tmp_path: Path) -> None:
    """Built from the rating summaries alone, every contest <= 655 gets exactly Zhang's ordered groups."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "nextml").symlink_to(NEXTML)
    out = tmp_path / "out"
    build_dataset(source, out, ["caption_generation"], progress=False)
    rows = {r["contest_number"]: r for r in _table(out, "caption_generation")}
    published = _published_groups()
    checked = [c for c in rows if c <= 655]
    assert len(checked) == 48
    for contest in checked:
        for group, captions in published[contest].items():
            assert rows[contest][group] == captions, (contest, group)
        assert rows[contest]["group_source"].startswith("caption-contest-data-api/")


def test_caption_generation_with_published_groups(built: Path) -> None:
    """With human_*.csv present all 91 contests are there, split 44/47, and the rule agrees up to 655."""
    val, test = _table(built, "caption_generation", "validation"), _table(built, "caption_generation", "test")
    assert (len(val), len(test)) == (44, 47)
    published = _published_groups()
    for row in val + test:
        assert zhang_split(row["contest_number"]) in ("validation", "test")
        assert row["group_source"] == "zhang2024"
        assert {g: row[g] for g in published[row["contest_number"]]} == published[row["contest_number"]]
        if row["contest_number"] <= 655:
            assert row["matches_summary_rule"] is True


def test_caption_ratings_rows_equal_source_rows(built: Path) -> None:
    """Every caption row of every file is there once, under its own run, with 0-based stable ranks."""
    rows = _table(built, "caption_ratings")
    per_run = Counter(r["run_id"] for r in rows)
    files = sorted((NEXTML / "contests" / "summaries").glob("*.csv"))
    assert len(per_run) == len(files) == 77
    for path in files:
        with open(path, newline="", encoding="utf-8") as f:
            n = sum(1 for _ in csv.reader(f)) - 1
        assert per_run[f"caption-contest-data-api/{path.stem}"] == n, path.name
    assert len(rows) == 405_146
    with open(NEXTML / "MANIFEST.csv", newline="") as f:
        manifest = {r["file"]: int(r["n_captions"]) for r in csv.DictReader(f)}
    assert {f"caption-contest-data-api/{Path(k).stem}": v for k, v in manifest.items()} == dict(per_run)


def test_caption_ratings_runs_and_ranks(built: Path) -> None:
    """One primary run per contest; ranks are 0..n-1 in descending mean, ties in file order."""
    rows = _table(built, "caption_ratings")
    by_run: dict[str, list[dict]] = {}
    for r in rows:
        by_run.setdefault(r["run_id"], []).append(r)
    primaries = Counter(r[0]["contest_number"] for r in by_run.values() if r[0]["is_primary"])
    assert set(primaries.values()) == {1} and len(primaries) == 72
    assert by_run["caption-contest-data-api/560_summary_KLUCB_funny"][0]["is_primary"]
    assert by_run["caption-contest-data-api/560_summary_KLUCB_original"][0]["question"] == "original"
    for run in by_run.values():
        run.sort(key=lambda r: r["rank"])
        assert [r["rank"] for r in run] == list(range(len(run)))
        means = [r["mean"] for r in run]
        assert means == sorted(means, reverse=True)
        assert all(r["votes"] == r["funny"] + r["somewhat_funny"] + r["unfunny"] for r in run)


def test_preference_pairs_satisfy_three_sigma_rule(built: Path) -> None:
    """Every pair is 3 sigma apart, chosen from the top half, rejected strictly below, <= 1000 per contest.

    Upstream's rule draws with replacement, so a few pairs repeat; train pairs come from contests 530..889.
    """
    rows = _table(built, "preference_pairs")
    assert len(rows) > 10_000
    for r in rows:
        margin = r["chosen_mean"] - r["rejected_mean"]
        assert margin > 3 * math.sqrt(r["chosen_precision"] ** 2 + r["rejected_precision"] ** 2)
        assert r["rejected_rank"] > r["chosen_rank"]
    per_contest = Counter(r["contest_number"] for r in rows)
    assert max(per_contest.values()) <= 1000
    distinct = len({(r["contest_number"], r["chosen_rank"], r["rejected_rank"]) for r in rows})
    assert len(rows) - 100 < distinct < len(rows)
    train = {c for c in per_contest if zhang_split(c) == "train"}
    assert train and not train & set(ZHANG_HELD_OUT) and min(train) == 530 and max(train) < 890
    assert {r["contest_number"] for r in _table(built, "preference_pairs", "train")} == train


def test_humorbench_counts(built: Path) -> None:
    """309 captions and 499 elements with unique ids; category counts of the paper's labels (41cacd4, Table 3:
    24.4 / 19.0 / 25.7 % of 499; the leaderboard's later labels give 119 / 181 / 78) and hard-subset counts."""
    rows = _table(built, "humorbench")
    assert len(rows) == 309
    ids = [i for r in rows for i in r["element_ids"]]
    assert len(ids) == 499 == len(set(ids))
    cats = Counter(c for r in rows for cs in r["element_categories"] for c in cs)
    assert cats == {"wordplay": 122, "cultural reference": 95, "toxic or shocking": 128}
    assert sum(h for r in rows for h in r["element_in_hard"]) == 164
    hard = _table(built, "humorbench_hard")
    assert (len(hard), sum(len(r["elements"]) for r in hard)) == (100, 164)  # the paper's list
    assert all(0 <= p < 1 for r in hard for p in r["element_pass_rates"])


def test_real_build_card_is_not_marked_sample(built: Path) -> None:
    """Only builds of the embedded sample carry the sample-data marker."""
    card = (built / "README.md").read_text()
    assert "sample-data" not in card and "## Limitations" in card and "size_categories" in card


def test_every_config_loads_with_load_dataset(built: Path) -> None:
    """`load_dataset(folder, config)` works for every config written, with the card's split sizes."""
    for config in ["caption_ratings", "caption_generation", "preference_pairs", "humorbench", "humorbench_hard"]:
        ds = load_dataset(str(built), config)
        assert {s: len(d) for s, d in ds.items()} == {
            s: len(_table(built, config, s)) for s in ds}


def test_build_is_byte_identical(built: Path, tmp_path: Path) -> None:
    """The same input gives the same bytes, shard for shard, card included."""
    build_dataset(SHARED, tmp_path, progress=False)
    first = sorted(p.relative_to(built) for p in built.rglob("*") if p.is_file())
    second = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert first == second
    for rel in first:
        assert (built / rel).read_bytes() == (tmp_path / rel).read_bytes(), rel
