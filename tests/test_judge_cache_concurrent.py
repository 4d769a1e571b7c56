"""One judge cache shared by concurrent runs (threads, processes), moved servers, and a cached re-run's cost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply
from judge_helpers import KEY, config, grader_inputs, item_of

from nycc_bench.judge import build_grader_jobs, grade_elements
from nycc_bench.llm import ChatRequest, Completion, LLMCache, LLMEngine, cache_key
from nycc_bench.llm.cache import endpoint_identity, new_owner

GOOD = "<reasoning>Fine.</reasoning>\n<judgement>{}</judgement>"
TESTS_DIR = str(Path(__file__).parent)


def verdict(item: int) -> str:
    return "PASS" if item % 2 else "FAIL"


def slow_replies(body: dict, attempt: int) -> Reply:
    return Reply(text=GOOD.format(verdict(item_of(body))), top_logprobs=None, delay_s=0.03)


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NYCC_JUDGE_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "default-cache"))


def reversed_inputs(n: int) -> tuple[list[str], ...]:
    return tuple(column[::-1] for column in grader_inputs(n))


def test_two_engines_in_two_threads_pay_once_per_item(tmp_path: Path) -> None:
    n = 150
    results: dict[str, tuple[list[dict], object]] = {}
    with FakeChatServer(slow_replies) as server:
        barrier = threading.Barrier(2)

        def run(name: str, inputs: tuple[list[str], ...]) -> None:
            engine = LLMEngine(config(server.base_url, tmp_path / "cache", max_concurrency=8))
            barrier.wait()
            results[name] = (grade_elements(*inputs, engine), engine.last_stats)

        threads = [
            threading.Thread(target=run, args=("forward", grader_inputs(n))),
            threading.Thread(target=run, args=("backward", reversed_inputs(n))),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert server.count() == n  # every distinct item paid exactly once between the two runs
        assert len({item_of(r.body) for r in server.requests}) == n
    forward, forward_stats = results["forward"]
    backward, backward_stats = results["backward"]
    assert [r["verdict"] for r in forward] == [verdict(i) for i in range(n)]
    assert [r["verdict"] for r in backward] == [verdict(i) for i in reversed(range(n))]
    assert forward_stats.n_calls + backward_stats.n_calls == n
    assert forward_stats.n_shared + backward_stats.n_shared > 0  # they did collide, and one waited
    assert forward_stats.n_failed == backward_stats.n_failed == 0


RUN_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from judge_helpers import config, grader_inputs
    from nycc_bench.llm import LLMEngine
    from nycc_bench.judge import grade_elements
    base_url, cache_dir, n, backward = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
    inputs = grader_inputs(n)
    if backward:
        inputs = tuple(column[::-1] for column in inputs)
    engine = LLMEngine(config(base_url, cache_dir, max_concurrency=8))
    records = grade_elements(*inputs, engine)
    print(json.dumps({"verdicts": [r["verdict"] for r in records], "stats": engine.last_stats.to_dict(),
                      "openai_imported": "openai" in sys.modules}))
    """
)


def run_child(base_url: str, cache_dir: Path, n: int, backward: bool = False) -> subprocess.Popen:
    args = [sys.executable, "-c", RUN_SCRIPT, TESTS_DIR, base_url, str(cache_dir), str(n), "1" if backward else "0"]
    return subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env={**os.environ})


def child_result(child: subprocess.Popen) -> dict:
    out, _ = child.communicate(timeout=120)
    assert child.returncode == 0
    return json.loads(out.strip().splitlines()[-1])


def test_two_processes_on_one_cache_pay_once_per_item(tmp_path: Path) -> None:
    n = 100
    with FakeChatServer(slow_replies) as server:
        cache_dir = tmp_path / "cache"
        children = [run_child(server.base_url, cache_dir, n), run_child(server.base_url, cache_dir, n, backward=True)]
        forward, backward = (child_result(child) for child in children)
        assert server.count() == n
    assert forward["verdicts"] == [verdict(i) for i in range(n)]
    assert backward["verdicts"] == [verdict(i) for i in reversed(range(n))]
    assert forward["stats"]["n_calls"] + backward["stats"]["n_calls"] == n
    assert forward["stats"]["n_cached"] + backward["stats"]["n_cached"] == n


def test_cached_rerun_makes_no_call_and_never_imports_openai(tmp_path: Path) -> None:
    n = 12
    with FakeChatServer(slow_replies) as server:
        grade_elements(*grader_inputs(n), config(server.base_url, tmp_path / "cache"))
        assert server.count() == n
        rerun = child_result(run_child(server.base_url, tmp_path / "cache", n))
        assert server.count() == n  # not one request
        assert rerun["openai_imported"] is False
        assert rerun["stats"]["n_cached"] == n and rerun["stats"]["n_calls"] == rerun["stats"]["n_requests"] == 0
        assert rerun["verdicts"] == [verdict(i) for i in range(n)]
        one_more = child_result(run_child(server.base_url, tmp_path / "cache", n + 1))  # the check can fail
        assert one_more["openai_imported"] is True and server.count() == n + 1


def test_two_local_servers_never_share_an_answer(tmp_path: Path) -> None:
    """Same model name, two endpoints: each is asked (a server on another port may serve another checkpoint)."""
    with FakeChatServer(slow_replies) as first, FakeChatServer(slow_replies) as moved:
        records = grade_elements(*grader_inputs(6), config(first.base_url, tmp_path / "cache"))
        assert first.count() == 6 and moved.base_url != first.base_url
        again = grade_elements(*grader_inputs(6), config(moved.base_url, tmp_path / "cache"))
        assert moved.count() == 6
        grade_elements(*grader_inputs(6), config(first.base_url + "/", tmp_path / "cache"))
        assert first.count() == 6  # the same endpoint, however written, is answered from the cache
    assert again == records


def test_keys_hold_the_full_endpoint_and_never_its_credentials() -> None:
    request = ChatRequest(({"role": "user", "content": "hi"},), max_tokens=5, temperature=0.0)

    def key(base_url: str) -> str:
        return cache_key(LLMEngine(config(base_url, Path("unused"))).backend.identity(), "v1", request)

    assert key("https://api.openai.com/v1") == key("https://API.openai.com:443/v1/")
    assert key("https://api.openai.com/v1") != key("https://api.together.xyz/v1")
    assert key("http://127.0.0.1:8000/v1") != key("http://127.0.0.1:8001/v1") != key("http://localhost:8000/v1")
    assert key("http://127.0.0.1:8000/v1") != key("http://127.0.0.1:8000/v2")
    assert key("http://u:secret@127.0.0.1:8000/v1") == key("http://127.0.0.1:8000/v1?token=abc")
    assert endpoint_identity("https://8.8.8.8/v1") == "https://8.8.8.8:443/v1"
    assert endpoint_identity("http://[::1]:8000/v1/") == "http://[::1]:8000/v1"


def test_claims_block_other_owners_until_released_expired_or_dead(tmp_path: Path) -> None:
    with LLMCache(tmp_path, claim_ttl_s=0.3) as cache:
        mine, theirs = new_owner(), new_owner()
        assert cache.claim("k", mine) and cache.claim("k", mine)  # re-entrant for the same owner
        assert not cache.claim("k", theirs)
        cache.release("k", mine)
        assert cache.claim("k", theirs)
        time.sleep(0.35)  # theirs never refreshed: expired
        assert cache.claim("k", mine)
        cache.refresh_claims(mine)
        assert not cache.claim("k", theirs)
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        child.wait()
        host = mine.split("|")[0]
        dead = f"{host}|{child.pid}|token"
        assert cache.claim("other", dead)
        assert cache.claim("other", mine)  # its owner process is gone: taken at once
        assert cache.claim("remote", f"elsewhere|{child.pid}|token")
        assert not cache.claim("remote", mine)  # another host's live claim is respected until it expires


def test_a_waiting_run_takes_the_other_runs_answer_or_takes_over(tmp_path: Path) -> None:
    with FakeChatServer(slow_replies) as server:
        cfg = config(server.base_url, tmp_path / "cache")
        jobs = build_grader_jobs(*grader_inputs(2), cfg)
        engine = LLMEngine(cfg)
        other = LLMCache(tmp_path / "cache", claim_ttl_s=60)
        somebody = new_owner()  # a live owner in this process: only its answer or its release frees the key
        key0, key1 = engine.key(jobs[0]), engine.key(jobs[1])
        assert other.claim(key0, somebody) and other.claim(key1, somebody)

        def the_other_run() -> None:
            time.sleep(0.4)
            other.put(key0, Completion(text=GOOD.format("FAIL")), "fake-judge", jobs[0].prompt_version, somebody)
            time.sleep(0.3)
            other.release(key1, somebody)  # its call for item 1 failed: nothing stored, claim dropped

        helper = threading.Thread(target=the_other_run)
        started = time.monotonic()
        helper.start()
        records = engine.run(jobs)
        helper.join()
        other.close()
    assert time.monotonic() - started >= 0.65
    assert [r["verdict"] for r in records] == ["FAIL", "PASS"]
    assert [item_of(r.body) for r in server.requests] == [1]  # item 0 came from the other run
    assert engine.last_stats.n_shared == 1 and engine.last_stats.n_calls == 1
