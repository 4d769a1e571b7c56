"""One rule for "is this result whole?" (`nycc_bench.wholeness`): each failure kind run through `evaluate` and through
the leaderboard worker, which must agree: what `evaluate` records incomplete (and exits 1 for) the worker refuses
with the same reason; what it records complete or `no judge` the worker publishes."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer, Reply, last_user_text

from nycc_bench import evaluate
from nycc_bench.cli import main
from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.store import FAILED, FINISHED, Job, LocalStore
from nycc_bench.leaderboard.worker import run_worker_once
from nycc_bench.runner import REPLY_CAP_CHARS
from nycc_bench.wholeness import record_problems, status_of

HALF = {
    "half/half_explanation.yaml": """base: explanation
name: half_explanation
instances: every_other
completeness: {min_coverage: 0.9}
""",
    "half/kinds.py": '''"""A builder that prompts every other row only: a run that covers half its task."""

from nycc_bench.kinds import Built, builders, register_builder


@register_builder("every_other")
def every_other(task, rows, split_rows, options):
    """The Hessel builder's instances, every other one; the rest reported as rows that cannot be prompted."""
    built = builders()["hessel"](task, rows, split_rows, options)
    return Built(built.instances[::2], [i.instance_id for i in built.instances[1::2]])
''',
}
CAPTIONS = "\n".join(f"{k}. A caption number {k} about the cartoon" for k in range(1, 11))
JUDGE_OK = "<reasoning>Fine.</reasoning>\n<judgement>PASS</judgement>"


def kind_of(body: dict[str, Any]) -> str:
    """Which task (or the judge) a request is for, from its prompt."""
    text = json.dumps(body["messages"])
    if body["model"] == "judge":
        return "judge"
    for needle, kind in (("5 choices", "matching"), ("2 choices", "ranking"), ("sophisticated reader", "generation"),
                         ("humor expert extraordinaire", "humorbench")):
        if needle in text:
            return kind
    return "explanation"


NULL = json.dumps({"id": "x", "object": "chat.completion", "created": 1, "model": "m",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": None},
                                "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 1, "completion_tokens": 0}}).encode()


def broken(body: dict[str, Any], attempt: int) -> Reply:
    """Every failure kind at once: matching's replies are too long or empty (content null), half of ranking's calls
    fail, a fifth of the judge's verdicts are unreadable (the same in every process)."""
    stable = zlib.crc32(json.dumps(body["messages"]).encode())
    kind = kind_of(body)
    if kind == "matching":
        return Reply(body=NULL) if stable % 2 else Reply(text="Answer: A " + "ha" * REPLY_CAP_CHARS)
    if kind == "ranking":
        return Reply(status=500) if stable % 2 else Reply(text="Answer: A", top_logprobs=None)
    if kind == "generation":
        return Reply(text=CAPTIONS, top_logprobs=None)
    if kind == "judge":
        return Reply(text="???" if zlib.crc32(last_user_text(body).encode()) % 5 == 0 else JUDGE_OK,
                     top_logprobs=None)
    return Reply(text="The joke is that the caption turns the scene around.", top_logprobs=None)


def whole(body: dict[str, Any], attempt: int) -> Reply:
    """Good answers for every task; the judge reads every explanation."""
    kind = kind_of(body)
    if kind == "explanation":
        return Reply(text="The joke is that the caption turns the scene around.", top_logprobs=None)
    return Reply(text="Answer: A", top_logprobs=None)


@pytest.fixture()
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tasks"
    for rel, text in HALF.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    monkeypatch.setenv("NYCC_BENCH_TASK_PATH", str(folder))
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return folder


def worker_verdict(tmp_path: Path, server: FakeChatServer, dataset: str, tasks: list[str], judges: dict) -> Job:
    """The leaderboard worker's run of the same tasks against the same server."""
    store = LocalStore(tmp_path / "board")
    job = Job(id="job-1", model="m", spec="openai:m", source="api", tasks=tasks, user="alice", run_key="k",
              options={"retries": 0})
    store.add_job(job, 10, 1e9)
    done = run_worker_once(store, Settings(data_dir=tmp_path / "board", dataset=dataset, allow_api=True,
                                           api_base_url=server.base_url, judges=judges))
    assert done is not None
    return done


def test_each_failure_kind_is_judged_the_same_by_evaluate_and_the_worker(
        tmp_path: Path, sample_dataset: str, outside: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    tasks = ["matching", "ranking", "humorbench", "half_explanation", "caption_generation"]
    with FakeChatServer(broken) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)  # the judge's endpoint, as the leaderboard's
        run = evaluate(system="openai:m", tasks=tasks, dataset=sample_dataset, out=tmp_path / "run",
                       judge={"humorbench": "openai:judge"}, progress=False, retries=0)
        reasons = run.incomplete
        code = main(["evaluate", "--system", "openai:m", "--tasks", "matching,ranking,half_explanation",
                     "--dataset", sample_dataset, "--out", str(tmp_path / "cli"), "--system-option", "retries=0",
                     "--quiet"])
        job = worker_verdict(tmp_path, server, sample_dataset, tasks, {"humorbench": "openai:judge"})
    printed = capsys.readouterr().err
    assert code == 1 and "3 task(s) incomplete" in printed
    for task in ("matching", "ranking", "half_explanation"):
        assert f"incomplete: {task}: {reasons[task]}" in printed
    assert set(reasons) == {"matching", "ranking", "humorbench", "half_explanation", "caption_generation"}
    # upstream's API setting prompts from Hessel's descriptions: of the sample's four described contests, three
    assert "3 of 4 (75%) instances scored, below the task's min_coverage 90% (1 dataset rows cannot be prompted)" \
        in reasons["caption_generation"]
    assert "8 of 8 (100%) answers unparsed, above the task's max_unparsed 50%" in reasons["matching"]
    assert f"replies over {REPLY_CAP_CHARS} characters are cut" in reasons["matching"]
    assert "judge verdicts failed (max_judge_errors 5%)" in reasons["humorbench"]
    assert "instances scored, below the task's min_coverage 90%" in reasons["half_explanation"]
    assert "of 8 items failed: request failed" in reasons["ranking"]
    records = [json.loads(line) for line in (tmp_path / "run/predictions/matching.jsonl").read_text().splitlines()]
    cut = next(r for r in records if r.get("reply_cut_at"))
    assert cut["status"] == "unparsed" and cut["reply_cut_at"] == REPLY_CAP_CHARS
    assert len(cut["raw"]) == REPLY_CAP_CHARS
    assert run.record["tasks"]["matching"]["config"]["effective"]["reply_cap_chars"] == REPLY_CAP_CHARS
    # the worker refuses the job with exactly the reasons evaluate recorded
    assert job.status == FAILED
    for task, why in reasons.items():
        assert f"{task}: {why}" in (job.reason or "")
    assert job.reason == record_problems(run.record)


def test_a_whole_run_and_a_run_without_its_judge_agree_too(
        tmp_path: Path, sample_dataset: str, outside: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = ["matching", "explanation"]
    with FakeChatServer(whole) as server:
        code = main(["evaluate", "--system", "openai:m", "--tasks", ",".join(tasks), "--dataset", sample_dataset,
                     "--base-url", server.base_url, "--out", str(tmp_path / "run"), "--quiet"])
        printed = capsys.readouterr()
        job = worker_verdict(tmp_path, server, sample_dataset, tasks, {})
    record = json.loads((tmp_path / "run/results.json").read_text())
    entry = record["tasks"]["explanation"]
    assert code == 0 and status_of(record["tasks"]["matching"]).status == "complete"
    assert entry["status"] == "no judge"
    assert entry["status_reason"] == "Explanation judge win rate needs a judge; add --judge explanation_pairwise_gpt4o"
    assert f"no judge: explanation: {entry['status_reason']}" in printed.err
    assert f"no judge ({entry['status_reason']}): " in printed.out
    assert job.status == FINISHED and job.reason is None
    assert record_problems(record) is None


def test_the_completeness_block_is_checked_and_recorded() -> None:
    from nycc_bench.errors import NyccBenchError
    from nycc_bench.tasks import get_task
    from nycc_bench.tasks.completeness import Completeness
    from nycc_bench.tasks.definition import check_schema

    assert get_task("humorbench").completeness == Completeness(0.9, 0.5, 0.05)
    assert get_task("ranking").completeness == get_task("matching").completeness  # a variant inherits its base's
    assert get_task("matching").describe()["completeness"] == {"min_coverage": 0.9, "max_unparsed": 0.5,
                                                               "max_judge_errors": 0.0}
    with pytest.raises(NyccBenchError, match=r"completeness.min_coverage must be a share between 0 and 1, got 1.5"):
        Completeness.read({"min_coverage": 1.5}, "task file x.yaml")
    with pytest.raises(NyccBenchError, match="min_coverage"):
        check_schema({"completeness": {"min_coverag": 0.9}}, "task file x.yaml")
