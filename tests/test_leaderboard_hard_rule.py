"""The leaderboard's "Hard, leaderboard rule" column (issue 22): upstream's element-level HumorBench Hard rule
(`builders.hard_subset.hard_subset`) recomputed over the store's runs from their recorded per-element verdicts; a
pooled column declared by the task file's `scores:` (`pooled: true`) and computed in `standings.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from nycc_bench.builders.hard_subset import hard_subset
from nycc_bench.leaderboard.about import about_markdown
from nycc_bench.leaderboard.exports import export_records
from nycc_bench.leaderboard.store import LocalStore
from nycc_bench.results import SCHEMA, ResultsError, validate_results
from nycc_bench.standings import Filters, build_frame, hard_items, pooled_metrics, tab_table

[METRIC] = pooled_metrics()  # declared in humorbench.yaml
ELEMENTS = [f"c{c}/e{e}" for c in range(60) for e in range(2)]  # 120 elements: more than the rule's 100


def verdicts(run: int) -> dict[str, str]:
    """A run's verdict per element: run-specific PASS patterns, an ERROR now and then."""
    out = {}
    for k, key in enumerate(ELEMENTS):
        if (k + run) % 17 == 0:
            out[key] = "ERROR"
        else:
            out[key] = "PASS" if (k * (run + 3)) % 5 < k % 4 else "FAIL"
    return out


def record(run: int, sample: bool = False, with_verdicts: bool = True) -> dict[str, Any]:
    """A results record with a humorbench entry holding its verdicts (as `score_elements` records them)."""
    v = verdicts(run)
    details: dict[str, Any] = {"n_elements": len(v)}
    if with_verdicts:
        details["element_verdicts"] = v
    entry = {"config": {"name": "humorbench", "prompt_version": "humorbench-abc", "deviations": []}, "scores": {},
             "n": len(v), "n_unparsed": 0, "n_failed": 0, "n_error": 0, "details": details, "predictions": []}
    return {"schema": SCHEMA, "nycc_bench_version": "0.2.0", "git_commit": None, "created_at": "2026-01-01",
            "model": {"name": f"org/m{run}", "url": None, "parameters": None, "type": "api", "spec": f"openai:m{run}",
                      "source": "api"},
            "dataset": {"name": "d", "sample": sample}, "environment": {}, "judge": {"name": "openai:judge"},
            "tasks": {"humorbench": entry}, "skipped": {}, "errors": {}, "commands": ["nycc-bench evaluate ..."],
            "notes": [], "extra": {"run_id": f"run{run}", "options": {}}}


def expected(run: int, runs: list[int]) -> float:
    """The column by hand: the rule over the runs' verdicts (run-id order), then PASS / (PASS + FAIL)."""
    hard = [r.key for r in hard_subset([verdicts(k) for k in sorted(runs, key=lambda k: f"run{k}")])]
    valid = [verdicts(run)[k] for k in hard if verdicts(run)[k] != "ERROR"]
    return sum(v == "PASS" for v in valid) / len(valid)


def test_the_column_pools_the_stores_runs(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "store")
    for run in (0, 1, 2, 3):
        store.save_result(record(run))
    store.save_result(record(4, with_verdicts=False))  # recorded before verdicts were kept: no cell
    for run in (5, 7, 8):  # sample data: pooled on its own
        store.save_result(record(run, sample=True))
    results = store.results()
    assert len(hard_items(METRIC, [r for r in results if not r["dataset"]["sample"]])) == 100
    frame = build_frame(results).set_index("run_id")
    for run in (0, 1, 2, 3):
        assert frame.loc[f"run{run}", METRIC.key] == pytest.approx(round(100 * expected(run, [0, 1, 2, 3]), 1))
    assert frame.loc["run5", METRIC.key] == pytest.approx(round(100 * expected(5, [5, 7, 8]), 1))
    assert expected(5, [5, 7, 8]) != expected(5, [0, 1, 2, 3, 5])  # pooling them together would differ
    assert pd.isna(frame.loc["run4", METRIC.key])
    assert frame.loc["run4", METRIC.key + "|state"] == "no judge"  # no HumorBench score at all
    judged = record(9, with_verdicts=False)  # judged, recorded before verdicts were kept
    judged["tasks"]["humorbench"]["scores"] = {"element_accuracy": {"value": 0.5, "ci_low": 0.4, "ci_high": 0.6,
                                                                     "n": 100}}
    assert build_frame([judged]).loc[0, METRIC.key + "|state"] == "n/a"
    # adding a run moves the set: the column is recomputed over whatever the store holds
    store.save_result(record(6))
    again = build_frame(store.results()).set_index("run_id")
    assert again.loc["run0", METRIC.key] == pytest.approx(round(100 * expected(0, [0, 1, 2, 3, 6]), 1))
    table = tab_table(build_frame(results), "humorbench", Filters())
    assert METRIC.label in table.values.columns
    assert METRIC.label not in tab_table(build_frame(results), None, Filters()).values.columns  # not a headline
    exported = {r["run_id"]: r for r in export_records(results)}
    assert exported["run1"][METRIC.key] == pytest.approx(expected(1, [0, 1, 2, 3]))
    assert "**Hard, leaderboard rule**" in about_markdown(results)
    assert "element_verdicts" in results[0]["tasks"]["humorbench"]["details"]  # the records are left unchanged
    assert METRIC.score not in results[0]["tasks"]["humorbench"]["scores"]


def test_recorded_verdicts_are_checked() -> None:
    validate_results(record(0))
    bad = record(0)
    bad["tasks"]["humorbench"]["details"]["element_verdicts"]["c0/e0"] = "MAYBE"
    with pytest.raises(ResultsError, match="element_verdicts: must map element ids"):
        validate_results(bad)
    short = record(0)
    del short["tasks"]["humorbench"]["details"]["element_verdicts"]["c0/e0"]
    with pytest.raises(ResultsError, match=r"holds 119 verdicts but details\.n_elements is 120"):
        validate_results(short)


def test_the_column_is_declared_by_the_task_file() -> None:
    """Not hard-coded: the task file's score with `pooled: true` is the column, its `path` the verdicts' key."""
    from nycc_bench.tasks import get_task

    [score] = [s for s in get_task(METRIC.task).scores if s.pooled]
    assert (METRIC.label, METRIC.score, METRIC.pooled) == ("Hard, leaderboard rule", score.key, score.path)
    assert METRIC.judged and not METRIC.headline and (score.low, score.high) == (None, None)
