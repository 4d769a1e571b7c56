"""A batch answer once received is never paid for again: a run is stopped at every point between one batch ending
and another still pending (an exception standing for Ctrl-C or a kill, and `batch_wait_s`), then resumed; every
call is sent in exactly one batch line overall (tests/fake_openai_batch.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fake_openai_batch import FakeBatchServer
from test_llm_batch import config, echo, jobs_for

from nycc_bench.errors import BatchPending
from nycc_bench.llm import LLMEngine
from nycc_bench.llm import batch as batch_module
from nycc_bench.llm.batch import pending_batches
from nycc_bench.llm.cache import LLMCache


class Stop(BaseException):
    """A kill at one point of the run (not an Exception: nothing may catch and carry on)."""


def sent(server: FakeBatchServer) -> Counter:
    """How many times each prompt went out in a batch line."""
    return Counter(line["body"]["messages"][0]["content"] for b in server.batches.values() for line in b["lines"])


def stop_points(monkeypatch: pytest.MonkeyPatch, at: int | None) -> list[str]:
    """Count every state write and cache write in order; raise Stop right after the `at`-th (None: never)."""
    seen: list[str] = []

    def wrap(owner: Any, name: str) -> None:
        original = getattr(owner, name)

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            out = original(*args, **kwargs)
            seen.append(name)
            if at is not None and len(seen) == at:
                raise Stop(name)
            return out

        monkeypatch.setattr(owner, name, wrapped)

    wrap(batch_module.BatchState, "_write")
    wrap(LLMCache, "put")
    return seen


def run_two_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int | None) -> tuple[list[str], Counter]:
    """Batch one (a, b) pending from a stopped run; a run of a-d collects it while batch two (c, d) stays pending,
    stopped at point `at`; then a last run collects everything. The points the stopped run went through."""
    with FakeBatchServer(echo) as server:
        server.hold = True
        first = LLMEngine(config(server, tmp_path, batch_wait_s=0))
        with pytest.raises(BatchPending):
            first.run(jobs_for(first.config, ["a", "b"]))
        first.close()
        server.hold, server.hold_new = False, True  # batch one ends; the next one stays pending
        seen = stop_points(monkeypatch, at)
        second = LLMEngine(config(server, tmp_path, batch_wait_s=0.2))
        with pytest.raises((Stop, BatchPending)):
            second.run(jobs_for(second.config, ["a", "b", "c", "d"]))
        second.close()
        monkeypatch.undo()
        server.hold_new = False  # every batch ends now, a new one included
        server.held.clear()
        last = LLMEngine(config(server, tmp_path))
        records = last.run(jobs_for(last.config, ["a", "b", "c", "d"]))
        last.close()
        assert [r["text"] for r in records] == ["A", "B", "C", "D"]
        assert pending_batches(tmp_path / "run") == []
        return list(seen), sent(server)


def test_a_run_stopped_at_every_point_between_two_batches_pays_for_no_answer_twice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    points, once = run_two_batches(tmp_path / "whole", monkeypatch, None)  # stopped only by batch_wait_s
    assert once == Counter({"a": 1, "b": 1, "c": 1, "d": 1})
    assert points.count("put") == 2 and points.count("_write") >= 3  # submit two, keep one, forget one
    for at in range(1, len(points) + 1):
        _, counts = run_two_batches(tmp_path / f"stop-{at}", monkeypatch, at)
        assert counts == Counter({"a": 1, "b": 1, "c": 1, "d": 1}), f"stopped after point {at} ({points[at - 1]})"


def test_kept_answers_of_an_ended_batch_are_used_when_resumed(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopped after the answers were kept and before the cache: the next run reads them from the file."""
    with FakeBatchServer(echo) as server:
        seen = stop_points(monkeypatch, 2)  # 1: the batch submitted; 2: its answers kept
        engine = LLMEngine(config(server, tmp_path))
        with pytest.raises(Stop):
            engine.run(jobs_for(engine.config, ["x", "y"]))
        engine.close()
        monkeypatch.undo()
        assert seen == ["_write", "_write"]
        (kept,) = pending_batches(tmp_path / "run")
        assert len(kept["answers"]) == 2
        again = LLMEngine(config(server, tmp_path))
        assert [r["text"] for r in again.run(jobs_for(again.config, ["x", "y"]))] == ["X", "Y"]
        again.close()
        assert sent(server) == Counter({"x": 1, "y": 1}) and pending_batches(tmp_path / "run") == []
