"""`nycc-bench run` and `score` end to end on the embedded sample: baselines, an OpenAI-compatible system and
judges on a local test server, resume after a kill, fold averaging, and every bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply, last_user_text

from nycc_bench.cli import main
from nycc_bench.judging import JudgeSpec
from nycc_bench.metrics import load_metric
from nycc_bench.paths import SAMPLE_DIR
from nycc_bench.predictions import read_predictions
from nycc_bench.runner import run_task
from nycc_bench.score import score
from nycc_bench.tasks import TASKS

BASELINE_TASKS = {  # what each baseline can answer on the sample
    "random": list(TASKS),
    "length": ["matching", "matching_from_pixels", "ranking", "ranking_from_pixels", "matching_5shot"],
    "sbert:all-MiniLM-L6-v2": ["matching", "ranking", "explanation", "caption_generation", "humorbench",
                               "matching_5shot"],
}


@pytest.fixture(scope="module")
def dataset(sample_dataset: str) -> str:
    """The sample dataset, built once."""
    return sample_dataset


def _judge_reply(body: dict, attempt: int) -> Reply:
    """A scripted judge: Overall prefers A, HumorBench passes elements that mention 'joke', pairwise says B."""
    text = last_user_text(body)
    if "anticipated answer point" in text.lower():
        verdict = "PASS" if "joke" in text.split("Student")[-1].lower() else "FAIL"
        return Reply(text=f"<reasoning>ok</reasoning><judgement>{verdict}</judgement>", top_logprobs=None)
    if "Find the funniest caption" in text:  # Best Pick (asks for logprobs as upstream, reads the text)
        return Reply(text="Explanation B is better.\nB", top_logprobs=[("Explanation", -0.1), ("B", -3.0)])
    if body.get("logprobs"):
        return Reply(text="A", top_logprobs=[("A", -0.05), ("B", -4.0)])
    return Reply(text="Explanation B is better.\nB", top_logprobs=None)


@pytest.mark.parametrize(("system", "task"), [(s, t) for s, tasks in BASELINE_TASKS.items() for t in tasks])
def test_baselines_run_and_score_every_task(dataset: str, tmp_path: Path, system: str, task: str) -> None:
    """Every task runs with every baseline that supports it and scores through the evaluate modules."""
    out = tmp_path / "preds.jsonl"
    summary = run_task(task, system, out, dataset=dataset, progress=False)
    assert summary.answered == summary.total > 0 and summary.unparsed == 0
    records = read_predictions(out)
    assert all(r["prompt_version"] == TASKS[task].prompt_version for r in records.values())
    meta = json.loads((tmp_path / "preds.jsonl.meta.json").read_text())
    assert meta["system"]["spec"] == system and meta["task"] == task
    if task == "humorbench":  # needs a judge: scored in the server test below
        return
    result = score(task, [out], dataset=dataset)
    assert result["n"] == summary.total and result["n_unparsed"] == 0 and result["n_failed"] == 0
    key = {"nycc_accuracy": "accuracy", "crowd_ny_accuracy": "accuracy", "explanation_overlap": "bleu",
           "ead_diversity": "average_ead"}[result["config"]["scorer"]["metric"]]
    assert result["scores"][key]["value"] is not None


def test_random_is_seeded_and_order_independent(dataset: str, tmp_path: Path) -> None:
    """The same seed gives the same letters, whatever the batch order; another seed differs somewhere."""
    a, b, c = (tmp_path / f"{n}.jsonl" for n in "abc")
    run_task("matching", "random", a, dataset=dataset, progress=False)
    run_task("matching", "random", b, dataset=dataset, progress=False, limit=2)
    run_task("matching", "random", b, dataset=dataset, progress=False)
    run_task("matching", "random:7", c, dataset=dataset, progress=False)
    pa, pb, pc = (read_predictions(p) for p in (a, b, c))
    assert {k: v["prediction"] for k, v in pa.items()} == {k: v["prediction"] for k, v in pb.items()}
    assert {k: v["prediction"] for k, v in pa.items()} != {k: v["prediction"] for k, v in pc.items()}


def test_resume_after_a_killed_run(dataset: str, tmp_path: Path) -> None:
    """A torn last line is cut, and the re-run answers only what is missing."""
    out = tmp_path / "p.jsonl"
    run_task("humorbench", "random", out, dataset=dataset, progress=False, limit=5)
    with open(out, "a") as f:
        f.write('{"instance_id": "torn", "predic')  # the process died mid-write
    summary = run_task("humorbench", "random", out, dataset=dataset, progress=False)
    assert (summary.resumed, summary.answered) == (5, summary.total - 5)
    assert len(read_predictions(out)) == summary.total
    assert out.read_text().count("\n") == summary.total


def test_openai_system_and_judges_on_a_local_server(dataset: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """An OpenAI-compatible system answers every kind of task; judged scores come from the same kind of
    server; re-running makes no new request; the key reaches no file."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-0123456789")
    cache = tmp_path / "cache"

    def system_reply(body: dict, attempt: int) -> Reply:
        text = last_user_text(body)
        if "generate 10 funny captions" in json.dumps(body):
            return Reply(text="\n".join(f'{i}. "Caption number {i} about the joke." - why' for i in range(1, 11)))
        if "<explanation>" in text:
            return Reply(text="<explanation>The joke is a pun on the word.</explanation>")
        if "Explanation:" in text:
            return Reply(text="The joke is that the scene is absurd.")
        return Reply(text="I think... Answer: B" if "Answer:" in text else "B")

    with FakeChatServer(system_reply) as server:
        for task in ("matching", "ranking_from_pixels", "explanation", "caption_generation", "humorbench"):
            out = tmp_path / f"{task}.jsonl"
            # caption_generation in its single setting: four sample contests can be prompted (an API model's
            # upstream prompt needs Hessel's description, which one of them lacks)
            uniform = ["--task-option", f"{task}.setting=uniform"] if task == "caption_generation" else []
            assert main(["run", "--task", task, "--system", "openai:fake-model", "--base-url", server.base_url,
                         "--dataset", dataset, "--out", str(out), "--quiet",
                         "--system-option", f"cache_dir={cache}", *uniform]) == 0
        n_requests = server.count()
        assert main(["run", "--task", "matching", "--system", "openai:fake-model", "--base-url", server.base_url,
                     "--dataset", dataset, "--out", str(tmp_path / "again.jsonl"), "--quiet",
                     "--system-option", f"cache_dir={cache}"]) == 0
        assert server.count() == n_requests  # answered from the cache
        images = [b for r in server.requests for m in r.body["messages"] if isinstance(m["content"], list)
                  for b in m["content"] if b.get("type") == "image_url"]
        assert images  # from pixels sends the cartoon ...
        assert all(isinstance(m["content"], str) for r in server.requests if "choices A:" in json.dumps(r.body)
                   for m in r.body["messages"])  # ... from description sends text only
    assert {r["prediction"] for r in read_predictions(tmp_path / "matching.jsonl").values()} == {"B"}
    groups = [r["prediction"] for r in read_predictions(tmp_path / "caption_generation.jsonl").values()]
    assert all(len(g) == 10 and g[0] == "Caption number 1 about the joke." for g in groups)

    with FakeChatServer(_judge_reply) as judge:
        spec = JudgeSpec.parse("openai:fake-judge", base_url=judge.base_url, cache_dir=str(cache))
        generation = score("caption_generation", [tmp_path / "caption_generation.jsonl"], dataset=dataset, judge=spec)
        # The judge always prefers A strongly (Δ = 3.95 > 3.003): the model wins exactly the orders where it is A.
        for group in ("human_top10", "human_200", "human_1000", "human_median"):
            assert generation["details"]["win_rate"][group]["win_rate"] == 0.5
        assert generation["scores"]["win_rate_top10"]["value"] == 0.5
        assert generation["config"]["judge"]["settings"]["rule"] == "zhang_top2"
        humor = score("humorbench", [tmp_path / "humorbench.jsonl"], dataset=dataset, judge=spec)
        assert humor["scores"]["element_accuracy"]["value"] == 1.0  # every explanation says "joke"
        assert humor["details"]["n_pass"] == 31 and humor["details"]["category_scores"]
        # each element's verdict, by caption_id/element_id (the leaderboard's "Hard, leaderboard rule" pools them)
        ids = set(read_predictions(tmp_path / "humorbench.jsonl"))
        assert humor["details"]["element_verdicts"] == dict.fromkeys(ids, "PASS") and len(ids) == 31
        explanation = score("explanation", [tmp_path / "explanation.jsonl"], dataset=dataset, judge=spec)
        assert explanation["scores"]["judge_win_rate"]["value"] == 0.5  # always "B": wins once per item
        assert main(["reliability", "--dataset", dataset, "--judge", "openai:fake-judge",
                     "--judge-base-url", judge.base_url, "--cache-dir", str(cache)]) == 0
        reliability = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert reliability["reliability"] == 0.5 and reliability["n"] == 2 * reliability["n_contests"]
        n_judge = judge.count()
        score("humorbench", [tmp_path / "humorbench.jsonl"], dataset=dataset, judge=spec)
        assert judge.count() == n_judge  # cached
        dry = ["score", "--task", "caption_generation", "--dataset", dataset, "--predictions",
               str(tmp_path / "caption_generation.jsonl"), "--judge", "openai:gpt-4o", "--judge-base-url",
               judge.base_url, "--cache-dir", str(tmp_path / "empty_cache"), "--protocol", "best_pick", "--dry-run"]
        assert main(dry) == 0
        estimate = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["dry_run"]
        # 4 contests (the 91 held-out contests pooled: four of them in the sample), 2 orders, 4 groups
        assert estimate["n_calls"] == 4 * 2 * 4 and estimate["cost_usd"] > 0
        assert judge.count() == n_judge  # a dry run spends nothing
        best_pick = score("caption_generation", [tmp_path / "caption_generation.jsonl"], dataset=dataset, judge=spec,
                          task_options={"protocol": "best_pick"})
        # the reply "Explanation B is better.\nB" is not a whole letter: the paper's rule counts it as no win
        # (the one text-form contest of four reads its last character, B: it wins its B order, 1 of 8)
        assert best_pick["scores"]["win_rate_top10"]["value"] == 0.125
        assert best_pick["config"]["options"]["protocol"] == "best_pick"
        vision = [r for r in judge.requests[n_judge:] if any(isinstance(m["content"], list) and any(
            part.get("type") == "image_url" for part in m["content"]) for m in r.body["messages"])]
        assert vision  # Best Pick sees the cartoon where the dataset has it, as in the paper
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b"sk-test-secret-0123456789" not in path.read_bytes(), path


def test_fold_averaging_and_hessel_format(dataset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two folds are averaged unweighted; Hessel's `{instance_id: letter}` files are accepted."""
    files = []
    for fold in (0, 1):
        out = tmp_path / f"fold{fold}.jsonl"
        run_task("matching", "length", out, dataset=dataset, fold=fold, progress=False)
        hessel = tmp_path / f"fold{fold}.json"
        hessel.write_text(json.dumps({k: r["prediction"] for k, r in read_predictions(out).items()}))
        files.append(hessel)
    singles = [score("matching", [f], dataset=dataset, folds=[k])["scores"]["accuracy"]["value"]
               for k, f in enumerate(files)]
    assert main(["score", "--task", "matching", "--dataset", dataset, "--predictions", *map(str, files),
                 "--fold", "0", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["scores"]["accuracy"]["value"] == pytest.approx(sum(singles) / 2)
    assert result["config"]["dataset"]["folds"] == [0, 1]


def test_bad_input(dataset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad system specs, tasks, splits, folds and incomplete predictions give one clear line and status 2."""
    out = str(tmp_path / "p.jsonl")
    cases = [
        (["run", "--task", "matching", "--system", "gpt4", "--dataset", dataset, "--out", out], "cannot read 'gpt4'"),
        (["run", "--task", "matchng", "--system", "random", "--dataset", dataset, "--out", out],
         "Did you mean 'matching'?"),
        (["run", "--task", "humorbench", "--system", "random", "--dataset", dataset, "--split", "train", "--out",
          out], "has no split 'train'; it has test"),
        (["run", "--task", "humorbench", "--system", "random", "--dataset", dataset, "--fold", "2", "--out", out],
         "has no cross-validation folds"),
        (["run", "--task", "caption_generation", "--system", "length", "--dataset", dataset, "--out", out],
         "length answers multiple-choice tasks only"),
        (["run", "--task", "matching", "--system", "random:x", "--dataset", dataset, "--out", out], "whole-number"),
        (["run", "--task", "matching", "--system", "random", "--dataset", str(tmp_path / "nope"), "--out", out],
         "cannot load config 'matching'"),
        (["score", "--task", "humorbench", "--dataset", dataset, "--predictions", out], "does not exist"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        assert message in capsys.readouterr().err, argv
    assert not Path(out).exists()  # a failed run leaves no file behind
    run_task("matching", "random", out, dataset=dataset, progress=False, limit=2)
    assert main(["score", "--task", "matching", "--dataset", dataset, "--predictions", out]) == 2
    assert re.search(r"no prediction for 2 of 4 matching instances", capsys.readouterr().err)
    assert main(["run", "--task", "matching", "--system", "length", "--dataset", dataset, "--out", out]) == 2
    assert "holds predictions of another system (system 'random', now 'length')" in capsys.readouterr().err
    run_task("humorbench", "random", tmp_path / "h.jsonl", dataset=dataset, progress=False)
    argv = ["score", "--task", "humorbench", "--dataset", dataset, "--predictions", str(tmp_path / "h.jsonl")]
    assert main(argv) == 2
    assert "HumorBench is scored by an autograder" in capsys.readouterr().err


def test_group_win_rate_module_calls_the_judge(tmp_path: Path) -> None:
    """`evaluate.load("metrics/group_win_rate").compute(..., judge_model=...)` judges both orders, then aggregates."""
    metric = load_metric("group_win_rate")
    groups = [[f"model caption {i}" for i in range(10)], [f"other {i}" for i in range(10)]]
    human = [[f"human caption {i}" for i in range(10)]] * 2
    with FakeChatServer(_judge_reply) as judge:
        result = metric.compute(model_groups=groups, human_groups=human, contest_numbers=[543, 544],
                                descriptions=["A cat in a bank.", "A dog at sea."], judge_model="fake-judge",
                                judge_base_url=judge.base_url, cache_dir=str(tmp_path))
        assert judge.count() == 4  # 2 contests × 2 orders
    assert (result["win_rate"], result["n_judgments"], result["n_contests"]) == (0.5, 4, 2)
    with pytest.raises(ValueError, match="either judgments or judge_model"):
        metric.compute(judgments=[{"contest_number": 1, "model_position": "A", "verdict": "A", "delta_logprob": None}],
                       model_groups=groups, human_groups=human, contest_numbers=[1, 2], judge_model="x")


def test_offline_judges_through_the_cli(dataset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`nycc-bench reward train|evaluate|train-grader`, then scores judged by `reward:` and `embedding:`."""
    def last_json(argv: list[str]) -> dict:
        assert main(argv) == 0, argv
        return json.loads(capsys.readouterr().out.strip().splitlines()[-1])

    reward, grader = tmp_path / "reward", tmp_path / "grader"
    trained = last_json(["reward", "train", "--dataset", dataset, "--out", str(reward)])
    assert trained["training"]["splits"] == ["train"] and (reward / "config.json").exists()
    evaluated = last_json(["reward", "evaluate", "--model", str(reward), "--dataset", dataset])
    assert 0 <= evaluated["group_overall"]["accuracy"] <= 1 and evaluated["group_overall"]["n_contests"] == 91
    last_json(["reward", "train-grader", "--rubric", str(SAMPLE_DIR / "humorbench_reubennarad" / "rubric"),
               "--out", str(grader)])
    for task, judge in (("caption_generation", f"reward:{reward}"), ("humorbench", f"embedding:{grader}")):
        predictions = tmp_path / f"{task}.jsonl"
        run_task(task, "random", predictions, dataset=dataset, progress=False)
        result = last_json(["score", "--json", "--task", task, "--dataset", dataset, "--predictions",
                            str(predictions), "--judge", judge])
        assert result["config"]["judge"]["name"] == judge
    assert main(["score", "--task", "humorbench", "--dataset", dataset, "--predictions", str(predictions),
                 "--judge", f"reward:{reward}"]) == 2
    assert "grade HumorBench with embedding: or an LLM" in capsys.readouterr().err


def test_a_failing_server_leaves_failed_items_that_the_next_run_completes(dataset: str, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A transport/API failure is not an answer: the items are `failed`, counted, never scored as answers, and
    the same command with a working server answers exactly them."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-0123456789")
    out = tmp_path / "matching.jsonl"
    options = {"cache_dir": str(tmp_path / "cache"), "retries": 0}
    with FakeChatServer(lambda body, attempt: Reply(status=503)) as server:
        summary = run_task("matching", "openai:fake-model", out, dataset=dataset, base_url=server.base_url,
                           progress=False, system_options=options)
        assert summary.failed == summary.total == 4 and summary.answered == 0
        records = read_predictions(out)
        assert {r["status"] for r in records.values()} == {"failed"}
        assert all(r["prediction"] is None for r in records.values())
        assert all("503" in r["error"] for r in records.values())
        scored = score("matching", [out], dataset=dataset)
        assert scored["n_failed"] == 4 and scored["scores"]["accuracy"]["value"] == 0.0  # in the denominator
        server.responder = lambda body, attempt: Reply(text="Answer: A")  # the same endpoint, working again
        summary = run_task("matching", "openai:fake-model", out, dataset=dataset, base_url=server.base_url,
                           progress=False, system_options=options)
        assert server.count() == 8
    assert (summary.answered, summary.failed) == (4, 0)
    assert {r["status"] for r in read_predictions(out).values()} == {"ok"}
    assert score("matching", [out], dataset=dataset)["n_failed"] == 0
