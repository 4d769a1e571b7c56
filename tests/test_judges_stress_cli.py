"""`nycc-bench judges stress --judge SPEC`: the adversarial cases against any judge, here an OpenAI-compatible one
served by the scripted local server: a judge that prefers the longer group and passes every explanation is fooled,
and the command says by what (exit 1); the offline judge is not (exit 0)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai import FakeChatServer, Reply

from nycc_bench.cli import main

GROUPS = re.compile(r"group A: 1\.\n(.*)\ngroup B: 1\.\n(.*)", re.S)


def gullible(body: dict, attempt: int) -> Reply:
    """Picks the longer caption group; passes every explanation."""
    asked = [str(m["content"]) for m in body["messages"] if "group A: 1." in str(m["content"])]
    if asked and (found := GROUPS.search(asked[-1])):
        a, b = found.groups()
        pick, other = ("A", "B") if len(a) >= len(b) else ("B", "A")
        return Reply(text=pick, top_logprobs=[(pick, -0.01), (other, -6.0)])
    return Reply(text="<reasoning>Covers it.</reasoning>\n<judgement>PASS</judgement>", top_logprobs=None)


def test_stress_reports_what_fools_an_llm_judge(sample_dataset: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with FakeChatServer(gullible) as server:
        code = main(["judges", "stress", "--judge", "openai:gullible", "--judge-base-url", server.base_url,
                     "--cache-dir", str(tmp_path / "cache"), "--dataset", sample_dataset, "-n", "2",
                     "--case", "far_too_long", "--case", "news_sentence"])
        assert server.count() > 0
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert code == 1 and "far_too_long" in report["fooled"]
    assert report["captions"]["far_too_long"]["human_top10"]["wins"] > 0  # 400 words beat ten real captions
    assert report["elements"]["news_sentence"]["passes"] == report["elements"]["news_sentence"]["n"] > 0
    assert "| far_too_long |" in out and "fooled by:" in out


def test_stress_passes_the_offline_judge(sample_dataset: str, sample_judges: dict,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["judges", "stress", "--judge", "reward:sample", "--dataset", sample_dataset, "-n", "2",
                 "--case", "random_consonants", "--case", "recipe_line"])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and report["fooled"] == [] and "elements" not in report


def test_unknown_case_is_one_line(sample_dataset: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judges", "stress", "--judge", "reward:sample", "--dataset", sample_dataset,
                 "--case", "limerick"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no stress case 'limerick'" in err and "random_consonants" in err
