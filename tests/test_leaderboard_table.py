"""The leaderboard's derived views: metric extraction, table columns, filters, Arena ranks, escaping."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from nycc_bench.leaderboard.benchmarks import FAMILIES, METRICS, Metric, family_metrics
from nycc_bench.leaderboard.detail import detail_html, run_choices
from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.table import Filters, arena_rank, build_frame, model_link, size_bucket, tab_table

EVIL = "<script>alert(1)</script>"


def result(run_id: str, name: str, accuracy: float, low: float, high: float, params: int | None = 1_000_000_000,
           kind: str = "open", sample: bool = False, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    scores = {"accuracy": accuracy, "ci_low": low, "ci_high": high, "n": 528, "n_invalid": 0}
    return {"run_id": run_id, "model": {"name": name, "url": f"https://huggingface.co/{name}", "params": params,
                                         "type": kind, "spec": f"hf:{name}@abc", "source": "hub"},
            "dataset": {"sample": sample}, "tasks": {"matching": {"score": {"scores": scores},
                                                                  "command": "nycc-bench run ..."}, **(extra or {})}}


def test_metric_extraction_follows_declared_paths() -> None:
    ranking = next(m for m in METRICS if m.label == "CrowdAcc")
    scores = {"accuracy": 0.5, "crowd_accuracy": 0.25, "crowd_ci_low": 0.1, "crowd_ci_high": 0.4, "n_crowd": 40}
    assert ranking.extract(scores) == (0.25, 0.1, 0.4, 40)
    win = next(m for m in METRICS if m.label == "Win rate vs top 10")
    judged = {"win_rate": {"human_top10": {"win_rate": 0.3, "ci_low": 0.2, "ci_high": 0.4, "n_judgments": 94}}}
    assert win.extract(judged) == (0.3, 0.2, 0.4, 94)
    element = next(m for m in METRICS if m.label == "Element accuracy")
    assert element.extract({"element_accuracy": 0.7, "ci_low": 0.6, "ci_high": 0.8, "n_pass": 7, "n_fail": 3}) == (
        0.7, 0.6, 0.8, 10)
    assert element.extract(None) == (None, None, None, None) and win.extract({"average_ead": 0.9})[0] is None
    custom = Metric("zhang2024", "caption_generation", "win_rate.human_200.win_rate", "new", n="n_judgments")
    assert custom.extract({"win_rate": {"human_200": {"win_rate": 1, "n_judgments": 2}}}) == (1.0, None, None, 2)
    assert len({m.key for m in METRICS}) == len(METRICS)
    assert {m.family for m in METRICS} == {f.key for f in FAMILIES}
    assert all(family_metrics(f.key) for f in FAMILIES) and all(m.headline for m in family_metrics(None))


def test_arena_rank_shares_ranks_when_intervals_overlap() -> None:
    values = pd.Series([0.9, 0.85, 0.5, None])
    lows, highs = pd.Series([0.8, 0.7, 0.4, None]), pd.Series([0.95, 0.9, 0.6, None])
    ranks = arena_rank(values, lows, highs)
    assert list(ranks[:3]) == [1, 1, 3] and pd.isna(ranks[3])
    assert list(arena_rank(values, lows, highs, higher_is_better=False)[:3]) == [2, 2, 1]


def test_tables_columns_filters_and_sorting() -> None:
    results = [result("a", "org/alpha", 0.62, 0.55, 0.70), result("b", "org/beta", 0.40, 0.35, 0.45, params=None,
                                                                   kind="api"),
               result("c", "base/random", 0.20, 0.1, 0.3, kind="baseline", sample=True, params=None)]
    frame = build_frame(results)
    table = tab_table(frame, "hessel2023", Filters())
    assert list(table["Model"]) == ["[org/alpha](https://huggingface.co/org/alpha)",
                                    "[org/beta](https://huggingface.co/org/beta)",
                                    "[base/random](https://huggingface.co/base/random)"]
    assert list(table["Matching"]) == [62.0, 40.0, 20.0] and table.loc[0, "Matching 95% CI"] == "[55.0, 70.0]"
    assert table.loc[0, "Matching n"] == 528 and list(table["Rank"]) == [1, 2, 3]
    assert list(table.columns[:5]) == ["Rank", "Model", "Type", "Params (B)", "Data"]
    only = tab_table(frame, "hessel2023", Filters(search="ALPHA; rand"))
    assert len(only) == 2
    assert len(tab_table(frame, "hessel2023", Filters(types=("API",)))) == 1
    assert len(tab_table(frame, "hessel2023", Filters(sizes=("1-3B",)))) == 1
    assert len(tab_table(frame, "hessel2023", Filters(show_sample=False))) == 2
    slim = tab_table(frame, None, Filters(show_ci=False, settings=("from pixels",)))
    assert "Matching" not in slim.columns and "Matching (pixels)" in slim.columns and "Rank" not in slim.columns
    assert slim.empty  # no run has a from-pixels result
    assert tab_table(frame, "humorbench", Filters()).empty
    assert tab_table(build_frame([]), "hessel2023", Filters()).empty


def test_size_buckets_and_links() -> None:
    assert [size_bucket(p) for p in (None, 5e8, 1e9, 7.2e9, 7e10)] == ["unknown", "< 1B", "1-3B", "7-15B", "35B+"]
    assert model_link(EVIL, None) == r"\<script\>alert\(1\)\</script\>"
    assert model_link("org/x", "javascript:alert(1)") == "org/x"


def test_detail_and_choices_escape_everything() -> None:
    evil = result("e", EVIL, 0.5, 0.4, 0.6)
    evil["tasks"]["matching"]["error"] = EVIL
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


def test_plot_has_one_point_per_scored_run() -> None:
    from nycc_bench.leaderboard.plots import interval_plot

    frame = build_frame([result("a", "org/alpha", 0.62, 0.55, 0.70), result("b", "org/beta", 0.4, 0.35, 0.45)])
    fig = interval_plot(frame, METRICS[0])
    ax = fig.axes[0]
    at = {t.get_position()[1]: t.get_text() for t in ax.get_yticklabels()}
    assert [at[y] for y in sorted(at, reverse=True)] == ["org/alpha", "org/beta"]  # best on top
    empty = interval_plot(build_frame([]), METRICS[0])
    assert any("no scored run" in t.get_text() for t in empty.axes[0].texts)
    assert not math.isnan(frame.loc[0, METRICS[0].key])
