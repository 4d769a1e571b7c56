"""The papers' settings are what a run sends and records (issue: paper-faithful protocols by default): the
explainer at temperature 1 (HumorBench), one explainer call per annotation row, Zhang's sampling, every held-out
contest counted in the win rate, and the description source of the generation prompt; a changed setting is
recorded as a deviation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply, last_user_text

from nycc_bench import evaluate
from nycc_bench.judging import JudgeSpec
from nycc_bench.predictions import read_predictions
from nycc_bench.runner import run_task
from nycc_bench.score import score
from nycc_bench.tasks import get_task

SILENT: list[str] = []  # the user prompt of the contest the fake model gives no caption list for


def reply(body: dict, attempt: int) -> Reply:
    """Captions for one of the two sample contests only (the other gets no list), explanations, verdicts."""
    text = last_user_text(body)
    everything = json.dumps(body)
    if "generate 10 funny captions" in everything:
        if text in SILENT:
            return Reply(text="I have nothing to say.", top_logprobs=None)
        return Reply(text="\n".join(f"{i}. Caption {i}." for i in range(1, 11)), top_logprobs=None)
    if "<explanation>" in text:
        return Reply(text="<reasoning>hmm</reasoning><explanation>A joke.</explanation>", top_logprobs=None)
    return Reply(text="A", top_logprobs=[("A", -0.01), ("B", -5.0)])


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-fidelity-0000")
    with FakeChatServer(reply) as fake:
        yield fake


def test_humorbench_explains_once_per_row_at_temperature_one(server, sample_dataset: str, tmp_path: Path) -> None:
    out = tmp_path / "hb.jsonl"
    summary = run_task("humorbench", "openai:m", out, dataset=sample_dataset, base_url=server.base_url,
                       progress=False, system_options={"cache_dir": str(tmp_path / "c")})
    assert summary.total == 31 == server.count()  # 31 annotation rows of 18 captions: one call each, as upstream
    assert {r.body["temperature"] for r in server.requests} == {1.0}
    assert all("max_tokens" not in r.body for r in server.requests)  # upstream leaves the length to the provider
    assert {r["prediction"] for r in read_predictions(out).values()} == {"A joke."}  # <reasoning> dropped
    per_caption = run_task("humorbench", "openai:m", tmp_path / "hb2.jsonl", dataset=sample_dataset,
                           base_url=server.base_url, progress=False, system_options={"cache_dir": str(tmp_path / "c")},
                           task_options={"unit": "caption"})
    assert per_caption.total == 18


def test_zhang_api_generation_is_sent_as_caption_gen_and_recorded(server, sample_dataset: str,
                                                                   tmp_path: Path) -> None:
    # per system kind (issue 22): an API model as generation/caption_gen.py L41-53 ran it: max_tokens 1000 and no
    # sampling settings, that file's prompt with Hessel's descriptions; no deviation
    run = evaluate("openai:m", ["caption_generation"], dataset=sample_dataset, out=tmp_path / "run",
                   base_url=server.base_url, progress=False, cache_dir=str(tmp_path / "c"))
    bodies = [r.body for r in server.requests]
    assert len(bodies) == 3 and {b["max_tokens"] for b in bodies} == {1000}  # three contests have Hessel's description
    assert not any(k in b for b in bodies for k in ("temperature", "top_p", "seed", "repetition_penalty"))
    assert all(b["messages"][0]["content"].startswith("I want you to act as a sophisticated reader of The New "
                                                      "Yorker Magazine. You are competing in The New Yorker Cartoon "
                                                      "Caption Contest.  Your task") for b in bodies)
    config = run.record["tasks"]["caption_generation"]["config"]
    assert config["decoding"] == {"max_new_tokens": 1000}
    assert config["effective"]["system"]["kind"] == "openai"
    assert config["effective"]["options"]["prompt"] == "caption_gen"
    assert config["effective"]["descriptions"] == {"hessel": 3}
    # no setting differs from upstream's (the sample's other contests lack Hessel's description, which this prompt
    # needs: they are named as not evaluated; those without any description are not items of the sample at all)
    assert config["deviations"][0] == "No judge: the judged scores are absent."
    assert config["deviations"][1].startswith("1 dataset rows cannot be prompted") and len(config["deviations"]) == 3
    assert config["deviations"][2].startswith("87 dataset rows hold no description of any kind")
    entry = run.record["tasks"]["caption_generation"]
    assert entry["coverage"] == {"n": 3, "of": 4, "why": "1 dataset rows cannot be prompted"}
    assert entry["status"] == "incomplete" and "3 of 4 (75%) instances scored" in entry["status_reason"]
    greedy = evaluate("openai:m", ["caption_generation"], dataset=sample_dataset, out=tmp_path / "greedy",
                      base_url=server.base_url, progress=False, cache_dir=str(tmp_path / "c"), temperature=0.0)
    assert greedy.record["tasks"]["caption_generation"]["config"]["deviations"][0] == \
        "temperature 0 was sent; upstream's API runs sent none."


def test_zhang_uniform_setting_is_sent_and_recorded_as_deviations(server, sample_dataset: str,
                                                                  tmp_path: Path) -> None:
    # the single setting (option setting=uniform): App. B.3's prompt, T 0.7, top-p 0.95, seed 0, 512 tokens
    run = evaluate("openai:m", ["caption_generation"], dataset=sample_dataset, out=tmp_path / "run",
                   base_url=server.base_url, progress=False, cache_dir=str(tmp_path / "c"),
                   task_options={"caption_generation": {"setting": "uniform"}})
    bodies = [r.body for r in server.requests]
    assert {(b["temperature"], b["top_p"], b["seed"], b["max_tokens"]) for b in bodies} == {(0.7, 0.95, 0, 512)}
    assert all(b["repetition_penalty"] == 1.15 for b in bodies)  # a non-OpenAI server takes it
    config = run.record["tasks"]["caption_generation"]["config"]
    assert config["decoding"] == {"temperature": 0.7, "top_p": 0.95, "repetition_penalty": 1.15, "seed": 0,
                                  "max_new_tokens": 512}
    assert config["effective"]["options"]["prompt"] == "paper"
    assert config["deviations"][:6] == [
        "Prompted with the paper prompt; upstream's API runs sent generation/caption_gen.py's text with Hessel's "
        "descriptions.", "Replies read by the captions reader; upstream's API runs post-processed them as "
        "generation/caption_gen.py L59-75 does (`caption_gen`).",
        "max_tokens 512 was sent; upstream's API runs sent 1000.",
        "temperature 0.7 was sent; upstream's API runs sent none.",
        "top_p 0.95 was sent; upstream's API runs sent none.",
        "seed 0 was sent; upstream's API runs sent none."]
    sent = config["effective"]["system"]["request"]  # recorded from what the system sends
    assert {k: sent[k] for k in ("temperature", "top_p", "seed", "max_tokens", "repetition_penalty")} == \
        {k: bodies[0][k] for k in ("temperature", "top_p", "seed", "max_tokens", "repetition_penalty")}


def test_a_contest_without_captions_counts_as_lost(server, sample_dataset: str, sample_judges: dict,
                                                    tmp_path: Path) -> None:
    from nycc_bench.kinds.instances import build_instances
    from nycc_bench.tasks import get_task

    first = build_instances(get_task("caption_generation"), sample_dataset)[0]  # the single setting's prompt
    SILENT[:] = [first.user]
    out = tmp_path / "gen.jsonl"
    run_task("caption_generation", "openai:m", out, dataset=sample_dataset, base_url=server.base_url,
             progress=False, system_options={"cache_dir": str(tmp_path / "c")}, task_options={"setting": "uniform"})
    records = read_predictions(out)
    missing = [k for k, r in records.items() if r["prediction"] is None]
    assert len(records) == 4 and len(missing) == 1 and records[missing[0]]["status"] == "unparsed"
    judge = JudgeSpec.parse("openai:judge", base_url=server.base_url, cache_dir=str(tmp_path / "c"))
    counted = score("caption_generation", [out], dataset=sample_dataset, judge=judge)
    dropped = score("caption_generation", [out], dataset=sample_dataset, judge=judge,
                    task_options={"missing": "drop"})
    top = counted["details"]["win_rate"]["human_top10"]
    # the judge prefers A by far: each answered contest wins its A order only; the silent contest loses both
    assert (top["win_rate"], top["n_judgments"], top["n_contests"]) == (0.375, 8, 4)
    assert dropped["details"]["win_rate"]["human_top10"]["win_rate"] == 0.5
    assert counted["details"]["n_missing"] == 1 and counted["n_unparsed"] == 1
    assert any("dropped from the win rate" in d for d in dropped["config"]["deviations"])
    assert not any("dropped" in d for d in counted["config"]["deviations"])


def test_the_description_source_is_a_named_option(server, sample_dataset: str, tmp_path: Path) -> None:
    run = evaluate("openai:m", ["caption_generation"], dataset=sample_dataset, out=tmp_path / "run",
                   base_url=server.base_url, progress=False, cache_dir=str(tmp_path / "c"), description="hessel",
                   task_options={"caption_generation": {"setting": "uniform"}})
    config = run.record["tasks"]["caption_generation"]["config"]
    assert config["options"]["description"] == "hessel"
    assert config["effective"]["descriptions"] == {"hessel": 3, "nextml": 1}
    # upstream's Hugging Face runs used GPT-4o's descriptions: for that kind, Hessel's is a deviation
    hf = {**config["effective"], "system": {"kind": "hf", "request": {}}}
    assert any("Hessel's annotated descriptions" in d for d in get_task("caption_generation").computed_deviations(hf))
    assert "--system-option description=hessel" in run.record["commands"][0]


def test_samples_go_in_one_request_with_n(server, sample_dataset: str, tmp_path: Path) -> None:
    """Issue 46: `samples: n` on an API system is one request per prompt with the API's `n`, recorded as sent;
    the answer is the n texts."""
    server.reset()
    out = tmp_path / "p.jsonl"
    run_task("caption_generation", "openai:m", out, dataset=sample_dataset, progress=False,
             base_url=server.base_url, system_options={"samples": 2, "cache_dir": str(tmp_path / "c")})
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert server.count() == len(records) and {r.body["n"] for r in server.requests} == {2}
    assert all(isinstance(r["raw"], list) and len(r["raw"]) == 2 for r in records)
    meta = json.loads(out.with_name(out.name + ".meta.json").read_text())
    assert meta["effective"]["request"]["n"] == 2
