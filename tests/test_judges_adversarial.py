"""The adversarial set through every offline judge: each case (random consonants, byte garbage, a copy of the prompt
or the description, one word repeated, empty, far too long, another language, a fluent news sentence, a recipe
line) loses against every human group and fails every element; scored through `score`, each item's reason is in
the record, `show` and the run detail."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from nycc_bench.groups import HUMAN_GROUPS
from nycc_bench.judge_stress import CASES, caption_stress, element_stress
from nycc_bench.judging import JudgeSpec


@pytest.fixture(scope="module")
def reward_stress(sample_dataset: str, sample_judges: dict) -> dict:
    """Every case against reward:sample, once for the module (five held-out contests, both orders)."""
    return caption_stress(JudgeSpec.parse("reward:sample"), sample_dataset)


@pytest.fixture(scope="module")
def grader_stress(sample_dataset: str, sample_judges: dict) -> dict:
    """Every case against embedding:sample on the sample's HumorBench captions, every element."""
    return element_stress(JudgeSpec.parse("embedding:sample"), sample_dataset)


@pytest.mark.parametrize("case", list(CASES))
def test_case_loses_against_every_human_group(case: str, reward_stress: dict) -> None:
    by_group = reward_stress[case]
    assert set(by_group) == set(HUMAN_GROUPS)
    for group, counts in by_group.items():
        assert counts["n"] >= 2 and counts["wins"] == 0, (case, group, counts)


@pytest.mark.parametrize("case", list(CASES))
def test_case_fails_every_element(case: str, grader_stress: dict) -> None:
    assert grader_stress[case]["n"] >= 2 and grader_stress[case]["passes"] == 0, grader_stress[case]


def _nonsense_predictions(run_dir: Path, out: Path, task: str) -> Path:
    """The judged random run's predictions of `task`, every answer replaced by random consonant strings."""
    source = next((run_dir / "predictions").glob(f"{task}*.jsonl"))
    target = out / "predictions" / source.name
    target.parent.mkdir(parents=True)
    for extra in source.parent.glob(source.name + "*"):
        if extra.name != source.name and not extra.name.endswith(".judged.jsonl"):
            shutil.copy(extra, target.parent / extra.name)
    rng = random.Random(0)
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("status") == "ok" and isinstance(record.get("prediction"), list):
            record["prediction"] = [" ".join("".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(6))
                                             for _ in range(5)) for _ in record["prediction"]]
        elif record.get("status") == "ok" and isinstance(record.get("prediction"), str):
            record["prediction"] = "zzzz qqqq xxxx " * 3
        lines.append(json.dumps(record))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def test_nonsense_scored_by_reward_sample_loses_with_reasons(judged_random_run, sample_dataset: str,
                                                             tmp_path: Path) -> None:
    """The issue's first example: consonant strings scored with reward:sample; every human group beats them, each
    caption's reason is in the record, and Average EAD stays within [0, 1]."""
    from nycc_bench.leaderboard.detail import detail_html
    from nycc_bench.predictions import write_judged
    from nycc_bench.score import score
    from nycc_bench.show import show

    task = "caption_generation"
    path = _nonsense_predictions(judged_random_run.path.parent, tmp_path, task)
    entry = score(task, [path], dataset=sample_dataset, judge=JudgeSpec.parse("reward:sample"), keep_judged=True)
    details = entry["details"]
    for group, rate in details["win_rate"].items():
        assert rate["win_rate"] == 0 and rate["n_judgments"] > 0, (group, rate)
    flagged = details["flagged"]
    assert flagged["n_flagged"] == flagged["n"] > 0 and flagged["reasons"] == {"not_words": flagged["n"]}
    assert 0 <= details["average_ead"] <= 1
    write_judged(path, entry["judged_items"][str(path)])
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])["instance_id"]
    text = show(tmp_path, task, first)
    assert "not_words:" in text and "word pieces per word" in text
    page = detail_html({"model": {"name": "nonsense"}, "tasks": {task: {**entry, "config": entry["config"]}}})
    assert f"{flagged['n_flagged']} of {flagged['n']}" in page and "not_words" in page


def test_nonsense_explanations_fail_with_reasons(judged_random_run, sample_dataset: str, tmp_path: Path) -> None:
    from nycc_bench.score import score

    task = "humorbench"
    path = _nonsense_predictions(judged_random_run.path.parent, tmp_path, task)
    entry = score(task, [path], dataset=sample_dataset, judge=JudgeSpec.parse("embedding:sample"))
    details = entry["details"]
    assert set(details["element_verdicts"].values()) == {"FAIL"}
    assert details["flagged"]["n_flagged"] == details["flagged"]["n"] > 0
