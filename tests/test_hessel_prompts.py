"""Hessel's from-description tasks as the paper's GPT-3.5/4 baselines ran them (jmhessel/caption_contest_corpus,
gpt4/): upstream's chats, worked examples drawn as upstream draws them, replies read as upstream reads them, the
answer extractor (against a local OpenAI-compatible server) and the seeded random letter."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import numpy as np
import pytest
from fake_openai import FakeChatServer, Reply

from nycc_bench.errors import NyccBenchError
from nycc_bench.kinds import Instance, parsers, prompt_text
from nycc_bench.kinds.hessel2023 import draw_hessel_shots, parse_hessel_answer, parse_hessel_explanation
from nycc_bench.kinds.instances import build_instances, load_split
from nycc_bench.kinds.parsing import extractor_messages, fallback_letter, parse_extractor_reply, read_replies
from nycc_bench.tasks import get_task
from nycc_bench.tasks.registry import ROOT

ROW = "73dbb0f228d613d9f688fd19b70fdd62"  # the sample's matching test item of contest 12 (fold 0)

SYSTEM_COT = """You are CaptionContestGPT, an expert language model at understanding the famous New Yorker caption \
contest. You follow the contest each week, and understand what makes for a humorous caption for each cartoon. You \
are aware of the various theories of humor, and read/anaylze the caption contest entries and winners each week.

Some things to remember:

- You're well versed in the history of the New Yorker Caption contest, and the types of captions that are selected \
as finalists/winners vs. those that are not.
- You think step-by-step, but aren't overly verbose.
- You can express uncertainty in your thinking, but in the end, pick the single best answer in the requested format."""

SYSTEM_DIRECT = SYSTEM_COT.split("- You think")[0] + "- Provide the answer in the requested format."

DESCRIPTION = """scene location: a hospital room
description: A patient lies in a hospital bed while a doctor reads a chart. The tube from the patient's arm runs \
into a snack vending machine beside the bed.
uncanny description: The IV line is connected to a vending machine instead of a bag of fluid.
entities: Intravenous therapy, Vending machine"""

CHOICES = """A: Technically, this is a conflict of interest.
B: He needs very little supervision. Or water.
C: Your insurance only covers the B4.
D: He's our biggest investor.
E: Is there a cosigner who isn't seasonal?"""

MATCHING_INSTRUCTION = """I will describe a New Yorker cartoon to you. Then, I will give you 5 choices (labelled \
A-E) for captions. One of the captions was the winning caption for that cartoon, the other captions do not \
correspond to this cartoon. Your job is to first reason step-by-step about which answer might be correct, and, in \
the end, respond with "Answer: X" where X is either A, B, C, D, or E."""

MATCHING_DIRECT = """I will describe a New Yorker cartoon to you. Then, I will give you 5 choices (labelled A-E) for \
captions. One of the captions was the winning caption for that cartoon, the other captions do not correspond to \
this cartoon. Your job is to find the correct match and respond with "Answer: X" where X is either A, B, C, D, or E."""


def _instance(name: str, dataset: str, **options: object) -> Instance:
    found = [i for i in build_instances(get_task(name), dataset, options=options) if i.instance_id == ROW]
    assert len(found) == 1 and isinstance(found[0], Instance) and found[0].turns
    return found[0]


def test_zero_shot_matching_is_upstreams_chain_of_thought_chat(sample_dataset: str) -> None:
    inst = _instance("matching", sample_dataset)
    assert inst.messages() == [
        {"role": "system", "content": SYSTEM_COT},
        {"role": "user", "content": MATCHING_INSTRUCTION},
        {"role": "assistant",
         "content": "Sure, please describe the New Yorker cartoon, and provide me with the 5 caption choices."},
        {"role": "user", "content": "OK. Here is a description of the cartoon followed by the five choices.\n\n"
                                    f"{DESCRIPTION}\n\nChoices:\n{CHOICES}\n\nWhich of the 5 options (A, B, C, D, "
                                    'or E) is the best fit? Think step-by-step and finish your response with "Answer: '
                                    'X" where X is either A, B, C, D, or E.'},
    ]
    assert inst.system == SYSTEM_COT and inst.user == inst.messages()[-1]["content"]
    assert inst.letters == "ABCDE" and inst.reference["label"] == "C" and inst.image is None


def test_zero_shot_ranking_and_explanation_use_their_own_upstream_turns(sample_dataset: str) -> None:
    ranking = build_instances(get_task("ranking"), sample_dataset)[0].messages()
    assert ranking[0]["content"] == SYSTEM_COT and "2 choices (labelled A and B)" in ranking[1]["content"]
    assert "less funny.  Your job is to first reason" in ranking[1]["content"]  # upstream's double space, kept
    assert ranking[-1]["content"].startswith("OK. Here is a description of the cartoon followed by the two choices.")
    assert ranking[-1]["content"].endswith('Think step-by-step and finish your response with "Answer: X" where X is '
                                           "either A or B.")
    assert "\n\nChoices:\nA: " in ranking[-1]["content"] and "\nB: " in ranking[-1]["content"]
    explanation = build_instances(get_task("explanation"), sample_dataset)
    last = explanation[0].messages()[-1]["content"]
    caption = explanation[0].choices[0]
    assert last.startswith("OK. Here is a description of the cartoon followed by the winning caption.\n\n"
                           "scene location:")
    assert "\nentities: " in last and f"\n\nWinning caption: {caption}\n\nThink step-by-step" in last
    assert explanation[0].messages()[2]["content"].endswith("then write a 2-3 sentence explanation of the joke.")


def test_five_shot_matching_is_upstreams_direct_answer_chat(sample_dataset: str) -> None:
    inst = _instance("matching", sample_dataset, shots=5)
    messages = inst.messages()
    assert messages[0] == {"role": "system", "content": SYSTEM_DIRECT}
    turns = messages[1:-1]
    assert [m["role"] for m in turns] == ["user", "assistant"] * 5
    question = "\n\nWhich of the 5 options (A, B, C, D, or E) is the caption that truly corresponds to the cartoon?"
    assert turns[0]["content"].startswith(MATCHING_DIRECT + "\n\nscene location: ")
    for user in turns[2::2]:
        assert user["content"].startswith("Thanks! How about this one?\n\nscene location: ")
    for user in turns[0::2]:
        assert "\nChoices:\nA: " in user["content"] and user["content"].endswith(question)
    assert messages[-1] == {"role": "user", "content": f"Thanks! How about this one?\n\n{DESCRIPTION}\nChoices:\n"
                                                       f"{CHOICES}{question}"}
    # each worked example is a train row, answered "Answer: <its label>"
    train = list(load_split(sample_dataset, "matching", "train"))
    for user, answer in zip(turns[0::2], turns[1::2], strict=True):
        assert answer["content"] == f"Answer: {_train_row(user['content'], train)['label']}"


def _train_row(user: str, train: list[dict]) -> dict:
    """The one train row whose five captions a worked example's user turn lists."""
    [row] = [r for r in train if "\n".join(f"{x}: {c}" for x, c in zip("ABCDE", r["caption_choices"], strict=True))
             in user]
    return row


def _shot_contests(inst: Instance, train: list[dict]) -> list[int]:
    """The train contests of an instance's worked examples, in order."""
    return [_train_row(user["content"], train)["contest_number"] for user in inst.turns[0::2]]


def test_shots_come_from_five_distinct_contests_redrawn_per_item_and_seeded(sample_dataset: str) -> None:
    task = get_task("matching")
    train = list(load_split(sample_dataset, "matching", "train"))
    drawn = {i.instance_id: _shot_contests(i, train) for i in build_instances(task, sample_dataset,
                                                                              options={"shots": 5})}
    assert len(drawn) == 4 and all(len(c) == 5 == len(set(c)) for c in drawn.values())
    assert all(set(c) <= {412, 468, 510, 536, 543, 701} for c in drawn.values())
    assert len({tuple(c) for c in drawn.values()}) == len(drawn)  # redrawn for each test item
    again = {i.instance_id: _shot_contests(i, train) for i in build_instances(task, sample_dataset,
                                                                              options={"shots": 5})}
    assert again == drawn
    other = {i.instance_id: _shot_contests(i, train) for i in build_instances(task, sample_dataset,
                                                                              options={"shots": 5, "seed": 3})}
    assert other != drawn
    assert get_task("matching_5shot").option_values() == {**task.option_values(), "shots": 5}


def test_the_shot_draw_is_upstreams_numpy_stream(sample_dataset: str) -> None:
    """Upstream's main(): np.random.seed(2); shuffle the test rows; per row, 5 distinct sorted train contests
    (np.random.choice without replacement), then np.random.choice among each contest's train rows."""
    for config in ("matching", "ranking_1"):
        test, train = (list(load_split(sample_dataset, config, s)) for s in ("test", "train"))
        np.random.seed(2)
        by_contest = collections.defaultdict(list)
        for row in train:
            by_contest[row["contest_number"]].append(row)
        contests = sorted(by_contest)
        shuffled = list(test)
        np.random.shuffle(shuffled)
        expected = {}
        for row in shuffled:
            picked = [contests[c] for c in np.random.choice(len(contests), size=5, replace=False)]
            expected[row["instance_id"]] = [np.random.choice(by_contest[c])["instance_id"] for c in picked]
        ours = draw_hessel_shots(load_split(sample_dataset, config, "test"),
                                 load_split(sample_dataset, config, "train"), 5, 2)
        assert {r["instance_id"]: [train[k]["instance_id"] for k in ks] for r, ks in zip(test, ours, strict=True)} \
            == expected


def test_too_few_train_contests_and_a_bad_seed_are_one_line_errors(sample_dataset: str) -> None:
    rows = load_split(sample_dataset, "matching", "test")
    with pytest.raises(NyccBenchError, match="train split has 6 contests"):
        draw_hessel_shots(rows, load_split(sample_dataset, "matching", "train"), 7, 2)
    # any count is allowed (a recorded deviation when it is not the paper's 0 or 5); a negative one is not
    assert all(len(d) == 3 for d in draw_hessel_shots(rows, load_split(sample_dataset, "matching", "train"), 3, 2))
    assert build_instances(get_task("matching"), sample_dataset, options={"shots": 3})
    with pytest.raises(NyccBenchError, match=r"matching\.shots must be ≥ 0"):
        build_instances(get_task("matching"), sample_dataset, options={"shots": -1})
    with pytest.raises(NyccBenchError, match="seed must be a whole number"):
        build_instances(get_task("matching"), sample_dataset, options={"seed": "two"})


def test_prompt_files_carry_an_attribution_header_that_is_never_sent() -> None:
    task = get_task("matching")
    for role, text in task.prompts.items():
        assert text.startswith("# From jmhessel/caption_contest_corpus (commit d5f68b6)"), role
        assert "MIT License" in text and not prompt_text(task, role).startswith("#")
    assert prompt_text(task, "system") == SYSTEM_COT and prompt_text(task, "next") == "Thanks! How about this one?"
    assert "MIT License" in (ROOT / "hessel2023/prompts/UPSTREAM_LICENSE_caption_contest_corpus.txt").read_text()
    assert get_task("matching_from_pixels").prompts["instruction"].startswith("In this task")


@pytest.mark.parametrize(("reply", "letter"), [
    ("Caption C ties the IV to the snack slot, so it fits best.\n\nAnswer: C", "C"),
    ("Let me think step-by-step. A is generic... Final Answer: B", "B"),  # a substring, as upstream tests it
    ("Answer: A. On reflection, Answer: D", None),  # two letters: unreadable
    ("The answer is C.", None),
    ("answer: c", None),  # case-sensitive, as upstream
    ("Answer: Cats love this caption", "C"),  # upstream's plain substring test
    ("", None),
])
def test_the_parser_reads_chain_of_thought_replies_as_upstream(reply: str, letter: str | None) -> None:
    assert parse_hessel_answer(reply, "ABCDE") == letter == parsers()["hessel_answer"](reply, "ABCDE")


def test_a_ranking_reply_naming_c_is_read_as_upstream_reads_it() -> None:
    assert parse_hessel_answer("Answer: C", "AB") == "C"  # upstream keeps it; it scores as wrong


def test_explanations_are_read_as_upstream_reads_them() -> None:
    assert parse_hessel_explanation("Step 1: ... Explanation: The plan covers   one slot.\nExplanation: x") \
        == "The plan covers one slot."
    assert parse_hessel_explanation("Here's my best explanation: Vending codes.") == "Vending codes."
    assert parse_hessel_explanation("Summary: B4 is a snack.") == "B4 is a snack."
    assert parse_hessel_explanation("Just the joke, no marker.") == "Just the joke, no marker."
    assert parse_hessel_explanation("") is None and parse_hessel_explanation(None) is None


def test_the_fallback_letter_is_seeded_by_the_instance_id() -> None:
    ids = [f"item-{k}" for k in range(60)]
    first = [fallback_letter(i, "ABCDE") for i in ids]
    assert first == [fallback_letter(i, "ABCDE") for i in ids]
    assert set(first) == set("ABCDE")  # it varies with the id, over every letter
    assert {fallback_letter(i, "AB") for i in ids} == {"A", "B"}


def test_unreadable_replies_follow_upstreams_scheme_and_stay_counted(sample_dataset: str) -> None:
    task = get_task("matching")
    insts = build_instances(task, sample_dataset)[:3]
    replies = ["Reasoning... Answer: C", "I cannot decide.", None]
    readings = read_replies(task, list(zip(insts, replies, strict=True)), task.option_values())
    assert readings[0].fields() == {"status": "ok", "prediction": "C", "answer_source": "parser"}
    for inst, reading in zip(insts[1:], readings[1:], strict=True):
        assert reading.fields() == {"status": "unparsed", "prediction": fallback_letter(inst.instance_id, "ABCDE"),
                                    "answer_source": "random"}
    wrong = read_replies(task, list(zip(insts, replies, strict=True)), task.option_values({"unparsed": "wrong"}))
    assert [r.prediction for r in wrong] == ["C", None, None] and [r.status for r in wrong][1:] == ["unparsed"] * 2
    effective = {"options": task.option_values({"unparsed": "wrong"}), "system": {"request": {"temperature": 1.0}}}
    assert any("counts as wrong" in d for d in task.computed_deviations(effective))
    pixels = get_task("matching_from_pixels")
    # from pixels, lite_llm_leaderboard's scheme: the default letter (E), counted as unparsed; `wrong` keeps None
    unread = read_replies(pixels, [(insts[1], "I cannot decide.")], pixels.option_values())[0]
    assert (unread.prediction, unread.status) == ("E", "unparsed")
    assert read_replies(pixels, [(insts[1], "I cannot decide.")],
                        pixels.option_values({"unparsed": "wrong"}))[0].prediction is None
    explanation = get_task("explanation")
    assert read_replies(explanation, [(insts[0], "Explanation: a pun.")])[0].prediction == "a pun."


def test_the_answer_extractor_is_asked_as_upstream_asks_it(sample_dataset: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("NYCC_JUDGE_API_KEY", raising=False)
    task = get_task("ranking")
    insts = build_instances(task, sample_dataset)[:4]
    replies = ["Caption B is the sharper one, I'd say B.", "Both are weak.", "Answer: A", "Hmm. A? B?"]
    verdicts = {replies[0]: "Final Answer: B", replies[1]: "Unknown", replies[3]: "Final Answer: A or Final Answer: B"}

    def extractor(body: dict, attempt: int) -> Reply:
        reply = body["messages"][-1]["content"].removesuffix("\nPlease extract the final answer from the above text.")
        return Reply(text=verdicts[reply], top_logprobs=None)

    with FakeChatServer(extractor) as server:
        options = task.option_values({"extractor": "gpt-3.5-turbo", "extractor_base_url": server.base_url})
        readings = read_replies(task, list(zip(insts, replies, strict=True)), options)
        bodies = [r.body for r in server.requests]
        assert len(bodies) == 3  # only the unreadable replies
        again = read_replies(task, list(zip(insts, replies, strict=True)), options)
        assert len(server.requests) == 3 and again == readings  # cached: a re-run asks nothing
    assert [r.fields()["answer_source"] for r in readings] == ["extractor", "random", "parser", "random"]
    assert [r.status for r in readings] == ["unparsed", "unparsed", "ok", "unparsed"]
    assert readings[0].prediction == "B" and readings[0].extractor_raw == "Final Answer: B"
    assert readings[1].prediction == fallback_letter(insts[1].instance_id, "AB")
    body = next(b for b in bodies if replies[0] in b["messages"][-1]["content"])
    assert body["model"] == "gpt-3.5-turbo" and body["messages"] == extractor_messages(task, replies[0])
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[0]["content"].startswith("You are FinalAnswerExtractionGPT, an expert language model at "
                                             "extracting multiple choice answers")
    assert messages[1]["content"].startswith("Since the scene takes place in an arena with a matador and a bull")
    assert "in any clear way. \n\nGiven the above analysis" in messages[1]["content"]  # upstream's stray space
    assert messages[2]["content"] == "Final Answer: C" and messages[4]["content"] == "Final Answer: A"
    assert messages[5]["content"] == f"{replies[0]}\nPlease extract the final answer from the above text."
    assert parse_extractor_reply("Final Answer: E") == "E" and parse_extractor_reply("Unknown") is None


def test_a_failing_extractor_leaves_the_item_failed_not_answered(sample_dataset: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    task = get_task("matching")
    inst = build_instances(task, sample_dataset)[0]
    with FakeChatServer(lambda body, attempt: Reply(status=400, error_message="bad request")) as server:
        options = task.option_values({"extractor": "openai:gpt-3.5-turbo", "extractor_base_url": server.base_url})
        [reading] = read_replies(task, [(inst, "no letter here")], options)
    assert reading.status == "failed" and reading.prediction is None and "answer extractor" in reading.error
    with pytest.raises(NyccBenchError, match="extractor must be an LLM"):
        read_replies(task, [(inst, "no letter")], task.option_values({"extractor": "reward:some/model"}))


def test_tasks_show_records_upstreams_defaults_and_the_remaining_deviations(capsys: pytest.CaptureFixture) -> None:
    from nycc_bench.cli import main

    assert main(["tasks", "show", "matching", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["parser"] == "hessel_answer" and shown["decoding"] == {"temperature": 1.0, "max_new_tokens": None}
    assert {n: o["default"] for n, o in shown["options"].items()} == {
        "shots": 0, "seed": 2, "unparsed": "random", "extractor": None, "extractor_base_url": None}
    assert any("gpt-3.5-turbo" in d for d in shown["deviations"])
    assert get_task("explanation").parser == "hessel_explanation"
    assert get_task("ranking").deviations == get_task("matching").deviations
