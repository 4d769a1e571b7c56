"""HumorBench Hard: upstream's element-level rule over runs, and the paper's list as `humorbench_hard`."""

from __future__ import annotations

import csv
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from nycc_bench.builders import build_dataset
from nycc_bench.builders.hard_subset import ElementRate, StatedRate, hard_subset, hardest, pooled_rates

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
HUMORBENCH = SHARED / "humorbench_reubennarad"


def _key(i: int) -> tuple[str, str]:
    """Upstream keys an element by its (caption, element) texts."""
    return (f"caption {i}", f"element {i}")


# Four runs exercising every detail of upstream's rule: ERROR rows leave the count, a row repeated within a run
# counts twice, an element with fewer than 3 valid gradings is out however often it failed, and ties keep the
# order of first *valid* appearance (element 1 is seen first, but as an ERROR, so it ranks after element 4).
RUNS = [
    [(_key(1), "ERROR"), (_key(2), "FAIL"), (_key(3), "PASS"), (_key(4), "FAIL")],
    [(_key(1), "FAIL"), (_key(2), "PASS"), (_key(3), "FAIL"), (_key(3), "FAIL"), (_key(4), "FAIL"),
     (_key(5), "FAIL")],
    {_key(1): "FAIL", _key(2): "FAIL", _key(3): "FAIL", _key(4): "PASS", _key(5): "FAIL"},
    [(_key(1), "PASS"), (_key(3), "FAIL"), (_key(4), "ERROR"), (_key(5), "ERROR"), (_key(2), "FAIL")],
]
# What upstream's own loop (reports/main_benchmark_results.py, lines 382-415 at cc99276) printed for these runs,
# run with pandas outside this repository: (key, pass rate, valid gradings), hardest first.
UPSTREAM_ORDER = [(_key(3), 0.2, 5), (_key(2), 0.25, 4), (_key(4), 1 / 3, 3), (_key(1), 1 / 3, 3)]


def test_rule_reproduces_upstream_order() -> None:
    """Same elements, same rates, same order as upstream on a hand-made set of runs."""
    got = hard_subset(RUNS)
    assert [(r.key, r.pass_rate, r.valid) for r in got] == UPSTREAM_ORDER
    assert [r.key for r in hard_subset(RUNS, size=2)] == [_key(3), _key(2)]


def test_pooling_counts_and_validity() -> None:
    """Pooled counts per element, in first-valid-appearance order; lowercase or missing verdicts are not valid."""
    rates = pooled_rates(RUNS)
    assert [(r.key, r.passes, r.valid) for r in rates] == [
        (_key(2), 1, 4), (_key(3), 1, 5), (_key(4), 1, 3), (_key(1), 1, 3), (_key(5), 0, 2)]
    assert pooled_rates([[("a", "pass"), ("a", None), ("a", "ERROR")]]) == []  # type: ignore[list-item]
    assert next(r.key for r in hard_subset(RUNS, min_valid=2)) == _key(5)


def test_hardest_is_stable_and_checks_arguments() -> None:
    """Equal rates keep their input order; nonsense sizes are refused."""
    rates = [ElementRate("x", 1, 3), ElementRate("y", 2, 6), ElementRate("z", 0, 3), ElementRate("w", 0, 2)]
    assert [r.key for r in hardest(rates)] == ["z", "x", "y"]
    assert [r.key for r in hardest([StatedRate("p", 0.5, 3), StatedRate("q", 0.5, 3)], size=1)] == ["p"]
    with pytest.raises(ValueError, match="min_valid"):
        hardest(rates, min_valid=0)


# The paper's Table 5 (Narad et al. 2025, appendix D): cartoon, a phrase of the caption, pass rate in percent.
TABLE_5 = [("CC123065", "way beyond jolly", 0), ("40", "Manhattan skyline is getting suspicious", 17),
           ("15", "lovely gesture", 20), ("669", "love his bedtime routine", 33),
           ("665", "help carrying the groceries", 40), ("687", "spend at Macy", 40),
           ("686", "how to tell him it", 27), ("61", "cholesterol is through the roof", 20)]


@pytest.mark.skipif(not HUMORBENCH.is_dir(), reason="../shared/data is not beside this checkout")
def test_default_hard_config_is_the_papers_list(tmp_path: Path) -> None:
    """`humorbench_hard` is the paper's list: 100 captions, 164 elements, the file's rates; Table 5 matches."""
    build_dataset(HUMORBENCH, tmp_path, ["humorbench", "humorbench_hard"], progress=False)
    rows = pq.read_table(next((tmp_path / "data" / "humorbench_hard").glob("test-*.parquet"))).to_pylist()
    assert (len(rows), sum(len(r["elements"]) for r in rows)) == (100, 164)
    with open(HUMORBENCH / "analysis" / "paper_hard_subset" / "hard_subset_with_categories.csv", newline="") as f:
        upstream = list(csv.DictReader(f))
    got = {(r["caption"], e): (rate, n, rank) for r in rows for e, rate, n, rank in zip(
        r["elements"], r["element_pass_rates"], r["element_num_attempts"], r["element_hard_ranks"], strict=True)}
    assert got == {(u["caption"], u["element"]): (float(u["pass_rate"]), int(u["num_attempts"]), i)
                   for i, u in enumerate(upstream)}
    assert {n for r in rows for n in r["element_num_attempts"]} == {15, 30, 45}  # 15 runs x 1-3 elements
    for cartoon, phrase, percent in TABLE_5:
        row = next(r for r in rows if phrase.lower() in r["caption"].lower())
        assert cartoon in (row["cartoonstock_id"], str(row["contest_number"]))
        assert {round(100 * p) for p in row["element_pass_rates"]} == {percent}, phrase
    full = pq.read_table(next((tmp_path / "data" / "humorbench").glob("test-*.parquet"))).to_pylist()
    assert sum(h for r in full for h in r["element_in_hard"]) == 164
    assert "100 unique elements" in (tmp_path / "README.md").read_text()
