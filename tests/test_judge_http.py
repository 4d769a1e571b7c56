"""The judge engine against a real OpenAI-compatible HTTP server on 127.0.0.1 (scripted replies and faults)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import traceback
from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply, last_user_text
from judge_helpers import (
    KEY,
    config,
    contest_of,
    files_containing,
    grader_inputs,
    group_inputs,
    item_of,
    shots_pool,
)

from nycc_bench.judge import (
    build_grader_jobs,
    explanation_win_rate,
    grade_elements,
    judge_explanations,
    judge_groups,
    judge_reliability,
)
from nycc_bench.llm import FatalJudgeError, LLMCache, LLMEngine, LogprobsUnavailableError, estimate_jobs
from nycc_bench.llm.chat import UNSET_MAX_TOKENS
from nycc_bench.llm.pricing import cost_usd, estimate_prompt_tokens

GOOD = "<reasoning>Fine.</reasoning>\n<judgement>{}</judgement>"
BAD = "<reasoning>Hmm.</reasoning>\n<judgement>MAYBE</judgement>"


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NYCC_JUDGE_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "default-cache"))


def expected_verdict(item: int) -> str:
    return "PASS" if item % 2 == 0 else "FAIL"


def faulty_grader(body: dict, attempt: int) -> Reply:
    """Item i: 429 (retry-after 1 s) first if i%10==1, 500 first if i%10==2, slow if i%10==3, a malformed
    verdict first if i%10==4; item 9 is always malformed."""
    item = item_of(body)
    if item == 9:
        return Reply(text=BAD, top_logprobs=None)
    if attempt == 1 and item % 10 == 1:
        return Reply(status=429, headers={"retry-after": "1"}, error_message="slow down")
    if attempt == 1 and item % 10 == 2:
        return Reply(status=500, error_message="boom")
    if attempt == 1 and item % 10 == 4:
        return Reply(text=BAD, top_logprobs=None)
    delay = 0.3 if item % 10 == 3 else 0.0
    return Reply(text=GOOD.format(expected_verdict(item)), top_logprobs=None, delay_s=delay)


def test_results_exact_under_faults_and_rerun_only_asks_failures(tmp_path: Path) -> None:
    n = 40
    with FakeChatServer(faulty_grader) as server:
        cfg = config(server.base_url, tmp_path / "cache")
        records = grade_elements(*grader_inputs(n), cfg)
        assert len(records) == n
        for i, record in enumerate(records):
            assert record["index"] == i
            if i == 9:
                assert record["verdict"] == "ERROR"
                assert record["raw"] == BAD
                assert "unparseable" in record["error"]
            else:
                assert record["verdict"] == expected_verdict(i), record
                assert record["error"] is None
                assert record["reasoning"] == "Fine."
        # 40 first attempts + 4 retried 429s + 4 retried 500s + 4 re-asked malformed + 2 more for item 9
        assert server.count() == 54
        assert server.count(429) == 4 and server.count(500) == 4
        first, second = [r for r in server.requests if item_of(r.body) == 1]
        assert second.received - first.received >= 0.95  # retry-after: 1 was honoured

        server.reset()
        again = grade_elements(*grader_inputs(n), cfg)
        assert again == records
        assert server.count() == 3  # only item 9, never cached, is asked again (3 attempts)
        assert {item_of(r.body) for r in server.requests} == {9}


def overall_replies(body: dict, attempt: int) -> Reply:
    """Δ = (contest − 100) / 2 for the group shown as A being the model's; letters as an API returns them."""
    contest = contest_of(body)
    query = [m["content"] for m in body["messages"] if isinstance(m["content"], str) and "two groups" in m["content"]]
    model_first = query[0].index("model caption") < query[0].index("human caption")
    delta = (contest - 100) / 2 if model_first else -(contest - 100) / 2
    log_a, log_b = (-0.25, -0.25 - delta) if delta >= 0 else (-0.25 + delta, -0.25)
    top = sorted([("A", log_a), ("B", log_b), ("The", -9.0)], key=lambda t: -t[1])
    return Reply(text=top[0][0], top_logprobs=top)


def test_overall_deltas_exact_and_rerun_makes_zero_requests(tmp_path: Path) -> None:
    contests = [100, 101, 104, 109]
    model, human, descriptions = group_inputs(contests)
    with FakeChatServer(overall_replies) as server:
        cfg = config(server.base_url, tmp_path / "cache")
        # the previous reading (top 20, B's own log-prob), kept as the named rule letters_topk
        records = judge_groups(model, human, contests, descriptions, "overall", cfg, shots_pool(), rule="letters_topk")
        assert server.count() == 8
        for record in records:
            sign = 1 if record["model_position"] == "A" else -1
            assert record["delta_logprob"] == pytest.approx(sign * (record["contest_number"] - 100) / 2)
            assert record["verdict"] is None and record["logprob_missing"] == []
            assert record["protocol"] == "overall" and record["human_group"] == "top10"
            assert record["raw"] in ("A", "B")
        assert [(r["contest_number"], r["model_position"]) for r in records] == [
            (c, p) for c in contests for p in "AB"
        ]
        body = server.requests[0].body
        assert body["temperature"] == 0 and body["max_tokens"] == 1 and body["logprobs"] is True
        assert body["top_logprobs"] == 20
        assert sum(m["role"] == "assistant" for m in body["messages"]) == 5  # 5-shot

        server.reset()
        assert judge_groups(model, human, contests, descriptions, "overall", cfg, shots_pool(),
                            rule="letters_topk") == records
        assert server.count() == 0


def test_best_pick_parses_last_letter_on_last_line(tmp_path: Path) -> None:
    def replies(body: dict, attempt: int) -> Reply:
        contest = contest_of(body)
        if contest == 3:
            return Reply(text="Both are funny.\nI can't choose.", top_logprobs=None)
        return Reply(text=f"Group A's best: x.\nGroup B's best: y.\nFunnier: {'AB'[contest % 2]}", top_logprobs=None)

    contests = [1, 2, 3]
    model, human, descriptions = group_inputs(contests)
    with FakeChatServer(replies) as server:
        records = judge_groups(
            model, human, contests, descriptions, "best_pick", config(server.base_url, tmp_path, parse_retries=1),
            rule="last_letter",  # the previous reading; the paper's (exact_letter) is pinned in test_protocol_fidelity
        )
    verdicts = [(r["contest_number"], r["verdict"]) for r in records]
    assert verdicts == [(1, "B"), (1, "B"), (2, "A"), (2, "A"), (3, "ERROR"), (3, "ERROR")]
    assert all(r["delta_logprob"] is None for r in records)
    assert server.requests[0].body["top_logprobs"] == 2  # asked for as upstream asks (rank_more.py L443-444)
    assert server.requests[0].body["messages"][-1]["content"].startswith("Find the funniest caption for each group.")


def test_missing_letter_uses_lowest_logprob_as_bound_and_flags_it(tmp_path: Path) -> None:
    def replies(body: dict, attempt: int) -> Reply:
        if contest_of(body) == 1:
            return Reply(text="A", top_logprobs=[("A", -0.05), ("Group", -3.0), ("The", -4.0)])
        return Reply(text="Group", top_logprobs=[("Group", -0.01), ("The", -5.0)])

    model, human, descriptions = group_inputs([1, 2])
    with FakeChatServer(replies) as server:
        records = judge_groups(model, human, [1, 2], descriptions, "overall", config(server.base_url, tmp_path),
                               rule="letters_topk")
    bounded = records[0]
    assert bounded["delta_logprob"] == pytest.approx(-0.05 - (-4.0))
    assert bounded["logprob_missing"] == ["B"] and bounded["verdict"] is None
    neither = records[2]
    assert neither["verdict"] == "ERROR" and neither["delta_logprob"] is None
    assert neither["logprob_missing"] == ["A", "B"] and neither["raw"] == "Group"


def test_endpoint_without_logprobs_is_a_clear_error_and_caches_nothing(tmp_path: Path) -> None:
    model, human, descriptions = group_inputs([1])
    with FakeChatServer(lambda body, attempt: Reply(text="A", top_logprobs=None)) as server:
        cfg = config(server.base_url, tmp_path / "cache")
        with pytest.raises(LogprobsUnavailableError, match="did not return log-probabilities"):
            judge_groups(model, human, [1], descriptions, "overall", cfg)
    with LLMCache(tmp_path / "cache") as cache:
        assert len(cache) == 0


def test_key_is_sent_but_never_written_logged_or_shown(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "results.json"
    with FakeChatServer(faulty_grader) as server:
        cfg = config(server.base_url, tmp_path / "cache", progress=True)
        engine = LLMEngine(cfg)
        records = grade_elements(*grader_inputs(12), engine)
        out.write_text(json.dumps({"config": cfg.to_dict(), "records": records, "stats": engine.stats.to_dict()}))
        digests = {r.auth_sha256 for r in server.requests}
    assert digests == {hashlib.sha256(f"Bearer {KEY}".encode()).hexdigest()}
    assert files_containing(tmp_path, KEY) == []
    assert (tmp_path / "cache" / "judge_cache.sqlite3").exists()
    shown = repr(cfg) + repr(engine) + str(engine.stats.summary()) + caplog.text
    assert KEY not in shown


def test_auth_failure_is_fatal_and_redacted(tmp_path: Path) -> None:
    def reject(body: dict, attempt: int) -> Reply:
        return Reply(status=401, error_message=f"Incorrect API key provided: {KEY}.")

    with FakeChatServer(reject) as server, pytest.raises(FatalJudgeError) as caught:
        grade_elements(*grader_inputs(3), config(server.base_url, tmp_path / "cache"))
    text = "".join(traceback.format_exception(caught.value))
    assert "HTTP 401" in text and "[REDACTED]" in text
    assert KEY not in text
    assert "\n" not in str(caught.value) and "set NYCC_JUDGE_API_KEY or OPENAI_API_KEY" in str(caught.value)
    assert files_containing(tmp_path, KEY) == []


def test_timeouts_are_retried(tmp_path: Path) -> None:
    def replies(body: dict, attempt: int) -> Reply:
        delay = 120.0 if item_of(body) == 0 and attempt == 1 else 0.0  # a hang no timeout of the test outlasts
        return Reply(text=GOOD.format("PASS"), top_logprobs=None, delay_s=delay)

    with FakeChatServer(replies) as server:  # 2 s: a prompt reply arrives inside it on a loaded machine too
        records = grade_elements(*grader_inputs(2), config(server.base_url, tmp_path / "cache", timeout_s=2.0))
        assert [r["verdict"] for r in records] == ["PASS", "PASS"]
        assert [item_of(r.body) for r in server.requests].count(0) == 2


def test_failed_calls_are_recorded_not_cached(tmp_path: Path) -> None:
    def replies(body: dict, attempt: int) -> Reply:
        if item_of(body) == 1:
            return Reply(status=503, error_message="overloaded")
        return Reply(text=GOOD.format("PASS"), top_logprobs=None)

    with FakeChatServer(replies) as server:
        cfg = config(server.base_url, tmp_path / "cache", retries=1)
        records = grade_elements(*grader_inputs(3), cfg)
        assert [r["verdict"] for r in records] == ["PASS", "ERROR", "PASS"]
        assert records[1]["error"].startswith("request failed: InternalServerError (HTTP 503)")
        assert records[1]["raw"] == ""
        assert server.count(503) == 2  # first try + 1 client retry
        server.reset()
        grade_elements(*grader_inputs(3), cfg)
        assert server.count() == 2 and server.count(503) == 2


def test_concurrency_is_bounded_and_duplicates_are_sent_once(tmp_path: Path) -> None:
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def replies(body: dict, attempt: int) -> Reply:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.1)
        with lock:
            state["now"] -= 1
        return Reply(text=GOOD.format("PASS"), top_logprobs=None)

    descriptions, captions, elements, explanations = grader_inputs(12)
    with FakeChatServer(replies) as server:
        cfg = config(server.base_url, tmp_path / "cache", max_concurrency=3)
        records = grade_elements(descriptions * 2, captions * 2, elements * 2, explanations * 2, cfg)
    assert len(records) == 24 and all(r["verdict"] == "PASS" for r in records)
    assert server.count() == 12  # each distinct request once
    assert state["peak"] == 3


def test_dry_run_counts_cached_calls_and_costs(tmp_path: Path) -> None:
    n = 20
    inputs = grader_inputs(n)
    with FakeChatServer(lambda body, attempt: Reply(text=GOOD.format("PASS"), top_logprobs=None)) as server:
        cfg = config(server.base_url, tmp_path / "cache")
        engine = LLMEngine(cfg)
        grade_elements(*(column[:8] for column in inputs), engine)
        assert engine.last_stats.n_calls == 8
        assert engine.last_stats.cost_usd == pytest.approx(cost_usd(8 * 10, 8 * 5, (2.5, 10.0)))
        server.reset()
        jobs = build_grader_jobs(*inputs, cfg)
        estimate = estimate_jobs(jobs, engine)
        assert server.count() == 0
        assert (estimate.n_jobs, estimate.n_cached, estimate.n_calls) == (20, 8, 12)
        todo = jobs[8:]
        prompt = sum(estimate_prompt_tokens(job.request) for job in todo)
        assert estimate.prompt_tokens == prompt
        assert estimate.completion_tokens == 12 * 120
        assert estimate.cost_usd == pytest.approx(cost_usd(prompt, 12 * 120, (2.5, 10.0)))
        # the autograder sends no max_tokens (upstream leaves it unset): a dry run budgets UNSET_MAX_TOKENS
        assert estimate.max_cost_usd == pytest.approx(cost_usd(prompt, 12 * UNSET_MAX_TOKENS, (2.5, 10.0)))
        unknown = estimate_jobs(jobs, cfg.replace(model="unpriced-model"), echo=False)
        assert unknown.cost_usd is None and unknown.n_calls == 20  # another model: nothing cached


def test_cancelled_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    n = 40
    slow_fail = Reply(text=GOOD.format("FAIL"), top_logprobs=None, delay_s=0.05)
    with FakeChatServer(lambda body, attempt: slow_fail) as server:
        cfg = config(server.base_url, tmp_path / "cache", max_concurrency=4)
        jobs = build_grader_jobs(*grader_inputs(n), cfg)

        async def run_then_cancel() -> None:
            engine = LLMEngine(cfg)
            task = asyncio.create_task(engine.arun(jobs))
            while len(engine.cache) < 12:
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(run_then_cancel())
        with LLMCache(tmp_path / "cache") as cache:
            done = len(cache)
        assert 12 <= done < n
        server.reset()
        records = grade_elements(*grader_inputs(n), cfg)
        assert server.count() == n - done
        assert [r["verdict"] for r in records] == ["FAIL"] * n


def test_killed_process_resumes_where_it_stopped(tmp_path: Path) -> None:
    n = 40
    script = textwrap.dedent(
        """
        import sys
        sys.path.insert(0, sys.argv[3])
        from judge_helpers import config, grader_inputs
        from nycc_bench.judge import grade_elements
        grade_elements(*grader_inputs(int(sys.argv[2])), config(sys.argv[1], sys.argv[4], max_concurrency=4))
        """
    )
    slow_pass = Reply(text=GOOD.format("PASS"), top_logprobs=None, delay_s=0.05)
    with FakeChatServer(lambda body, attempt: slow_pass) as server:
        tests_dir = str(Path(__file__).parent)
        cache_dir = tmp_path / "cache"
        child = subprocess.Popen(
            [sys.executable, "-c", script, server.base_url, str(n), tests_dir, str(cache_dir)],
            env={**os.environ},
        )
        deadline = time.monotonic() + 60
        while server.count() < 16 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.01)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        with LLMCache(cache_dir) as cache:
            done = len(cache)
        assert 8 <= done < n
        server.reset()
        records = grade_elements(*grader_inputs(n), config(server.base_url, cache_dir))
        assert server.count() == n - done
        assert all(r["verdict"] == "PASS" for r in records)


def test_sync_entry_point_works_inside_a_running_event_loop(tmp_path: Path) -> None:
    with FakeChatServer(lambda body, attempt: Reply(text=GOOD.format("PASS"), top_logprobs=None)) as server:
        cfg = config(server.base_url, tmp_path / "cache")

        async def notebook_cell() -> list[dict]:
            return grade_elements(*grader_inputs(4), cfg)  # sync call while this loop runs

        records = asyncio.run(notebook_cell())
    assert [r["verdict"] for r in records] == ["PASS"] * 4


def test_reliability_and_explanation_win_rates(tmp_path: Path) -> None:
    def replies(body: dict, attempt: int) -> Reply:
        text = last_user_text(body)
        if "Explanation A:" in text:
            a_is_model = text.index("MODEL") < text.index("HUMAN")
            return Reply(text=f"Reasoning.\n{'A' if a_is_model else 'B'}", top_logprobs=None)
        return overall_replies(body, attempt)

    contests = [100, 110, 120]  # Δ of the top group shown as A: 0, 5, 10 (> 3.003349167 for the last two)
    top, human, descriptions = group_inputs(contests)
    with FakeChatServer(replies) as server:
        cfg = config(server.base_url, tmp_path / "cache")
        result = judge_reliability(top, human["top10"], contests, descriptions, "overall", cfg, n_resamples=500)
        # top as A: picked iff Δ > threshold (2 of 3); top as B: Δ ≤ 0 → "B" picked (3 of 3)
        assert result["accuracy"] == pytest.approx(5 / 6)
        assert result["n_contests"] == 3 and result["n_judgments"] == 6 and result["n_error"] == 0
        assert result["ci_low"] <= result["accuracy"] <= result["ci_high"]
        records = judge_explanations(
            ["d1", "d2"], ["c1", "c2"], ["MODEL says x", "MODEL says y"], ["HUMAN says x", "HUMAN says y"], cfg
        )
    assert [(r["index"], r["model_position"], r["verdict"]) for r in records] == [
        (0, "A", "A"), (0, "B", "B"), (1, "A", "A"), (1, "B", "B"),
    ]
    rate = explanation_win_rate(records, n_resamples=200)
    assert rate["win_rate"] == 1.0 and rate["n_items"] == 2 and rate["n_error"] == 0
