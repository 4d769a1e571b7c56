"""Judge prompts pinned to the papers' text, pure parsers (doctests), config, cache keys and rubric loading."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply
from judge_helpers import KEY, config

from nycc_bench.judge import (
    RankingExample,
    build_grader_jobs,
    build_group_jobs,
    draw_shots,
    load_rubric,
    truncate_last_k,
    validate_autograder,
)
from nycc_bench.judge.protocols import best_pick, humorbench, overall
from nycc_bench.llm import ChatRequest, LLMConfig, LLMEngine, default_cache_dir
from nycc_bench.llm.cache import cache_key
from nycc_bench.tasks import get_task

RUBRIC = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "humorbench_reubennarad" / "rubric"

# The authors' prompts.py text (appendix B / A of the paper, with its line breaks), character for character.
UPSTREAM_AUTOGRADER = (
    "\nYou will receive:\n1. A short cartoon description\n2. A winning funny caption\n3. A student’s answer\n"
    "4. A brief “anticipated answer point” that captures the crucial comedic device or element\n\n"
    "Your job is to determine whether the student’s answer **explicitly covers** that “anticipated answer "
    "point.” \n\n- If the student’s answer captures or discusses the key comedic element (even if the wording "
    "is different), **PASS**.\n- If the student’s answer **omits** or **contradicts** that key comedic element, "
    "**FAIL**.\n- Do not penalize extra details or expansions. Synonyms or paraphrasing are acceptable if they "
    "convey the same comedic logic.\n- Be mindful: if the anticipated answer point emphasizes something specific "
    "(e.g. a pun, wordplay, or ironic twist), check that the student’s answer includes it.\n\nAt the end of your "
    "evaluation, provide exactly two XML tags:\n1. <reasoning>Short explanation of your thought process"
    "</reasoning>\n2. <judgement>PASS or FAIL</judgement>\n\nDo not include additional commentary or deviation "
    "from this format.\n\nCartoon description: D\nCaption: C\nStudent's answer: E\nAnticipated answer point: P\n"
)
UPSTREAM_EXPLAINER = (
    "\nYou are a humor expert extraordinaire, judging the New Yorker Cartoon Caption Contest. Your current task "
    "is to help us understand the humor in various submitted captions. Given a cartoon description and a caption "
    "submission, explain (in less than 200 words) *what* the joke is, focusing on the material substance of the "
    "joke.\nSTRICTLY use the format: <explanation>explanation goes here</explanation>\n\nCartoon description: D\n"
    "Caption: C\n"
)


@pytest.mark.parametrize(
    "module",
    [
        "nycc_bench.judge.parsers",
        "nycc_bench.llm.credentials",
        "nycc_bench.llm.pricing",
        "nycc_bench.judge.protocols.zhang_format",
        "nycc_bench.judge.protocols.humorbench",
        "nycc_bench.judge.protocols.best_pick",
        "nycc_bench.judge.protocols.group_comparison",
        "nycc_bench.judge.protocols.settings",
    ],
)
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


def test_humorbench_prompts_match_the_published_ones() -> None:
    assert humorbench.autograder_prompt("D", "C", "E", "P") == UPSTREAM_AUTOGRADER
    # the explainer is the system under test: its prompt is the HumorBench task's (the judge kept no copy)
    assert get_task("humorbench").prompts["user"].format(description="D", caption="C") == UPSTREAM_EXPLAINER


def test_overall_prompt_follows_appendix_b2_in_the_released_codes_characters() -> None:
    shots = [
        RankingExample(1, "Two men on horses.", "Soldiers lead businessmen", "Cap A1", "Cap B1", "B"),
        RankingExample(2, "A shark.", "It is in a pool.", "Cap A2", "Cap B2", "A"),
    ]
    messages = overall.build_messages(("A knight rides.", "Odd knight."), ["m1", "m2"], ["h1", "h2"], shots)
    assert messages == (
        {"role": "system", "content": "You are a judge for the new yorker cartoon caption contest."},
        {
            "role": "user",
            "content": "In this task, you will see two description for a cartoon. Then, you will see two captions "
            "that were written about the cartoon. Then you will choose which captions is funnier. I am going to "
            "give you two examples first and you answer the last example with either A or B",
        },
        {
            "role": "user",
            "content": "For example, the descriptions for the images are Two men on horses. and Soldiers lead "
            "businessmen The two captions are A: Cap A1 B: Cap B1",  # raw, as upstream joins them
        },
        {"role": "assistant", "content": "The caption that is funnier is B"},
        {
            "role": "user",
            "content": "Another example, the descriptions for the images are A shark. and It is in a pool. "
            "The two captions are A: Cap A2 B: Cap B2",
        },
        {"role": "assistant", "content": "The caption that is funnier is A"},
        {
            "role": "user",
            "content": "The descriptions for the images are A knight rides. and Odd knight. The two groups of "
            "captions are group A: 1.\nm1\n2.\nm2\ngroup B: 1.\nh1\n2.\nh2",
        },
        {
            "role": "user",
            "content": "Choose the group of captions that is funnier. Answer with only one letter A or B, and "
            "nothing else.",
        },
    )
    five = [RankingExample(i, "d.", "u.", "a", "b", "A") for i in range(5)]
    intro = overall.build_messages("d", ["x"], ["y"], five)[1]["content"]
    assert intro.endswith(  # rank.py / rank_more.py: no full stop (the paper prints one: version v1)
        "I am going to give you five examples first and you answer the last example with either A or B"
    )
    v1 = overall.build_messages("d", ["x"], ["y"], five, "zhang2024-overall-v1")[1]["content"]
    assert v1 == intro + "."
    zero_shot = overall.build_messages("d", ["x"], ["y"])
    assert len(zero_shot) == 4 and zero_shot[1]["content"].endswith("which captions is funnier.")


def test_best_pick_vision_prompt_follows_appendix_b2() -> None:
    shots = [RankingExample(i, "d.", "u.", f"a{i}", f"b{i}", "AB"[i % 2], image_url=f"data:image/png;base64,{i}")
             for i in range(5)]
    messages = best_pick.build_messages(None, ["m"], ["h"], shots, image_url="https://example.org/cartoon.png")
    assert messages[0]["content"] == (
        "You are a judge for the new yorker cartoon caption contest. Your job is to find the funniest caption."
    )
    first = messages[1]["content"]
    assert first[0]["text"] == (
        "In this task, you will see a cartoon first and two captions that were written about it then. The task is "
        "to choose which caption is funnier. I am going to show you five cartoons, corresponding captions and their "
        "answers first. In the end, for the last cartoon, answer with only one letter A or B, and nothing else."
    )
    assert first[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,0", "detail": "high"}}
    assert first[2]["text"] == "For this example, the two captions are A: a0, B: b0. The answer is"  # rank_more.py
    assert messages[2] == {"role": "assistant", "content": "A"}
    assert messages[3]["content"][1]["text"] == "Another example, the two captions are A: a1, B: b1. The answer is"
    paper = best_pick.build_messages(None, ["m"], ["h"], shots, "https://example.org/c.png", "zhang2024-best-pick-v1")
    assert paper[1]["content"][2]["text"] == "For this example, the two captions are A: a0 B: b0. The answer is"
    query = messages[-1]["content"]
    assert query[0]["image_url"]["url"] == "https://example.org/cartoon.png"
    assert query[1]["text"] == (
        "Find the funniest caption for each group. Then choose the funnier group based on these funniest captions. "
        "Think step by step but finish the last line of your answer with only one letter A or B, and nothing else. "
        "A: 1.\nm or B: 1.\nh"
    )
    with pytest.raises(ValueError, match="needs an image for every shot"):
        best_pick.build_messages(None, ["m"], ["h"], [RankingExample(1, "d", "u", "a", "b", "A")], image_url="x")


def test_shots_are_seeded_per_contest_and_exclude_the_contest() -> None:
    pool = [RankingExample(c, "d", "u", "a", "b", "A") for c in range(20)]
    first = draw_shots(pool, 7, 5, seed=0)
    assert first == draw_shots(pool, 7, 5, seed=0) and len(first) == 5
    assert 7 not in {s.contest_number for s in first}
    assert first != draw_shots(pool, 7, 5, seed=1)
    with pytest.raises(ValueError, match="shot candidates"):
        draw_shots(pool[:3], 0, 5, seed=0)


def test_truncation_with_a_tokenizer() -> None:
    class Chars:
        def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
            return [ord(c) for c in text]

        def decode(self, ids: list[int]) -> str:
            return "".join(chr(i) for i in ids)

    assert truncate_last_k("abcdef", 3, Chars()) == "def"
    assert truncate_last_k("abc", 3, Chars()) == "abc"
    jobs = build_grader_jobs(["d"], ["c"], ["e"], ["w1 w2 w3 w4"], LLMConfig(), last_k_tokens=2)
    assert "Student's answer: w3 w4\n" in jobs[0].request.messages[0]["content"]
    assert jobs[0].meta["graded_explanation"] == "w3 w4"


def test_config_round_trip_versions_and_cache_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cfg = LLMConfig(model="gpt-4o", base_url="http://localhost:8000/v1", temperature=0.0, max_concurrency=4)
    assert LLMConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="unknown LLMConfig fields"):
        LLMConfig.from_dict({"modle": "x"})
    with pytest.raises(ValueError, match="backend must be one of"):
        LLMConfig(backend="anthropic")
    with pytest.raises(ValueError, match="not one of this protocol's versions"):
        build_grader_jobs(["d"], ["c"], ["e"], ["x"], LLMConfig(prompt_version="humorbench-v0"))
    assert build_grader_jobs(["d"], ["c"], ["e"], ["x"], LLMConfig(prompt_version="humorbench-v1"))
    assert cfg.price() == (2.5, 10.0) and LLMConfig(model="mystery").price() is None
    assert LLMConfig(backend="transformers", model="x").price() == (0.0, 0.0)
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path))
    assert default_cache_dir() == tmp_path / "judge"
    monkeypatch.delenv("NYCC_BENCH_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "nycc_bench" / "judge"
    import nycc_bench

    assert Path(nycc_bench.__file__).parent not in default_cache_dir().parents


def test_cache_key_covers_the_request_and_never_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    request = ChatRequest(({"role": "user", "content": "hi"},), max_tokens=5, temperature=0.0)
    identity = LLMEngine(LLMConfig(model="m", base_url="http://h/v1")).backend.identity()
    base = cache_key(identity, "v1", request)
    assert KEY not in str(identity)
    monkeypatch.setenv("NYCC_JUDGE_API_KEY", KEY)
    with_key = LLMEngine(LLMConfig(model="m", base_url="http://h/v1")).backend.identity()
    assert cache_key(with_key, "v1", request) == base
    changed = [
        cache_key({**identity, "model": "m2"}, "v1", request),
        cache_key({**identity, "base_url": "http://other/v1"}, "v1", request),
        cache_key(identity, "v2", request),
        cache_key(identity, "v1", ChatRequest(request.messages, max_tokens=6, temperature=0.0)),
        cache_key(identity, "v1", ChatRequest(request.messages, max_tokens=5, temperature=1.0)),
        cache_key(identity, "v1", ChatRequest(request.messages, max_tokens=5, temperature=0.0, top_logprobs=5)),
        cache_key(identity, "v1", ChatRequest(request.messages, max_tokens=5, temperature=0.0, sample_index=1)),
        cache_key(identity, "v1", ChatRequest(({"role": "user", "content": "hi!"},), max_tokens=5, temperature=0.0)),
    ]
    assert base not in changed and len(set(changed)) == len(changed)


def test_group_jobs_validate_inputs() -> None:
    with pytest.raises(ValueError, match="protocol must be one of"):
        build_group_jobs([["a"]], [["b"]], [1], ["d"], "pairwise", LLMConfig())
    with pytest.raises(ValueError, match="one entry per contest"):
        build_group_jobs([["a"]], [["b"], ["c"]], [1], ["d"], "overall", LLMConfig())
    with pytest.raises(ValueError, match="descriptions are required"):
        build_group_jobs([["a"]], [["b"]], [1], None, "overall", LLMConfig())
    jobs = build_group_jobs([["a"]], {"top10": [["b"]], "#200-209": [["c"]]}, [1], ["d"], "best_pick", LLMConfig())
    assert [(j.meta["human_group"], j.meta["model_position"]) for j in jobs] == [
        ("top10", "A"), ("top10", "B"), ("#200-209", "A"), ("#200-209", "B"),
    ]


@pytest.mark.skipif(not RUBRIC.is_dir(), reason="shared HumorBench data not present")
def test_rubric_loading_and_validation_against_human_labels(tmp_path: Path, monkeypatch) -> None:
    rows, skipped = load_rubric(RUBRIC)
    assert len(rows) == 500 and skipped == 100  # claude_rubric.csv is unlabelled
    labels = {}
    for row in rows:
        labels.setdefault(row["source"], []).append(row["label"])
    assert labels["gpt_4o_rubric.csv"].count("PASS") == 73 and labels["llama_4_maverick_rubric.csv"].count("FAIL") == 53
    assert rows[0]["contest_number"] == 2 and isinstance(rows[0]["contest_number"], int)

    monkeypatch.setenv("NYCC_JUDGE_API_KEY", KEY)
    always_pass = Reply(text="<reasoning>ok</reasoning><judgement>PASS</judgement>", top_logprobs=None)
    with FakeChatServer(lambda body, attempt: always_pass) as server:
        result = validate_autograder(RUBRIC, config(server.base_url, tmp_path / "cache", max_concurrency=32))
    metrics = result["metrics"]
    n_pass = 73 + 80 + 47 + 79 + 73
    assert result["n_skipped"] == 100 and len(result["verdicts"]) == 500
    assert metrics["accuracy"] == pytest.approx(n_pass / 500)
    assert metrics["fpr"] == 1.0 and metrics["fnr"] == 0.0 and metrics["n_error"] == 0



def test_overall_messages_are_upstreams_literal_construction() -> None:
    """Five shots and the query built as rank_more.py L255-268 builds them, descriptions with and without final
    periods (and a stray space): the same messages, character for character."""
    rows = [("A desk.", "A cat types."), ("No period", "also none"), ("Trailing space. ", " lead space"),
            ("Two men.", "no period"), ("none", "Ends here."), ("The query scene", "is odd.")]
    shots = [RankingExample(k, d, dud, f"a{k}", f"b{k}", "AB"[k % 2]) for k, (d, dud) in enumerate(rows[:5])]
    c6a, c6b = ["m1", "m2"], ["h1", "h2"]
    got = overall.build_messages(rows[5], c6a, c6b, shots)
    (d1, dud1), (d2, dud2), (d3, dud3), (d4, dud4), (d5, dud5), (d6, dud6) = rows
    g_a, g_b = "1.\nm1\n2.\nm2", "1.\nh1\n2.\nh2"
    l1, l2, l3, l4, l5 = (s.label for s in shots)
    upstream = [
        {"role": "system", "content": "You are a judge for the new yorker cartoon caption contest."},
        {"role": "user", "content": "In this task, you will see two description for a cartoon. Then, you will see two captions that were written about the cartoon. Then you will choose which captions is funnier. I am going to give you five examples first and you answer the last example with either A or B"},  # noqa: E501
        {"role": "user", "content": "For example, the descriptions for the images are " + d1 + " and " + dud1 + " The two captions are A: " + "a0" + " B: " + "b0"},  # noqa: E501
        {"role": "assistant", "content": "The caption that is funnier is " + l1},
        {"role": "user", "content": "Another example, the descriptions for the images are " + d2 + " and " + dud2 + " The two captions are A: " + "a1" + " B: " + "b1"},  # noqa: E501
        {"role": "assistant", "content": "The caption that is funnier is " + l2},
        {"role": "user", "content": "Another example, the descriptions for the images are " + d3 + " and " + dud3 + " The two captions are A: " + "a2" + " B: " + "b2"},  # noqa: E501
        {"role": "assistant", "content": "The caption that is funnier is " + l3},
        {"role": "user", "content": "Another example, the descriptions for the images are " + d4 + " and " + dud4 + " The two captions are A: " + "a3" + " B: " + "b3"},  # noqa: E501
        {"role": "assistant", "content": "The caption that is funnier is " + l4},
        {"role": "user", "content": "Another example, the descriptions for the images are " + d5 + " and " + dud5 + " The two captions are A: " + "a4" + " B: " + "b4"},  # noqa: E501
        {"role": "assistant", "content": "The caption that is funnier is " + l5},
        {"role": "user", "content": "The descriptions for the images are " + d6 + " and " + dud6 + " The two groups of captions are group A: " + g_a + "\ngroup B: " + g_b},  # noqa: E501
        {"role": "user", "content": "Choose the group of captions that is funnier. Answer with only one letter A or B, and nothing else."},  # noqa: E501
    ]
    assert list(got) == upstream
