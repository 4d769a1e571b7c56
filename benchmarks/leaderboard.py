"""Leaderboard page data at scale: synthetic results of N models on every task (judged scores included).

Times, each best of --repeat: reading the results from a `LocalStore` (JSON files; cold, then cached), building
the wide frame (`build_frame`), every tab's table (`tab_table`, overview + 3 families), a search filter applied
to every tab, and one interval plot drawn to PNG (30 rows, as sent to the page). The tables, the filter and
the plots are what each click on the page costs. Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nycc_bench.leaderboard.plots import interval_plot
from nycc_bench.leaderboard.store import LocalStore
from nycc_bench.leaderboard.ui import VIEWS
from nycc_bench.standings import Filters, build_frame, tab_table
from nycc_bench.tasks.scores import metrics

GROUPS = ("human_top10", "human_200", "human_1000", "human_median")


def _rate(rng: random.Random, n: int) -> dict[str, Any]:
    p = rng.uniform(0.2, 0.9)
    half = 1.96 * (p * (1 - p) / n) ** 0.5
    return {"value": p, "ci_low": max(0.0, p - half), "ci_high": min(1.0, p + half)}


def synthetic_result(i: int, rng: random.Random) -> dict[str, Any]:
    """One model's result on every task, shaped as `nycc_bench.score.score` returns it."""
    def acc(n: int) -> dict[str, Any]:
        r = _rate(rng, n)
        return {"accuracy": r["value"], "ci_low": r["ci_low"], "ci_high": r["ci_high"], "n": n, "n_invalid": 0}

    def ranking(n: int) -> dict[str, Any]:
        crowd, ny = _rate(rng, n // 2), _rate(rng, n // 2)
        return {**acc(n), "crowd_accuracy": crowd["value"], "crowd_ci_low": crowd["ci_low"],
                "crowd_ci_high": crowd["ci_high"], "n_crowd": n // 2, "ny_accuracy": ny["value"],
                "ny_ci_low": ny["ci_low"], "ny_ci_high": ny["ci_high"], "n_ny": n - n // 2}

    explanation = {"bleu": rng.uniform(1, 8), "rouge_l": rng.uniform(0.1, 0.3), "n": 391}
    win = {}
    for g in GROUPS:
        r = _rate(rng, 94)
        win[g] = {"win_rate": r["value"], "ci_low": r["ci_low"], "ci_high": r["ci_high"], "n_judgments": 94}
    element = _rate(rng, 499)
    hard = _rate(rng, 100)
    scores = {
        "matching": acc(528), "matching_from_pixels": acc(528), "ranking": ranking(528),
        "ranking_from_pixels": ranking(528), "explanation": explanation, "explanation_from_pixels": explanation,
        "caption_generation": {"average_ead": rng.uniform(0.8, 0.97), "n_groups": 47, "win_rate": win},
        "humorbench": {"element_accuracy": element["value"], "ci_low": element["ci_low"],
                       "ci_high": element["ci_high"], "n_pass": 350, "n_fail": 149, "n_error": 0,
                       "hard_accuracy": hard["value"], "hard_ci_low": hard["ci_low"], "hard_ci_high": hard["ci_high"],
                       "n_hard": 100, "caption_all_pass": rng.uniform(0.3, 0.8), "n_captions": 309},
    }
    params = rng.choice([None, 5e8, 1.5e9, 3e9, 7e9, 8e9, 13e9, 32e9, 70e9])
    kind = "api" if params is None else "open"
    return {"run_id": f"run-{i:04d}", "model": {"name": f"org{i % 17}/model-{i}", "params": params, "type": kind,
                                                 "url": f"https://huggingface.co/org{i % 17}/model-{i}"},
            "dataset": {"sample": False},
            "tasks": {t: {"score": {"scores": s}, "predictions": [], "command": "..."} for t, s in scores.items()}}


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        store = LocalStore(Path(tmp))
        for i in range(args.models):
            store.save_result(synthetic_result(i, rng))
        start = time.perf_counter()
        results = store.results()
        t_read_cold = time.perf_counter() - start
        t_read_cached, results = best(store.results, args.repeat)
    t_frame, frame = best(lambda: build_frame(results), args.repeat)
    t_tables, tables = best(lambda: [tab_table(frame, family, Filters()) for family, _, _ in VIEWS], args.repeat)
    filters = Filters(search="org3; model-1", sizes=("7-15B", "unknown"))
    t_filter, filtered = best(lambda: [tab_table(frame, family, filters) for family, _, _ in VIEWS], args.repeat)
    t_plot, _ = best(lambda: interval_plot(frame, metrics()[0]).savefig(io.BytesIO(), format="png"), args.repeat)
    cells = sum(t.size for t in tables)
    print(f"{args.models} models x {len(metrics())} metrics; {len(VIEWS)} views, {cells} table cells in all")
    print(f"read results: cold {t_read_cold * 1e3:.1f} ms, cached {t_read_cached * 1e3:.2f} ms")
    print(f"build frame: {t_frame * 1e3:.1f} ms; all tab tables: {t_tables * 1e3:.1f} ms; filtered tables: "
          f"{t_filter * 1e3:.1f} ms ({len(filtered[0])} rows kept); plot to PNG: {t_plot * 1e3:.1f} ms")
    print(json.dumps({"models": args.models, "metrics": len(metrics()), "views": len(VIEWS), "cells": cells,
                      "read_cold_ms": round(t_read_cold * 1e3, 2), "read_cached_ms": round(t_read_cached * 1e3, 3),
                      "build_frame_ms": round(t_frame * 1e3, 2), "tables_ms": round(t_tables * 1e3, 2),
                      "filter_ms": round(t_filter * 1e3, 2), "rows_after_filter": len(filtered[0]),
                      "plot_ms": round(t_plot * 1e3, 2)}))


if __name__ == "__main__":
    main()
