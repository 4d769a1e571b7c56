"""The leaderboard page in headless Chromium with --runs synthetic runs (default 200) against the same page with
only the package's seed: seconds from the page's load event until the overview table shows its rows, and until
every family tab's table has been shown, each the best of --repeat fresh page loads. The page serves its tables'
rows and plots with the page itself; `previous` is the same 200-run page with them left to the load event (the
tables built empty and filled by the refresh that also draws the plots), as before. A benchmark, not a test: it asserts
nothing about time. Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from nycc_bench.leaderboard import SEED_DIR
from nycc_bench.leaderboard.ui import App
from nycc_bench.results import read_results

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FIRST_TABLES, FIRST_PLOTS = App.first_tables, App.first_plots
ROWS_JS = """([key, name]) => {
  const root = document.querySelector('#table-' + key);
  return !!root && [...root.querySelectorAll('[role=row].virtual-row')].some(r => r.innerText.includes(name));
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(data_dir: Path, dataset: Path, runs: int, previous: bool = False) -> tuple[Any, int, str]:
    """A leaderboard over a fresh data dir holding the seed and `runs` synthetic runs when it starts (as a Space
    restarts over its store); its port and a model to look for. `previous`: the tables start empty."""
    from nycc_bench.leaderboard import Settings, create_app, open_store
    from nycc_bench.leaderboard.ui import VIEWS, App, launch_options

    settings = Settings(data_dir=data_dir, dataset=str(dataset), sample_data=True, worker=False)
    store = open_store(settings)
    store.seed(SEED_DIR)
    seeded = [read_results(p) for p in sorted((SEED_DIR / "results").glob("*.json"))]
    for i in range(runs):  # the seed's records under new names: the shape the page renders, 200 rows of it
        record = copy.deepcopy(seeded[i % len(seeded)])
        record["model"]["name"] = f"org{i % 17}/model-{i}"
        record["extra"] = {**(record.get("extra") or {}), "run_id": f"run-{i:04d}"}
        store.save_result(record)
    if previous:  # tables built empty and plots blank, never served with rows: filled only by the load event
        App.first_tables = lambda self, frame=None: [(pd.DataFrame(), "str")] * len(VIEWS)
        App.first_plots = lambda self, frame=None: [None] * len(VIEWS)
    try:
        demo, app = create_app(settings)
    finally:
        App.first_tables, App.first_plots = FIRST_TABLES, FIRST_PLOTS
    if previous:
        app._serve_first_tables = lambda frame: None  # the previous page kept no rows in its config
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                        **launch_options(settings))
    return demo, port, ("org" if runs else "random")  # any synthetic row (the table draws the visible rows)


def time_page(browser: Any, port: int, name: str, tabs: list[tuple[str, str]]) -> dict[str, float]:
    """One fresh page: seconds from load to the overview rows, then to every family tab's rows."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(120_000)
    page.goto(f"http://127.0.0.1:{port}/", wait_until="load")
    loaded = time.perf_counter()
    page.wait_for_function(ROWS_JS, arg=["overview", name])
    overview = time.perf_counter() - loaded
    for key, title in tabs:
        page.get_by_role("tab", name=title).click()
        page.wait_for_function(ROWS_JS, arg=[key, name])
    every = time.perf_counter() - loaded
    page.close()
    return {"overview_s": round(overview, 3), "all_tabs_s": round(every, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="CI sizes: 5 runs, once")
    args = ap.parse_args()
    if args.quick:
        args.runs, args.repeat = 5, 1
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    os.environ["HF_HUB_OFFLINE"] = "1"
    from playwright.sync_api import sync_playwright

    from nycc_bench.builders import build_dataset
    from nycc_bench.paths import SAMPLE_DIR
    from nycc_bench.tasks.scores import family_list

    tabs = [(f.key, f.title) for f in family_list()]
    figures = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        dataset = Path(tmp) / "dataset"
        build_dataset(SAMPLE_DIR, dataset, progress=False)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for label, runs, previous in (("seed_only", 0, False), (f"runs_{args.runs}", args.runs, False),
                                      (f"runs_{args.runs}_previous", args.runs, True)):
            demo, port, name = serve(Path(tmp) / label, dataset, runs, previous)
            try:
                times = [time_page(browser, port, name, tabs) for _ in range(args.repeat)]
            finally:
                demo.close()
            figures[label] = {k: min(t[k] for t in times) for k in times[0]}
            print(f"{label:>20}: overview table {figures[label]['overview_s']:.2f} s after load, every family tab "
                  f"{figures[label]['all_tabs_s']:.2f} s (best of {args.repeat})", flush=True)
        browser.close()
    print(json.dumps({"runs": args.runs, **figures, "load_average": round(os.getloadavg()[0], 2),
                      "cpu_count": os.cpu_count()}))


if __name__ == "__main__":
    main()
