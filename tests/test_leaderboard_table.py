"""The leaderboard's derived views: metric extraction, table columns, filters, Arena ranks, escaping."""

from __future__ import annotations

import csv
import json
import math
from typing import Any

import pandas as pd
import pytest

from nycc_bench.leaderboard.detail import detail_html, run_choices
from nycc_bench.leaderboard.exports import write_exports
from nycc_bench.leaderboard.settings import Settings
from nycc_bench.results import SCHEMA
from nycc_bench.standings import (
    Filters,
    arena_rank,
    build_frame,
    datatypes,
    model_link,
    overall_rank,
    size_bucket,
    tab_table,
)
from nycc_bench.tasks.scores import family_list, family_metrics, metrics

EVIL = "<script>alert(1)</script>"


def score(value: float, low: float | None, high: float | None, n: int | None = 528) -> dict[str, Any]:
    return {"value": value, "ci_low": low, "ci_high": high, "n": n}


def entry(task: str, scores: dict[str, Any]) -> dict[str, Any]:
    return {"config": {"name": task, "prompt_version": f"{task}-abc", "deviations": []}, "scores": scores, "n": 528,
            "n_unparsed": 0, "n_failed": 0, "n_error": 0, "details": {}, "predictions": []}


def result(run: str, name: str, accuracy: float, low: float, high: float, params: int | None = 1_000_000_000,
           kind: str = "open", sample: bool = False, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A v2 results record with a matching score, as the worker stores it (`extra.run_id`)."""
    return {"schema": SCHEMA, "nycc_bench_version": "0.2.0", "git_commit": None, "created_at": "2026-01-01",
            "model": {"name": name, "url": f"https://huggingface.co/{name}", "parameters": params, "type": kind,
                      "spec": f"hf:{name}@abc", "source": "hub"},
            "dataset": {"name": "d", "sample": sample}, "environment": {}, "judge": None,
            "tasks": {"matching": entry("matching", {"accuracy": score(accuracy, low, high)}), **(extra or {})},
            "skipped": {}, "errors": {}, "commands": ["nycc-bench evaluate ..."], "notes": [],
            "extra": {"run_id": run, "options": {}}}


def test_metric_extraction_reads_the_declared_scores() -> None:
    crowd = next(m for m in metrics() if m.label == "CrowdAcc")
    assert crowd.extract({"accuracy": score(0.5, 0.4, 0.6), "crowd_accuracy": score(0.25, 0.1, 0.4, 40)}) == (
        0.25, 0.1, 0.4, 40)
    win = next(m for m in metrics() if m.label == "Win rate vs top 10")
    assert win.extract({"win_rate_top10": score(0.3, 0.2, 0.4, 94)}) == (0.3, 0.2, 0.4, 94)
    assert win.extract(None) == (None, None, None, None) and win.extract({"average_ead": score(0.9, None, None)})[0] \
        is None
    assert len({m.key for m in metrics()}) == len(metrics())
    assert {m.family for m in metrics()} == {f.key for f in family_list()}
    assert all(family_metrics(f.key) for f in family_list()) and all(m.headline for m in family_metrics(None))


def test_arena_rank_shares_ranks_when_intervals_overlap() -> None:
    values = pd.Series([0.9, 0.85, 0.5, None])
    lows, highs = pd.Series([0.8, 0.7, 0.4, None]), pd.Series([0.95, 0.9, 0.6, None])
    ranks = arena_rank(values, lows, highs)
    assert list(ranks[:3]) == [1, 1, 3] and pd.isna(ranks[3])
    assert list(arena_rank(values, lows, highs, higher_is_better=False)[:3]) == [2, 2, 1]
    assert list(overall_rank(pd.Series([1.5, 1.0, float("nan"), 1.5]))[[0, 1, 3]]) == [2, 1, 2]


def test_one_column_per_metric_sorted_by_value_with_details_in_the_cell() -> None:
    results = [result("a", "org/alpha", 0.62, 0.55, 0.70), result("b", "org/beta", 0.40, 0.35, 0.45, params=None,
                                                                   kind="api"),
               result("c", "base/random", 0.20, 0.1, 0.3, kind="baseline", sample=True, params=None)]
    frame = build_frame(results)
    table = tab_table(frame, "hessel2023", Filters())
    assert list(table.texts["Model"]) == ["[org/alpha](https://huggingface.co/org/alpha)",
                                          "[org/beta](https://huggingface.co/org/beta)",
                                          "[base/random](https://huggingface.co/base/random)"]
    assert list(table.values["Matching"]) == [62.0, 40.0, 20.0]
    assert table.texts.loc[0, "Matching"] == "62.0 [55.0, 70.0]"
    assert list(table.values.columns[:6]) == ["Rank", "Model", "Type", "Params", "Data", "Judge"]
    assert not [c for c in table.values.columns if "CI" in c or c.endswith(" n")]
    assert list(table.texts["Rank"]) == ["1", "2", "3"] and table.run_ids == ("a", "b", "c")
    assert table.texts.loc[0, "Ranking"] == "not run"
    detailed = tab_table(frame, "hessel2023", Filters(details=True))
    assert detailed.texts.loc[0, "Matching"] == "62.0 [55.0, 70.0] n=528"
    value = detailed.component_value()
    assert value["data"][0][value["headers"].index("Matching")] == 62.0  # sorting uses the number
    assert value["metadata"]["display_value"][0][value["headers"].index("Matching")].startswith("62.0 [55.0, 70.0]")
    assert datatypes(list(table.values.columns))[:3] == ["number", "markdown", "str"]
    only = tab_table(frame, "hessel2023", Filters(search="ALPHA; rand"))
    assert len(only) == 2
    assert len(tab_table(frame, "hessel2023", Filters(types=("API",)))) == 1
    assert len(tab_table(frame, "hessel2023", Filters(sizes=("1-3B",)))) == 1
    assert len(tab_table(frame, "hessel2023", Filters(show_sample=False))) == 2
    slim = tab_table(frame, None, Filters(settings=("from pixels",)))
    assert "Matching" not in slim.values.columns and "Matching (pixels)" in slim.values.columns
    assert "Rank" in slim.values.columns and slim.empty  # no run has a from-pixels result
    assert tab_table(frame, "humorbench", Filters()).empty
    assert tab_table(build_frame([]), "hessel2023", Filters()).empty


def test_overview_ranks_by_mean_rank_and_cells_say_why_they_are_empty() -> None:
    judged = {"caption_generation": entry("caption_generation", {"win_rate_top10": score(0.5, 0.3, 0.7, 40),
                                                                  "average_ead": score(0.9, None, None, 10)})}
    a = result("a", "org/alpha", 0.62, 0.55, 0.70, extra=judged)
    a["judge"] = {"name": "reward:/m", "backend": "reward", "model": "/m", "base_url": None}
    b = result("b", "org/beta", 0.30, 0.25, 0.35)
    b["skipped"] = {"caption_generation": "system: beta answers multiple-choice tasks only",
                    "humorbench": "needs a judge: pass --judge"}
    overview = tab_table(build_frame([b, a]), None, Filters())
    assert overview.run_ids == ("a", "b") and list(overview.texts["Rank"]) == ["1", "2"]
    row = dict(zip(overview.texts.columns, overview.texts.iloc[1], strict=True))
    assert row["Win rate vs top 10"] == "n/a" and row["Element accuracy"] == "no judge"
    first = dict(zip(overview.texts.columns, overview.texts.iloc[0], strict=True))
    assert first["Judge"] == "offline reward model" and first["Average EAD"] == "0.900"
    assert first["Win rate vs top 10"] == "50.0 [30.0, 70.0]"


def test_exports_hold_every_run_and_metric(tmp_path: Any) -> None:
    files = write_exports([result("a", "org/alpha", 0.62, 0.55, 0.70), result("b", EVIL, 0.4, 0.3, 0.5)], tmp_path)
    assert [f.rsplit("/", 1)[1] for f in files] == ["leaderboard.csv", "leaderboard.json"]
    rows = json.loads((tmp_path / "leaderboard.json").read_text())
    assert [r["run_id"] for r in rows] == ["a", "b"] and rows[0]["matching:accuracy"] == 0.62
    assert rows[0]["matching:accuracy:ci_low"] == 0.55 and rows[0]["matching:accuracy:n"] == 528
    assert rows[1]["model"] == EVIL
    assert next(csv.DictReader((tmp_path / "leaderboard.csv").read_text().splitlines()))["matching:accuracy"] == "0.62"


def test_size_buckets_and_links() -> None:
    assert [size_bucket(p) for p in (None, 5e8, 1e9, 7.2e9, 7e10)] == ["unknown", "< 1B", "1-3B", "7-15B", "35B+"]
    assert model_link(EVIL, None) == r"\<script\>alert\(1\)\</script\>"
    assert model_link("org/x", "javascript:alert(1)") == "org/x"


def test_detail_and_choices_escape_everything() -> None:
    evil = result("e", EVIL, 0.5, 0.4, 0.6)
    evil["errors"] = {"ranking": EVIL}
    evil["model"]["url"] = None
    html = detail_html(evil)
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "50.0 [40.0, 60.0] (n=528)" in html
    assert run_choices([evil])[0][1] == "e"


def test_settings_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("NYCC_LB_ALLOW_LOCAL", "1")
    monkeypatch.setenv("NYCC_LB_JUDGES", "caption_generation=reward:/m, humorbench=openai:gpt-4o")
    monkeypatch.setenv("NYCC_LB_FOLDS", "0,1")
    monkeypatch.setenv("NYCC_LB_MAX_PARAMS_B", "8")
    s = Settings.from_env(data_dir=tmp_path)
    assert s.allow_local and not s.allow_api and s.folds == (0, 1) and s.max_params_b == 8
    assert s.judges == {"caption_generation": "reward:/m", "humorbench": "openai:gpt-4o"} and not s.hub
    assert not any("token" in f for f in s.__dataclass_fields__)  # secrets are read where used, never kept
    monkeypatch.setenv("NYCC_LB_JUDGES", "oops")
    with pytest.raises(ValueError, match="NYCC_LB_JUDGES"):
        Settings.from_env(data_dir=tmp_path)


def test_plots_show_intervals_only_where_there_are_some_on_shared_axes() -> None:
    from nycc_bench.leaderboard.plots import compare_plot, interval_plot

    ead = {"caption_generation": entry("caption_generation", {"average_ead": score(0.9, None, None, 10)})}
    frame = build_frame([result("a", "org/alpha", 0.62, 0.55, 0.70, extra=ead),
                         result("b", "org/beta", 0.4, 0.35, 0.45)])
    fig = interval_plot(frame, metrics()[0])
    ax = fig.axes[0]
    at = {t.get_position()[1]: t.get_text() for t in ax.get_yticklabels()}
    assert [at[y] for y in sorted(at, reverse=True)] == ["org/alpha", "org/beta"]  # best on top
    assert "95% interval" in ax.get_title(loc="left") and len(ax.collections) == 1  # one set of error bars
    assert ax.get_xlim() == (-2.0, 102.0)  # every percentage plot shares the 0-100 axis
    average_ead = next(m for m in metrics() if m.score == "average_ead")
    ead_ax = interval_plot(frame, average_ead).axes[0]
    assert ead_ax.get_title(loc="left") == "Average EAD: score (no interval computed)"
    assert len(ead_ax.collections) == 0 and ead_ax.get_xlim()[0] > 0.5  # no error bars; around 0.9
    empty = interval_plot(build_frame([]), metrics()[0])
    assert any("no scored run" in t.get_text() for t in empty.axes[0].texts)
    assert not math.isnan(frame.loc[0, metrics()[0].key])
    zeros = build_frame([result("z1", "org/z1", 0.0, 0.0, 0.0), result("z2", "org/z2", 0.0, 0.0, 0.0)])
    flat = interval_plot(zeros, metrics()[0]).axes[0]
    assert flat.get_title(loc="left") == "Matching (%): all 2 runs score 0.0" and flat.get_xlim() == (-2.0, 102.0)
    wide = build_frame([result("w", "org/wide", 0.5, 0.0, 1.0)])
    assert interval_plot(wide, metrics()[0]).axes[0].get_xlim() == (-2.0, 102.0)  # 0-100 shown whole
    both = compare_plot(frame, ["a", "b"], family_metrics("hessel2023")).axes[0]
    assert [t.get_text() for t in both.get_legend().get_texts()] == ["org/alpha", "org/beta"]


def test_params_and_cells_a_system_cannot_fill_say_why() -> None:
    known = result("k", "org/known", 0.5, 0.4, 0.6, params=7_200_000_000)
    api = result("api", "gpt-x", 0.5, 0.4, 0.6, params=None, kind="api")
    api["model"]["spec"] = "openai:gpt-x"
    sbert = result("s", "sbert", 0.5, 0.4, 0.6, params=None)
    sbert["model"]["spec"] = "sbert:all-MiniLM-L6-v2"
    length = result("l", "length", 0.5, 0.4, 0.6, params=None)
    length["model"]["spec"] = "length"
    table = tab_table(build_frame([known, api, sbert, length]), None, Filters())
    rows = {run: dict(zip(table.texts.columns, table.texts.iloc[i], strict=True))
            for i, run in enumerate(table.run_ids)}
    assert rows["k"]["Params"] == "7.2B" and rows["api"]["Params"] == "API: not disclosed"
    assert rows["s"]["Params"] == "not recorded" and rows["l"]["Params"] == "none (no model)"
    # sbert reads descriptions only and never runs from pixels: n/a there, by the README's rule; not run elsewhere
    assert rows["s"]["Matching (pixels)"] == "n/a" and rows["s"]["Win rate vs top 10"] == "not run"
    assert rows["l"]["Win rate vs top 10"] == "n/a"  # length answers multiple choice only
