"""Leaderboard page data at scale: synthetic results of N models on every task (judged scores included).

Times, each best of --repeat: reading the results from a `LocalStore` (JSON files; cold, then cached), building
the wide frame (`build_frame`), every tab's table (`tab_table`, overview + 3 families), a search filter applied
to every tab, and one interval plot drawn to PNG (30 rows, as sent to the page). The tables, the filter and
the plots are what each click on the page costs. Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nycc_bench.leaderboard import SEED_DIR
from nycc_bench.leaderboard.plots import interval_plot
from nycc_bench.leaderboard.store import LocalStore
from nycc_bench.leaderboard.ui import VIEWS
from nycc_bench.results import read_results
from nycc_bench.standings import Filters, build_frame, tab_table
from nycc_bench.tasks.scores import metrics

GROUPS = ("human_top10", "human_200", "human_1000", "human_median")


def synthetic_result(i: int, seeded: list[dict[str, Any]]) -> dict[str, Any]:
    """Model i's record: one of the package's seed records (a valid results record of every task, as `nycc-bench
    evaluate` writes it) under a new model name and run id."""
    record = copy.deepcopy(seeded[i % len(seeded)])
    record["model"]["name"] = f"org{i % 17}/model-{i}"
    record["extra"] = {**(record.get("extra") or {}), "run_id": f"run-{i:04d}"}
    return record


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
    parser.add_argument("--quick", action="store_true", help="CI sizes: 10 models, once")
    args = parser.parse_args()
    if args.quick:
        args.models, args.repeat = 10, 1
    seeded = [read_results(p) for p in sorted((SEED_DIR / "results").glob("*.json"))]
    with tempfile.TemporaryDirectory() as tmp:
        store = LocalStore(Path(tmp))
        store.seed(SEED_DIR)  # the predictions the seed records name, which each copy names too
        for i in range(args.models):
            store.save_result(synthetic_result(i, seeded))
        start = time.perf_counter()
        results = store.results()
        t_read_cold = time.perf_counter() - start
        t_read_cached, results = best(store.results, args.repeat)
    t_frame, frame = best(lambda: build_frame(results), args.repeat)
    t_tables, tables = best(lambda: [tab_table(frame, family, Filters()) for family, _, _ in VIEWS], args.repeat)
    filters = Filters(search="org3; model-1", sizes=("7-15B", "unknown"))
    t_filter, filtered = best(lambda: [tab_table(frame, family, filters) for family, _, _ in VIEWS], args.repeat)
    t_plot, _ = best(lambda: interval_plot(frame, metrics()[0]).savefig(io.BytesIO(), format="png"), args.repeat)
    cells = sum(t.values.size for t in tables)
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
