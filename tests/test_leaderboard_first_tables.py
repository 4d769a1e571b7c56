"""The leaderboard's tables come with the page: the served page already holds every view's rows (no load event
needed to show them), and a result published after start-up is in the page served after the next refresh."""

from __future__ import annotations

import copy
import json
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_leaderboard import free_port

from nycc_bench.leaderboard import SEED_DIR, Settings, create_app
from nycc_bench.leaderboard.ui import VIEWS, launch_options
from nycc_bench.results import read_results
from nycc_bench.standings import SETTINGS, SIZES, TYPES, UNKNOWN_SIZE
from nycc_bench.tasks.scores import family_metrics


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> Iterator[tuple[str, Any]]:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    settings = Settings(data_dir=tmp_path_factory.mktemp("first") / "data", dataset=sample_dataset,
                        allow_local=True, worker=False, sample_data=True)
    demo, app = create_app(settings)  # seeded from the package's seed
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                        **launch_options(settings))
    yield f"http://127.0.0.1:{port}", app
    demo.close()


def served(url: str, prefix: str = "table-") -> dict[str, Any]:
    """elem_id -> the initial value of each component (by default each leaderboard table) in the config the server
    hands a new page."""
    with urllib.request.urlopen(f"{url}/config", timeout=30) as response:
        config = json.load(response)
    return {c["props"]["elem_id"]: c["props"]["value"] for c in config["components"]
            if str(c.get("props", {}).get("elem_id", "")).startswith(prefix)}


def served_tables(url: str) -> dict[str, dict[str, Any]]:
    return served(url)


def names(value: dict[str, Any]) -> str:
    return json.dumps(value["data"]) + json.dumps(value["metadata"]["display_value"])


def test_every_view_is_served_with_its_rows(board: tuple[str, Any]) -> None:
    url, _ = board
    tables = served_tables(url)
    assert set(tables) == {f"table-{key}" for _, key, _ in VIEWS}
    for elem_id, value in tables.items():
        assert value["data"] and "random" in names(value), elem_id  # the seed's baselines, ranked
    plots = {k: v for k, v in served(url, "plot-").items() if not k.startswith("plot-metric-")}
    assert set(plots) == {f"plot-{key}" for _, key, _ in VIEWS} and all(v and v.get("plot") for v in plots.values())
    with urllib.request.urlopen(f"{url}/", timeout=30) as response:
        assert "Random baseline" in response.read().decode() or "random" in names(tables["table-overview"])


def test_a_result_published_after_start_up_is_served_after_the_next_refresh(board: tuple[str, Any]) -> None:
    url, app = board
    record = copy.deepcopy(read_results(sorted((Path(SEED_DIR) / "results").glob("*.json"))[0]))
    record["model"]["name"] = "org/published-later"
    record["extra"] = {**(record.get("extra") or {}), "run_id": "published-later"}
    assert "published-later" not in names(served_tables(url)["table-overview"])
    app.store.save_result(record)
    app.refresh("", [], [], [], True, False, *[""] * len(VIEWS))  # what the page's load event runs
    assert "published-later" in names(served_tables(url)["table-overview"])


def test_the_load_event_sends_the_tables_only_when_the_page_has_older_ones(board: tuple[str, Any]) -> None:
    """On load the page sends back the version of the tables it was served: the same version under the default
    filters gets the tables and plots left as they are (not sent and drawn again), a plot of another metric is
    drawn; an older version gets every table."""
    url, app = board
    version = served(url, "tables-version")["tables-version"]
    defaults = (list(TYPES.values()), [s[0] for s in SIZES] + [UNKNOWN_SIZE], list(SETTINGS))
    labels = [family_metrics(family)[0].label for family, _, _ in VIEWS]  # the pickers' defaults
    same = app.refresh("", *defaults, True, False, *labels, page_version=version)
    assert all(t == {"__type__": "update"} for t in same[1:1 + 2 * len(VIEWS)])  # gr.skip(): tables, plots
    other_metric = [m.label for m in family_metrics(None)][1]
    replotted = app.refresh("", *defaults, True, False, other_metric, *labels[1:], page_version=version)
    assert replotted[1] == {"__type__": "update"} and replotted[2] != {"__type__": "update"}
    older = app.refresh("", *defaults, True, False, *labels, page_version=str(int(version) - 1))
    assert all(t.value["data"] for t in older[1:1 + 2 * len(VIEWS):2])  # every table sent, with its rows
    assert "published-later" in json.dumps(older[1].value, default=str)
    searched = app.refresh("org/", *defaults, True, False, *labels, page_version=version)
    assert searched[1].value["data"] and "published-later" in json.dumps(searched[1].value, default=str)
