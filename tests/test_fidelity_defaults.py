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


def test_zhang_sampling_is_sent_and_recorded(server, sample_dataset: str, tmp_path: Path) -> None:
    run = evaluate("openai:m", ["caption_generation"], dataset=sample_dataset, out=tmp_path / "run",
                   base_url=server.base_url, progress=False, cache_dir=str(tmp_path / "c"))
    bodies = [r.body for r in server.requests]
    assert {(b["temperature"], b["top_p"], b["seed"], b["max_tokens"]) for b in bodies} == {(0.7, 0.95, 0, 512)}
    assert all(b["repetition_penalty"] == 1.15 for b in bodies)  # a non-OpenAI server takes it
    config = run.record["tasks"]["caption_generation"]["config"]
    assert config["decoding"] == {"temperature": 0.7, "top_p": 0.95, "repetition_penalty": 1.15, "seed": 0,
                                  "max_new_tokens": 512}
    greedy = evaluate("openai:m", ["caption_generation"], dataset=sample_dataset, out=tmp_path / "greedy",
                      base_url=server.base_url, progress=False, cache_dir=str(tmp_path / "c"), temperature=0.0)
    assert "Sampling temperature is 0; the paper's is 0.7." in \
        greedy.record["tasks"]["caption_generation"]["config"]["deviations"]
    sent = config["effective"]["system"]["request"]  # recorded from what the system sends
    assert {k: sent[k] for k in ("temperature", "top_p", "seed", "max_tokens", "repetition_penalty")} == \
        {k: bodies[0][k] for k in ("temperature", "top_p", "seed", "max_tokens", "repetition_penalty")}


def test_a_contest_without_captions_counts_as_lost(server, sample_dataset: str, sample_judges: dict,
                                                    tmp_path: Path) -> None:
    from nycc_bench.tasks import get_task
    from nycc_bench.tasks.instances import build_instances

    first = build_instances(get_task("caption_generation"), sample_dataset)[0]
    SILENT[:] = [first.user]
    out = tmp_path / "gen.jsonl"
    run_task("caption_generation", "openai:m", out, dataset=sample_dataset, base_url=server.base_url,
             progress=False, system_options={"cache_dir": str(tmp_path / "c")})
    records = read_predictions(out)
    missing = [k for k, r in records.items() if r["prediction"] is None]
    assert len(records) == 2 and len(missing) == 1 and records[missing[0]]["status"] == "unparsed"
    judge = JudgeSpec.parse("openai:judge", base_url=server.base_url, cache_dir=str(tmp_path / "c"))
    counted = score("caption_generation", [out], dataset=sample_dataset, judge=judge)
    dropped = score("caption_generation", [out], dataset=sample_dataset, judge=judge,
                    task_options={"missing": "drop"})
    top = counted["details"]["win_rate"]["human_top10"]
    # the judge prefers A by far: the answered contest wins its A order only; the silent contest loses both
    assert (top["win_rate"], top["n_judgments"], top["n_contests"]) == (0.25, 4, 2)
    assert dropped["details"]["win_rate"]["human_top10"]["win_rate"] == 0.5
    assert counted["details"]["n_missing"] == 1 and counted["n_unparsed"] == 1
    assert any("dropped from the win rate" in d for d in dropped["config"]["deviations"])
    assert not any("dropped" in d for d in counted["config"]["deviations"])


def test_the_description_source_is_a_named_option(server, sample_dataset: str, tmp_path: Path) -> None:
    run = evaluate("openai:m", ["caption_generation"], dataset=sample_dataset, out=tmp_path / "run",
                   base_url=server.base_url, progress=False, cache_dir=str(tmp_path / "c"), description="hessel")
    config = run.record["tasks"]["caption_generation"]["config"]
    assert config["options"]["description"] == "hessel"
    assert any("Hessel's annotated descriptions" in d for d in config["deviations"])
    assert "--system-option description=hessel" in run.record["commands"][0]
