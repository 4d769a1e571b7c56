"""Calls through the OpenAI Batch API (`--judge-batch`, `--batch`): one JSONL upload, polling, the answers joined
back through the same cache; a run stopped while a batch is pending collects it when run again (its id is kept in
the run folder); the dry run prices the calls at the batch rate. Against a local fake of the files and batches
endpoints (tests/fake_openai_batch.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import Reply, last_user_text
from fake_openai_batch import FakeBatchServer

from nycc_bench.cli import main
from nycc_bench.errors import BatchPending
from nycc_bench.judge import build_generation_jobs
from nycc_bench.llm import LLMConfig, LLMEngine
from nycc_bench.llm.batch import STATE_FILE, pending_batches


def echo(body: dict, attempt: int) -> Reply:
    """Answer each prompt with its own text upper-cased (so answers can be checked against prompts)."""
    return Reply(text=last_user_text(body).upper(), prompt_tokens=100, completion_tokens=10)


def jobs_for(config: LLMConfig, texts: list[str]) -> list:
    return build_generation_jobs([[{"role": "user", "content": t}] for t in texts], config)


def config(server: FakeBatchServer, tmp_path: Path, **changes) -> LLMConfig:
    return LLMConfig(model="gpt-4o-mini", base_url=server.base_url, cache_dir=str(tmp_path / "cache"), batch=True,
                     batch_dir=str(tmp_path / "run"), batch_poll_s=0.01, progress=False, **changes)


def test_a_batch_run_answers_through_one_upload_and_fills_the_cache(tmp_path: Path) -> None:
    texts = ["one", "two", "three", "two"]  # a repeated prompt is one call
    with FakeBatchServer(echo) as server:
        engine = LLMEngine(config(server, tmp_path))
        records = engine.run(jobs_for(engine.config, texts))
        assert [r["text"] for r in records] == ["ONE", "TWO", "THREE", "TWO"]
        assert server.chat_requests == 0 and len(server.batches) == 1
        (batch,) = server.batches.values()
        assert batch["request"]["endpoint"] == "/v1/chat/completions"
        assert batch["request"]["completion_window"] == "24h"
        assert [u["purpose"] for u in server.uploads] == ["batch"]
        assert sorted(line["body"]["messages"][0]["content"] for line in batch["lines"]) == ["one", "three", "two"]
        stats = engine.last_stats
        assert (stats.n_calls, stats.n_cached, stats.prompt_tokens) == (3, 0, 300)
        assert stats.cost_usd == pytest.approx((300 * 0.15 + 30 * 0.60) / 1e6 / 2)  # the batch rate: half
        assert pending_batches(tmp_path / "run") == []  # collected: nothing left pending
        # the same cache answers a synchronous run: nothing is sent again
        sync = LLMEngine(config(server, tmp_path).replace(batch=False))
        assert [r["text"] for r in sync.run(jobs_for(sync.config, texts))] == ["ONE", "TWO", "THREE", "TWO"]
        assert server.chat_requests == 0 and sync.last_stats.n_cached == 3
        engine.close()
        sync.close()


def test_a_stopped_run_collects_its_pending_batch_when_run_again(tmp_path: Path) -> None:
    with FakeBatchServer(echo) as server:
        server.hold = True
        first = LLMEngine(config(server, tmp_path, batch_wait_s=0.05))
        with pytest.raises(BatchPending, match="run the same command again") as stop:
            first.run(jobs_for(first.config, ["a", "b"]))
        first.close()
        (batch_id,) = server.batches
        assert batch_id in str(stop.value)
        kept = json.loads((tmp_path / "run" / STATE_FILE).read_text())["batches"]
        assert [b["id"] for b in kept] == [batch_id] and len(kept[0]["keys"]) == 2
        server.hold = False
        again = LLMEngine(config(server, tmp_path))
        records = again.run(jobs_for(again.config, ["a", "b"]))
        again.close()
        assert [r["text"] for r in records] == ["A", "B"]
        assert list(server.batches) == [batch_id]  # collected, not submitted again
        assert pending_batches(tmp_path / "run") == []


def test_failed_lines_are_errors_never_cached_and_asked_again(tmp_path: Path) -> None:
    def flaky(body: dict, attempt: int) -> Reply:
        return Reply(status=500, error_message="overloaded") if last_user_text(body) == "bad" else echo(body, attempt)

    with FakeBatchServer(flaky) as server:
        engine = LLMEngine(config(server, tmp_path))
        records = engine.run(jobs_for(engine.config, ["ok", "bad"]))
        assert records[0]["text"] == "OK" and records[0]["error"] is None
        assert records[1]["text"] is None and "HTTP 500: overloaded" in records[1]["error"]
        assert engine.last_stats.n_failed == 1
        server.responder = echo
        records = engine.run(jobs_for(engine.config, ["ok", "bad"]))
        assert [r["text"] for r in records] == ["OK", "BAD"]
        second = list(server.batches.values())[1]
        assert [line["body"]["messages"][0]["content"] for line in second["lines"]] == ["bad"]  # only the failed one
        server.fail_batches = True
        records = engine.run(jobs_for(engine.config, ["new"]))
        assert "ended (failed: scripted batch failure)" in records[0]["error"]
        engine.close()


def test_the_dry_run_prices_batch_calls_at_the_batch_rate(tmp_path: Path) -> None:
    with FakeBatchServer(echo) as server:
        batch = LLMEngine(config(server, tmp_path))
        sync = LLMEngine(config(server, tmp_path).replace(batch=False))
        jobs = jobs_for(batch.config, ["x" * 400, "y" * 800])
        cheap, full = batch.estimate(jobs), sync.estimate(jobs)
        assert cheap.cost_usd == pytest.approx(full.cost_usd / 2) and cheap.batch and not full.batch
        assert "Batch API" in str(cheap) and "Batch API" not in str(full)
        assert server.batches == {} and server.chat_requests == 0
        batch.close()
        sync.close()


def test_batch_is_refused_for_a_backend_that_has_none() -> None:
    with pytest.raises(ValueError, match="batch: the Batch API is OpenAI's"):
        LLMConfig(backend="transformers", model="m", batch=True)


def test_evaluate_batch_system_keeps_the_batch_in_the_run_folder(sample_dataset: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """`nycc-bench evaluate --system openai:M --batch`, not waiting: every task's and fold's batch is submitted,
    the run exits 3 and the ids are in the run folder; the same command again collects them all and scores."""
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    with FakeBatchServer(lambda body, attempt: Reply(text="Answer: A")) as server:
        server.hold = True
        argv = ["evaluate", "--system", "openai:gpt-4o", "--base-url", server.base_url, "--batch", "--tasks",
                "matching,ranking", "--limit", "3", "--dataset", sample_dataset, "--out", str(tmp_path / "run"),
                "--quiet"]
        assert main([*argv, "--batch-wait", "0"]) == 3
        err = capsys.readouterr().err
        assert "still pending" in err and "matching: " in err and "ranking: " in err
        submitted = list(server.batches)
        assert len(submitted) >= 3  # matching's folds and ranking's, all at once
        assert sorted(b["id"] for b in pending_batches(tmp_path / "run")) == sorted(submitted)
        assert not (tmp_path / "run" / "results.json").exists()
        server.hold = False
        assert main(argv) == 0
        assert list(server.batches) == submitted and server.chat_requests == 0  # collected, none sent again
        record = json.loads((tmp_path / "run" / "results.json").read_text())
        entry = record["tasks"]["matching"]
        assert entry["config"]["effective"]["system"]["batch"] is True
        assert entry["scores"]["accuracy"]["n"] == 3 * len(entry["config"]["dataset"]["folds"])
        assert pending_batches(tmp_path / "run") == []


def test_evaluate_judge_batch(sample_dataset: str, tmp_path: Path) -> None:
    """A named judge through the Batch API: its calls go in one batch whose id is kept in the run folder."""
    from nycc_bench import evaluate
    from nycc_bench.judging import JudgeSpec

    with FakeBatchServer(lambda body, attempt: Reply(text="A")) as server:
        judge = JudgeSpec.parse("zhang_best_pick_gpt4o", base_url=server.base_url, cache_dir=str(tmp_path / "cache"),
                                batch=True)
        run = evaluate("random", ["caption_generation"], dataset=sample_dataset, judge=judge, out=tmp_path / "run",
                       progress=False)
    assert server.chat_requests == 0 and len(server.batches) == 1
    assert "--judge-batch" in run.record["commands"][0]
    assert run.scores["caption_generation"]


def test_judge_batch_is_refused_for_a_local_judge_in_one_line() -> None:
    from nycc_bench.errors import NyccBenchError
    from nycc_bench.judging import JudgeSpec

    with pytest.raises(NyccBenchError, match=r"judge_batch: the Batch API is OpenAI's; transformers:m .*--judge-batch"):
        JudgeSpec.parse("transformers:m", batch=True)


def test_polling_starts_soon_grows_and_its_eta_comes_from_observed_progress(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The first wait is FIRST_POLL_S, each later one longer, never past batch_poll_s; the ETA is unknown until a
    call is answered, then the calls left at the rate observed. A fake clock: the waits are recorded, not slept."""
    from nycc_bench.llm import batch

    clock = [1000.0]
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(batch.asyncio, "sleep", sleep)
    monkeypatch.setattr(batch.time, "monotonic", lambda: clock[0])
    with FakeBatchServer(echo, polls_to_finish=12) as server:  # one call answered every 2 polls
        engine = LLMEngine(config(server, tmp_path).replace(batch_poll_s=8.0, progress=True))
        records = engine.run(jobs_for(engine.config, [f"t{i}" for i in range(10)]))
        engine.close()
    assert [r["text"] for r in records] == [f"T{i}" for i in range(10)]
    assert len(waits) == 11 and waits[0] == batch.FIRST_POLL_S and waits[1] > waits[0] and max(waits) <= 8.0, waits
    err = capsys.readouterr().err
    assert "ETA unknown: no call answered yet (1 poll)" in err, err
    assert batch.batch_eta(0, 10, 30.0) is None and batch.batch_eta(2, 10, 10.0) == 40.0
    assert batch.eta_text(2, 10, 10.0, 3) == "ETA 0:00:40 (2 of 10 answered in 10 s)"
    assert "ETA 0:00:" in err  # shown once calls are answered
    assert batch.poll_delay(None, 30.0) == 2.0 and batch.poll_delay(2.0, 30.0) == 3.0
    assert batch.poll_delay(20.0, 30.0) == 30.0 and batch.poll_delay(20.0, 30.0, eta_s=5.0) == 5.0
