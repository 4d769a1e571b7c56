"""One script cannot stuff the arena through the live Space's own routes: a new session per vote, a spoofed
`X-Forwarded-For` per vote and threads racing the cap all land on one visitor (the client address, through the
trusted-proxy rule), capped per address, recorded with the address's keyed hash, and counted nowhere (anonymous votes
count only under the operator's setting), so the counted totals the ratings read do not move."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_leaderboard import free_port

from nycc_bench.arena import ArenaSettings, VoteStore, vote_frame
from nycc_bench.arena.rating import vote_kinds
from nycc_bench.leaderboard import Settings, create_app
from nycc_bench.leaderboard.ui import launch_options

gradio_client = pytest.importorskip("gradio_client")
RECEIPT = re.compile(r"Vote <code>([0-9a-f]{16})</code> recorded")
CAP = 6
pytestmark = pytest.mark.slow  # a live server


@pytest.fixture
def board(tmp_path: Path, sample_dataset: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The leaderboard served on 127.0.0.1 with the arena's defaults but no reading time and a small anonymous cap."""
    monkeypatch.setenv("NYCC_ARENA_MIN_SECONDS", "0")
    monkeypatch.setenv("NYCC_ARENA_ANONYMOUS_CAP", str(CAP))
    monkeypatch.setenv("NYCC_ARENA_SECRET", "test-secret")
    settings = Settings(data_dir=tmp_path / "data", dataset=sample_dataset, worker=False)
    demo, _ = create_app(settings)
    port = free_port()
    demo.queue(default_concurrency_limit=8).launch(server_name="127.0.0.1", server_port=port,
                                                   prevent_thread_lock=True, quiet=True, **launch_options(settings))
    yield {"base": f"http://127.0.0.1:{port}", "root": tmp_path}
    demo.close()


def vote(board: dict[str, Any], client: Any | None = None, forwarded: str | None = None) -> str:
    """One battle and one vote on it, from `client` or a brand-new session (a new client each call)."""
    if client is None:
        headers = {"X-Forwarded-For": forwarded} if forwarded else None
        client = gradio_client.Client(board["base"], verbose=False, headers=headers,
                                      download_files=str(board["root"] / "downloads"))
    client.predict(api_name="/arena_next")
    return client.predict(False, False, api_name="/arena_vote_left")


def test_new_sessions_spoofed_headers_and_racing_threads_change_no_counted_total(board: dict[str, Any]) -> None:
    store = VoteStore(board["root"] / "data" / "arena")
    before = vote_kinds(vote_frame(store.votes(), ArenaSettings.from_env()))
    replies = [vote(board) for _ in range(CAP + 3)]  # a new session per vote
    replies += [vote(board, forwarded=f"198.51.100.{k}") for k in range(4)]  # a new spoofed address per vote

    def racer(out: list[str]) -> None:
        client = gradio_client.Client(board["base"], verbose=False, download_files=str(board["root"] / "dl"))
        out.extend(vote(board, client) for _ in range(3))

    raced: list[str] = []
    threads = [threading.Thread(target=racer, args=(raced,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    replies += raced

    accepted = [r for r in replies if RECEIPT.search(r)]
    assert len(accepted) == CAP, replies  # every trick is the one address: its cap holds
    assert all("not counted: sign in" in r for r in accepted)
    assert sum(f"daily cap of {CAP} votes per address" in r for r in replies) == len(replies) - CAP
    people = store.votes("WHERE simulated = 0")
    assert len(people) == CAP and len({v.voter for v in people}) == 1 and len({v.address_hash for v in people}) == 1
    assert {v.voter_kind for v in people} == {"anonymous"} and "127.0.0.1" not in people[0].address_hash
    after = vote_kinds(vote_frame(store.votes(), ArenaSettings.from_env()))
    assert after["counted_people"] == before["counted_people"] == 0  # the public ratings read no stuffed vote
    assert after["people"] == before["people"] + CAP  # recorded, for the operator to see
