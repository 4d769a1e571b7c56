"""No wrong number, round 2: answers never borrowed across endpoints or checkpoints, a dry run that calls nothing,
reruns into one --out that never lose or mix results, every endpoint in the record, intervals shown as bounds, the
report's rows named per record. Two fake OpenAI-compatible servers answer differently and count requests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer, Reply

from nycc_bench import evaluate
from nycc_bench.cli import main
from nycc_bench.errors import NyccBenchError
from nycc_bench.judging import JudgeSpec
from nycc_bench.report import render_report
from nycc_bench.standings import score_text, task_judges
from nycc_bench.systems.api import OpenAISystem

JUDGE_OK = "<reasoning>Fine.</reasoning>\n<judgement>PASS</judgement>"


def answering(letter: str) -> Any:
    """A server whose system answers are all `letter` (and whose judge passes every element)."""
    def reply(body: dict, attempt: int) -> Reply:
        if body["model"] == "judge":
            return Reply(text=JUDGE_OK, top_logprobs=None)
        return Reply(text=f"Answer: {letter}", top_logprobs=None)
    return reply


def served(root: str) -> list[dict]:
    """A `/v1/models` listing: model `m` served from checkpoint `root`."""
    return [{"id": "m", "object": "model", "created": 1700000000, "owned_by": "me", "root": root}]


def letters(out: Path, task: str = "matching") -> set[str]:
    """The predictions a run folder holds for a task (every fold)."""
    return {json.loads(line)["prediction"] for p in (out / "predictions").glob(f"{task}*.jsonl")
            for line in p.read_text().splitlines()}


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("NYCC_BENCH_NO_CACHE", raising=False)


def test_two_servers_serving_two_checkpoints_under_one_name_never_share_an_answer(
        tmp_path: Path, sample_dataset: str) -> None:
    with FakeChatServer(answering("A"), models=served("/ckpt/a")) as a, \
            FakeChatServer(answering("B"), models=served("/ckpt/b")) as b:
        first = evaluate("openai:m", "matching", sample_dataset, out=tmp_path / "a", base_url=a.base_url,
                         progress=False)
        second = evaluate("openai:m", "matching", sample_dataset, out=tmp_path / "b", base_url=b.base_url,
                          progress=False)
        assert a.count() == 8 and b.count() == 8  # the second server was asked every item
        assert letters(tmp_path / "a") == {"A"} and letters(tmp_path / "b") == {"B"}
        assert second.record["model"]["endpoint"] == b.base_url
        assert second.record["model"]["served"] == {"id": "m", "root": "/ckpt/b", "created": 1700000000,
                                                    "owned_by": "me"}
        assert first.record["model"]["served"]["root"] == "/ckpt/a"
        evaluate("openai:m", "matching", sample_dataset, out=tmp_path / "a2", base_url=a.base_url, progress=False)
        assert a.count() == 8  # the same endpoint and checkpoint: answered from the cache
        a.models = served("/ckpt/a-v2")  # the server now serves another checkpoint under the same name
        evaluate("openai:m", "matching", sample_dataset, out=tmp_path / "a3", base_url=a.base_url, progress=False)
        assert a.count() == 16


def test_a_changed_system_fingerprint_is_asked_again(tmp_path: Path, sample_dataset: str) -> None:
    with FakeChatServer(answering("A"), system_fingerprint="fp_1") as server:
        def run(out: str, limit: int) -> None:
            evaluate("openai:m", "matching", sample_dataset, out=tmp_path / out, base_url=server.base_url,
                     progress=False, limit=limit, folds=[0])

        run("one", 2)
        assert server.count() == 2
        server.system_fingerprint = "fp_2"  # a new configuration: seen on the next fresh call
        run("two", 3)
        assert server.count() == 3  # the new item; the endpoint's fingerprint is now fp_2
        run("three", 3)
        assert server.count() == 5  # the two fp_1 answers are asked again, the fp_2 one reused


def test_no_cache_and_the_cache_command(tmp_path: Path, sample_dataset: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    with FakeChatServer(answering("A"), models=served("/ckpt/a")) as a:
        url = a.base_url
        base = ["evaluate", "--system", "openai:m", "--tasks", "matching", "--dataset", sample_dataset,
                "--base-url", a.base_url, "--quiet"]
        assert main([*base, "--out", str(tmp_path / "one")]) == 0
        assert main([*base, "--out", str(tmp_path / "two")]) == 0
        assert a.count() == 8
        assert main([*base, "--out", str(tmp_path / "three"), "--no-cache"]) == 0
        assert a.count() == 16  # asked again, not read from the cache
        run = evaluate("openai:m", "matching", sample_dataset, out=tmp_path / "four", base_url=a.base_url,
                       progress=False, no_cache=True)
        assert a.count() == 24 and run.record["tasks"]["matching"]["status"] == "complete"
    capsys.readouterr()
    assert main(["cache", "info"]) == 0
    shown = capsys.readouterr().out
    assert str(tmp_path / "cache") in shown and "8 answers" in shown
    assert f"openai:m at {url}" in shown and "root=/ckpt/a" in shown
    assert main(["cache", "clear"]) == 0
    assert "deleted 8 answers" in capsys.readouterr().out
    assert main(["cache", "info", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["answers"] == 0


def test_a_dry_run_calls_nothing_and_prices_each_stage(tmp_path: Path, sample_dataset: str,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    with FakeChatServer(answering("A"), models=served("/ckpt")) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)  # system and judge alike
        out = tmp_path / "run"
        args = ["evaluate", "--system", "openai:gpt-4o", "--tasks", "matching,humorbench", "--dataset",
                sample_dataset, "--judge", "openai:judge", "--out", str(out), "--dry-run", "--quiet"]
        assert main(args) == 0
        printed = capsys.readouterr().out
        assert server.count() == 0 and server.model_requests == 0 and not out.exists()
        plan = json.loads(printed.strip().splitlines()[-1])["dry_run"]
        stages = {(t["task"], s["stage"]): s for t in plan["tasks"] for s in t["stages"]}
        assert stages["matching", "system"]["calls"] == 8 and stages["matching", "system"]["cost_usd"] > 0
        assert stages["humorbench", "system"]["calls"] == 31
        assert stages["humorbench", "judge"]["calls"] == 31 and stages["humorbench", "judge"]["cost_usd"] is None
        assert "judge openai:judge: 31 calls (0 cached)" in printed and "price unknown" in printed
        assert "https://openai.com/api/pricing/" in printed and "as of 2025-" in printed
        assert "$0.0000" not in printed
        # after part of the run, the plan counts what is already predicted and what the cache holds
        evaluate("openai:gpt-4o", "matching", sample_dataset, out=out, progress=False, limit=2)
        evaluate("openai:gpt-4o", "matching", sample_dataset, out=tmp_path / "other", progress=False)
        calls = server.count()
        plan = evaluate("openai:gpt-4o", "matching", sample_dataset, out=out, dry_run=True)
        assert server.count() == calls
        (task,) = plan.tasks
        assert (task.items, task.answered) == (8, 4)
        assert (task.stages[0].calls, task.stages[0].cached) == (0, 4)
        assert "matching: 8 items, 4 already answered" in str(plan)
    with FakeChatServer(answering("B")) as other:  # another endpoint into the same folder: the plan says so
        plan = evaluate("openai:gpt-4o", "matching", sample_dataset, out=out, dry_run=True, base_url=other.base_url)
        assert other.count() == 0 and other.model_requests == 0
    assert "the run would be refused" in plan.tasks[0].note and "--overwrite matching" in plan.tasks[0].note


def test_a_second_evaluate_into_one_out_keeps_tasks_and_refuses_another_endpoint(
        tmp_path: Path, sample_dataset: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    with FakeChatServer(answering("A"), models=served("/ckpt/a")) as a, \
            FakeChatServer(answering("B"), models=served("/ckpt/b")) as b:
        evaluate("openai:m", ["matching", "ranking"], sample_dataset, out=out, base_url=a.base_url, progress=False)
        narrower = evaluate("openai:m", ["matching"], sample_dataset, out=out, base_url=a.base_url, progress=False)
        assert set(narrower.record["tasks"]) == {"matching", "ranking"}  # the task not run now is kept
        assert len(narrower.record["commands"]) == 2
        code = main(["evaluate", "--system", "openai:m", "--tasks", "matching", "--dataset", sample_dataset,
                     "--base-url", b.base_url, "--out", str(out), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and b.count() == 0 and len(err.strip().splitlines()) == 1
        assert f"endpoint {a.base_url!r}, now {b.base_url!r}" in err
        assert "pass a new --out, or --overwrite matching,ranking" in err
        with pytest.raises(NyccBenchError, match="served model"):  # the same endpoint, another checkpoint
            a.models = served("/ckpt/a-v2")
            evaluate("openai:m", ["matching"], sample_dataset, out=out, base_url=a.base_url, progress=False)
        replaced = evaluate("openai:m", ["matching"], sample_dataset, out=out, base_url=b.base_url, progress=False,
                            overwrite=["matching", "ranking"])
        assert b.count() == 8 and letters(out) == {"B"} and set(replaced.record["tasks"]) == {"matching"}
        assert replaced.record["model"]["endpoint"] == b.base_url


def test_predictions_of_another_endpoint_are_refused_with_the_fix(tmp_path: Path, sample_dataset: str) -> None:
    from nycc_bench.runner import run_task

    with FakeChatServer(answering("A")) as a, FakeChatServer(answering("B")) as b:
        path = tmp_path / "p.jsonl"
        run_task("matching", "openai:m", path, dataset=sample_dataset, base_url=a.base_url, progress=False)
        with pytest.raises(NyccBenchError, match=r"endpoint .*, now .*; pass a new --out, or --overwrite matching"):
            run_task("matching", "openai:m", path, dataset=sample_dataset, base_url=b.base_url, progress=False)
        assert b.count() == 0


def test_a_judged_entry_survives_a_rerun_without_the_judge(tmp_path: Path, sample_dataset: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    with FakeChatServer(answering("A")) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        judged = evaluate("openai:m", ["humorbench", "matching"], sample_dataset, out=out,
                          judge={"humorbench": "openai:judge"}, progress=False)
        assert judged.record["judge"]["endpoint"] == server.base_url  # from OPENAI_BASE_URL, still recorded
        assert judged.record["tasks"]["humorbench"]["config"]["effective"]["judge"]["endpoint"] == server.base_url
        from nycc_bench.publish.cards import task_results

        card = {r["task"]: r for r in task_results(judged.record)}
        assert card["humorbench"]["judge"] == f"openai:judge at {server.base_url}"  # never read as OpenAI's
        again = evaluate("openai:m", ["humorbench", "matching"], sample_dataset, out=out, progress=False)
    entry = again.record["tasks"]["humorbench"]
    assert entry["scores"]["element_accuracy"] == judged.record["tasks"]["humorbench"]["scores"]["element_accuracy"]
    assert "humorbench" not in again.record["skipped"]
    assert any("kept the judged entry" in note for note in again.record["notes"])


def test_every_endpoint_is_in_the_record_without_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:secret@127.0.0.1:8000/v1")
    judge = JudgeSpec.parse("openai:gpt-4-turbo").describe()
    assert judge["endpoint"] == "http://127.0.0.1:8000/v1" and "secret" not in json.dumps(judge)
    assert OpenAISystem("m").describe()["endpoint"] == "http://127.0.0.1:8000/v1"
    record = {"judge": judge, "tasks": {"caption_generation": {}}}
    assert task_judges(record)["caption_generation"] == "gpt-4-turbo at http://127.0.0.1:8000/v1"
    monkeypatch.delenv("OPENAI_BASE_URL")
    openai = JudgeSpec.parse("openai:gpt-4-turbo").describe()
    assert openai["endpoint"] == "https://api.openai.com/v1"
    assert task_judges({"judge": openai})["caption_generation"] == "gpt-4-turbo"


def test_intervals_are_shown_as_their_own_bounds(tmp_path: Path, sample_dataset: str) -> None:
    assert score_text(37.5, 12.5, 75.0, 8, False) == "37.5 [12.5, 75.0]"
    assert score_text(3.2, 0.0, 10.6, 8, True) == "3.2 [0.0, 10.6] n=8"
    records = [evaluate(spec, "matching", sample_dataset, out=tmp_path / spec, progress=False).record
               for spec in ("random", "length")]
    page = render_report(records, "two systems")
    assert "±" not in page
    summary = page.split("<h2>Summary</h2>")[1].split("</table>")[0]
    rows = [row for row in summary.split("<tr>")[2:]]
    assert len(rows) == 2 and {r.split("<td>")[2].split("</td>")[0] for r in rows} == {"random", "length"}


def test_a_non_default_split_is_a_computed_deviation(tmp_path: Path, sample_dataset: str) -> None:
    run = evaluate("random", "matching", sample_dataset, split="validation", out=tmp_path / "val", progress=False)
    deviations = run.record["tasks"]["matching"]["config"]["deviations"]
    assert "Evaluated on the validation split; the task (and the paper) report test." in deviations
    default = evaluate("random", "matching", sample_dataset, out=tmp_path / "test", progress=False)
    assert not [d for d in default.record["tasks"]["matching"]["config"]["deviations"] if "split" in d]
