"""Every run has an overall deadline that a `retry-after` cannot exceed: a 429 asking for two hours with retries=1
ends the item at once with an error naming the deadline (no wait, no second request); a call not started before
the deadline is never sent; both are failures, never cached answers, and `evaluate` records them as failed items."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply

from nycc_bench import evaluate
from nycc_bench.judge import build_generation_jobs
from nycc_bench.llm import LLMConfig, LLMEngine
from nycc_bench.predictions import read_predictions


def rate_limited(body: dict, attempt: int) -> Reply:
    return Reply(status=429, headers={"retry-after": "7200"}, error_message="quota")


def engine(server: FakeChatServer, tmp_path: Path, **changes: object) -> LLMEngine:
    return LLMEngine(LLMConfig(model="gpt-4o-mini", base_url=server.base_url, cache_dir=str(tmp_path / "cache"),
                               progress=False, retries=1, retry_backoff_s=0.01, **changes))


def test_a_retry_after_past_the_deadline_is_not_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeChatServer(rate_limited) as server:
        judge = engine(server, tmp_path, deadline_s=30.0)  # the capped wait (300 s) would pass it
        records = judge.run(build_generation_jobs([[{"role": "user", "content": t}] for t in "abc"], judge.config))
        judge.close()
        assert server.count() == 3  # one request each: the retry was never waited for
    for record in records:
        assert record["text"] is None
        assert "not retried: a wait of 300 s would pass this run's deadline (deadline_s=30.0 s)" in record["error"]
    with FakeChatServer(lambda body, attempt: Reply(text="fine")) as server:  # nothing was cached: asked again
        again = engine(server, tmp_path)
        assert [r["text"] for r in again.run(build_generation_jobs([[{"role": "user", "content": "a"}]],
                                                                   again.config))] == ["fine"]
        again.close()


def test_a_call_after_the_deadline_is_not_sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeChatServer(lambda body, attempt: Reply(text="late")) as server:
        judge = engine(server, tmp_path, deadline_s=1e-9)
        (record,) = judge.run(build_generation_jobs([[{"role": "user", "content": "x"}]], judge.config))
        judge.close()
        assert server.count() == 0
    assert "not sent: this run's deadline (deadline_s=1e-09 s) has passed" in record["error"]
    with pytest.raises(ValueError, match="deadline_s must be a positive number"):
        LLMConfig(deadline_s=0)


def test_evaluate_stops_waiting_at_the_deadline(sample_dataset: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    with FakeChatServer(rate_limited) as server:
        run = evaluate("openai:fake", ["matching"], dataset=sample_dataset, folds=[0], out=tmp_path / "run",
                       base_url=server.base_url, progress=False, raise_errors=False, retries=1, deadline_s=30.0)
    entry = run.record["tasks"]["matching"]
    assert entry["n_failed"] == entry["n"] > 0
    failed = read_predictions(tmp_path / "run" / entry["predictions"][0])
    assert all("deadline_s=30.0 s" in str(item.get("error")) for item in failed.values())
