"""The public Space resists cheap abuse: text fields are capped and the search is one bounded pass; a new
`X-Forwarded-For` value is not a new visitor unless it comes from the configured proxy; one visitor's requests at
work at once are bounded; and 20 concurrent gradio_client visitors (bounded requests each) leave the board
answering a newcomer."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from gradio_client import Client
from live_leaderboard import free_port

from nycc_bench.leaderboard import Settings, create_app
from nycc_bench.leaderboard.limits import MAX_CHARS, Busy, VisitorGate
from nycc_bench.leaderboard.store import Refused
from nycc_bench.leaderboard.ui import launch_options
from nycc_bench.standings import SEARCH_MAX_TERMS, search_terms

HUGE = "; ".join(f"model-{k}" for k in range(40_000))  # a 330 kB search


def every_row() -> list[Any]:
    from test_leaderboard_security import every_row as rows

    return rows()


@pytest.fixture
def board(tmp_path: Path, sample_dataset: str, request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """A leaderboard on 127.0.0.1 (no worker), trusting `X-Forwarded-For` from the proxies the test names."""
    settings = Settings(data_dir=tmp_path / "data", dataset=sample_dataset, worker=False, sample_data=True,
                        allow_api=True, api_base_url="http://127.0.0.1:9/v1", rate_limit=2,
                        trusted_proxies=getattr(request, "param", ""))
    demo, app = create_app(settings)
    port = free_port()
    demo.queue(default_concurrency_limit=8).launch(server_name="127.0.0.1", server_port=port,
                                                   prevent_thread_lock=True, quiet=True, **launch_options(settings))
    yield {"base": f"http://127.0.0.1:{port}", "app": app, "root": tmp_path}
    demo.close()


def visitor(board: dict[str, Any], forwarded: str | None = None) -> Client:
    headers = {"X-Forwarded-For": forwarded} if forwarded else None
    return Client(board["base"], verbose=False, headers=headers, download_files=str(board["root"] / "downloads"))


def test_the_search_is_bounded_and_long_fields_are_refused() -> None:
    assert len(search_terms(HUGE)) <= SEARCH_MAX_TERMS and search_terms(HUGE) == search_terms(HUGE[:200])
    assert search_terms("a; b;a ; ") == ["a", "b"]
    from nycc_bench.leaderboard.limits import capped

    with pytest.raises(Refused, match=r"^model: 201 characters, more than the 200 allowed"):
        capped("m" * (MAX_CHARS["model"] + 1), "model")


def test_one_visitor_has_a_bounded_number_of_requests_at_work() -> None:
    gate = VisitorGate(2)
    with gate.slot("a"), gate.slot("a"):
        with pytest.raises(Busy, match="2 requests at work already"), gate.slot("a"):
            pass
        with gate.slot("b"):  # another visitor is not held up
            pass
    with gate.slot("a"), gate.slot("a"):  # freed again
        pass


def test_a_new_forwarded_for_value_is_not_a_new_visitor(board: dict[str, Any]) -> None:
    answers = [visitor(board, f"203.0.113.{k}").predict(f"openai:model-{k}", "", ["matching"], "default",
                                                       api_name="/submit")[0] for k in range(3)]
    assert "Queued" in answers[0] and "Queued" in answers[1]
    assert "rate limit" in answers[2]  # one bucket: the connection's address, not the header
    long = visitor(board).predict("m" * 5000, "", ["matching"], "default", api_name="/submit")[0]
    assert "Not queued" in long and "model: 5,000 characters" in long


@pytest.mark.parametrize("board", ["127.0.0.1"], indirect=True)
def test_a_configured_proxy_is_believed(board: dict[str, Any]) -> None:
    answers = [visitor(board, f"203.0.113.{k}").predict(f"openai:model-{k}", "", ["matching"], "default",
                                                       api_name="/submit")[0] for k in range(3)]
    assert all("Queued" in a for a in answers), answers  # three visitors behind the proxy, three buckets


@pytest.mark.parametrize("board", ["127.0.0.1"], indirect=True)
def test_twenty_concurrent_visitors_leave_the_board_answering(board: dict[str, Any]) -> None:
    start = threading.Barrier(20)
    rows = every_row()

    def hammer(k: int) -> list[str]:
        client = visitor(board, f"198.51.100.{k}")
        start.wait()
        said = []
        for search in (HUGE, "random", HUGE):  # bounded: three requests each, the heaviest search allowed
            try:
                client.predict(search, *rows[1:], api_name="/refresh_1")
                said.append("answered")
            except Exception as err:  # a refusal (too many at once) is an answer too
                said.append(f"refused: {err}")
        return said

    with ThreadPoolExecutor(20) as pool:
        running = [pool.submit(hammer, k) for k in range(20)]
        newcomer = visitor(board, "192.0.2.1").predict("", *rows[1:], api_name="/refresh_1")
        assert "Random" in str(newcomer) or "random" in str(newcomer)  # the board answers with its rows
        said = [f.result(timeout=600) for f in running]
    assert all(s.startswith(("answered", "refused")) for row in said for s in row)
    assert sum(s == "answered" for row in said for s in row) >= 20
