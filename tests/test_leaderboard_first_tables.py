"""The leaderboard's tables come with the page: the served page already holds every view's rows (no load event
needed to show them), and a result published after start-up is in the page served after the next refresh."""

from __future__ import annotations

import copy
import json
import os
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nycc_bench.leaderboard import SEED_DIR, Settings, create_app
from nycc_bench.leaderboard.ui import VIEWS, launch_options
from nycc_bench.results import read_results


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> Iterator[tuple[str, Any]]:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    settings = Settings(data_dir=tmp_path_factory.mktemp("first") / "data", dataset=sample_dataset,
                        allow_local=True, worker=False, sample_data=True)
    demo, app = create_app(settings)  # seeded from the package's seed
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                        **launch_options(settings))
    yield f"http://127.0.0.1:{port}", app
    demo.close()


def served_tables(url: str) -> dict[str, dict[str, Any]]:
    """elem_id -> the initial value of each leaderboard table in the config the server hands a new page."""
    with urllib.request.urlopen(f"{url}/config", timeout=30) as response:
        config = json.load(response)
    return {c["props"]["elem_id"]: c["props"]["value"] for c in config["components"]
            if str(c.get("props", {}).get("elem_id", "")).startswith("table-")}


def names(value: dict[str, Any]) -> str:
    return json.dumps(value["data"]) + json.dumps(value["metadata"]["display_value"])


def test_every_view_is_served_with_its_rows(served: tuple[str, Any]) -> None:
    url, _ = served
    tables = served_tables(url)
    assert set(tables) == {f"table-{key}" for _, key, _ in VIEWS}
    for elem_id, value in tables.items():
        assert value["data"] and "random" in names(value), elem_id  # the seed's baselines, ranked
    with urllib.request.urlopen(f"{url}/", timeout=30) as response:
        assert "Random baseline" in response.read().decode() or "random" in names(tables["table-overview"])


def test_a_result_published_after_start_up_is_served_after_the_next_refresh(served: tuple[str, Any]) -> None:
    url, app = served
    record = copy.deepcopy(read_results(sorted((Path(SEED_DIR) / "results").glob("*.json"))[0]))
    record["model"]["name"] = "org/published-later"
    record["extra"] = {**(record.get("extra") or {}), "run_id": "published-later"}
    assert "published-later" not in names(served_tables(url)["table-overview"])
    app.store.save_result(record)
    app.refresh("", [], [], [], True, False, *[""] * len(VIEWS))  # what the page's load event runs
    assert "published-later" in names(served_tables(url)["table-overview"])
