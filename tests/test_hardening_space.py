"""On a Space the Space's proxy is trusted by default, so each visitor behind it is their own address (two visitors
behind one trusted proxy have two buckets; a visitor's own `X-Forwarded-For` value is not believed); elsewhere
nothing is trusted unless named; and no request body over the cap is read (a 60 MB queue body is refused)."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_leaderboard import free_port
from test_leaderboard_abuse import visitor

from nycc_bench.leaderboard import Settings, create_app
from nycc_bench.leaderboard.settings import SPACE_PROXIES
from nycc_bench.leaderboard.ui import launch_options


@pytest.fixture
def space(tmp_path: Path, sample_dataset: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The leaderboard as a Space starts it (`Settings.from_env` with the Space's own variables), on 127.0.0.1:
    every request comes from one address, as through the Space's proxy."""
    monkeypatch.setenv("SPACE_ID", "someone/nycc-leaderboard")
    monkeypatch.delenv("NYCC_LB_TRUSTED_PROXIES", raising=False)
    monkeypatch.delenv("OAUTH_CLIENT_ID", raising=False)
    monkeypatch.setenv("NYCC_LB_MAX_BODY_MB", "1")
    settings = Settings.from_env(data_dir=tmp_path / "data", dataset=sample_dataset, worker=False, sample_data=True,
                                 allow_api=True, api_base_url="http://127.0.0.1:9/v1", rate_limit=2)
    demo, app = create_app(settings)
    port = free_port()
    demo.queue(default_concurrency_limit=8).launch(server_name="127.0.0.1", server_port=port,
                                                   prevent_thread_lock=True, quiet=True, **launch_options(settings))
    yield {"base": f"http://127.0.0.1:{port}", "port": port, "app": app, "root": tmp_path, "settings": settings}
    demo.close()


def submit(board: dict[str, Any], forwarded: str, model: str) -> str:
    return visitor(board, forwarded).predict(model, "", ["matching"], "default", api_name="/submit")[0]


def test_settings_trust_the_space_proxy_only_on_a_space(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("SPACE_ID", "SYSTEM", "NYCC_LB_TRUSTED_PROXIES"):
        monkeypatch.delenv(name, raising=False)
    assert Settings.from_env(data_dir=tmp_path).trusted_proxies == ""
    monkeypatch.setenv("SYSTEM", "spaces")
    assert Settings.from_env(data_dir=tmp_path).trusted_proxies == SPACE_PROXIES
    monkeypatch.setenv("NYCC_LB_TRUSTED_PROXIES", "")  # the operator's word wins, even "none"
    assert Settings.from_env(data_dir=tmp_path).trusted_proxies == ""


@pytest.mark.slow
def test_two_visitors_behind_the_space_proxy_are_two_visitors(space: dict[str, Any]) -> None:
    assert space["settings"].trusted_proxies == SPACE_PROXIES
    first = [submit(space, "203.0.113.1", f"openai:one-{k}") for k in range(2)]
    second = [submit(space, "203.0.113.2", f"openai:two-{k}") for k in range(2)]
    assert all("Queued" in a for a in first + second), first + second  # a bucket each, two submissions each
    # the first visitor's third: its own header value first, the address the proxy appended last
    spoofed = submit(space, "198.51.100.7, 203.0.113.1", "openai:one-2")
    assert "rate limit" in spoofed
    users = {job.user for job in space["app"].store.jobs()}
    assert len(users) == 2, users  # two visitors (their addresses, hashed), not one proxy


@pytest.mark.slow
def test_a_huge_request_body_is_refused_unread(space: dict[str, Any]) -> None:
    for chunked in (False, True):
        conn = http.client.HTTPConnection("127.0.0.1", space["port"], timeout=60)
        body = b'{"data": ["' + b"x" * (3 * 2**20) + b'"], "fn_index": 0, "session_hash": "abc"}'
        try:
            if chunked:
                conn.putrequest("POST", "/gradio_api/queue/join")
                conn.putheader("Content-Type", "application/json")
                conn.putheader("Transfer-Encoding", "chunked")
                conn.endheaders()
                for start in range(0, len(body), 2**16):
                    piece = body[start:start + 2**16]
                    conn.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                conn.send(b"0\r\n\r\n")
            else:
                conn.request("POST", "/gradio_api/queue/join", body=body, headers={"Content-Type": "application/json"})
            answer = conn.getresponse()
            assert answer.status == 413 and b"request body over 1,048,576 bytes" in answer.read()
        except (BrokenPipeError, ConnectionResetError):  # refused before the client finished sending: also unread
            pass
        finally:
            conn.close()
    assert "Queued" in submit(space, "203.0.113.3", "openai:small")  # an ordinary request still goes through
