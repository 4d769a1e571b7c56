"""Hessel's explanation judge keeps each item's verdicts beside the predictions (both orders), as the other
judged tasks do, so the run viewer shows them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai import FakeChatServer, Reply

from nycc_bench import evaluate
from nycc_bench.judging import JudgeSpec
from nycc_bench.predictions import read_judged, read_predictions


def test_explanation_judge_verdicts_are_kept_per_item(sample_dataset: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-explanation-judge")
    with FakeChatServer(lambda body, attempt: Reply(text="Answer: A", top_logprobs=None)) as judge:
        spec = JudgeSpec.parse("openai:fake-judge", base_url=judge.base_url, cache_dir=str(tmp_path / "cache"))
        run = evaluate(system="random", tasks=["explanation"], dataset=sample_dataset, folds=[0],
                       out=tmp_path / "run", judge=spec, progress=False)
    path = tmp_path / "run" / "predictions" / "explanation.jsonl"
    judged, records = read_judged(path), read_predictions(path)
    assert judged and set(judged) == set(records)
    for entry in judged.values():
        assert entry["correct"] is None  # a pairwise comparison is no single right or wrong
        assert sorted(v["model_position"] for v in entry["verdicts"]) == ["A", "B"]
        assert all(v["verdict"] == "A" and v["model_won"] == (v["model_position"] == "A") for v in entry["verdicts"])
    assert run.scores["explanation"]  # the win rate itself is still in the record
