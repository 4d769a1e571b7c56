"""`nycc_bench.textcheck`: what is not a caption or an explanation is flagged with its reason, real text is not, and
Average EAD stays within [0, 1] on such text."""

from __future__ import annotations

import random

import pytest

from nycc_bench.judge_stress import CASES, case_texts
from nycc_bench.reward import Embedder
from nycc_bench.scoring.ead import average_ead, group_eads
from nycc_bench.textcheck import REASONS, check_text, check_texts, flag_summary

DESCRIPTION = "A man in a business suit sits in a bathtub in the middle of a crowded boardroom meeting."
FLUENT = {"news_sentence", "recipe_line"}  # left to the judge's score: not flagged here (textcheck's docstring)
EXPECTED = {"random_consonants": "not_words", "byte_garbage": "not_text", "prompt_copy": "copy",
            "description_copy": "copy", "one_word_repeated": "repeated", "empty": "empty", "far_too_long": "too_long",
            "other_language": "other_language"}


@pytest.fixture(scope="module")
def tokenizer():
    """The sample judges' encoder tokenizer (MiniLM, from its offline package)."""
    return Embedder("all-MiniLM-L6-v2").tokenizer


@pytest.mark.parametrize("case", sorted(set(CASES) - FLUENT))
def test_each_case_is_flagged_with_its_reason(case: str, tokenizer) -> None:
    for kind in ("caption", "explanation"):
        for seed in range(3):
            text = case_texts(case, [DESCRIPTION, "Is this the quarterly bubble report?"], seed)[0]
            if case == "far_too_long" and kind == "explanation":
                text = " ".join([text] * 4)  # explanations may be longer: 1,600 words is still far too long
            flag = check_text(text, kind, [DESCRIPTION], tokenizer)
            assert flag is not None and flag.reason == EXPECTED[case], (case, kind, text[:60], flag)
            assert flag.reason in REASONS and flag.detail


def test_random_letters_are_not_words(tokenizer) -> None:
    rng = random.Random(7)
    texts = [" ".join("".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(5)) for _ in range(6))
             for _ in range(50)]
    assert all(f is not None and f.reason == "not_words" for f in check_texts(texts, tokenizer=tokenizer))


def test_real_captions_and_explanations_pass(tokenizer, sample_dataset: str) -> None:
    """Every human caption of the sample's held-out contests and every explanation of its rubric passes."""
    from nycc_bench.judge.protocols.humorbench import load_rubric
    from nycc_bench.kinds.instances import load_split
    from nycc_bench.paths import SAMPLE_DIR

    captions = sorted({c for split in ("test", "validation")
                       for row in load_split(sample_dataset, "caption_generation", split).remove_columns("image")
                       for g in ("human_top10", "human_200", "human_1000", "human_median") for c in row[g] or []})
    assert len(captions) > 100
    flagged = [(c, f) for c, f in zip(captions, check_texts(captions, tokenizer=tokenizer), strict=True) if f]
    assert flagged == []
    rows, _ = load_rubric(SAMPLE_DIR / "humorbench_reubennarad" / "rubric")
    flags = check_texts([r["explanation"] for r in rows], "explanation", [[r["description"], r["caption"]]
                                                                          for r in rows], tokenizer)
    assert [f for f in flags if f] == []


def test_short_real_lines_pass_without_a_tokenizer() -> None:
    for text in ("I told you the elevator was haunted.", "Ménage à trois for dummies? Sure, why not.",
                 "No. No. No. Absolutely not, Harold.", "Is it too late to order the fish?"):
        assert check_text(text) is None, text


def test_quoting_the_caption_is_not_a_copy() -> None:
    caption = "Is this the quarterly bubble report?"
    explanation = (f'The caption "{caption}" treats a bathtub as if it were a chart of company figures, so the '
                   "joke is that the executive runs his meetings from the tub and nobody finds it strange.")
    assert check_text(explanation, "explanation", [DESCRIPTION, caption]) is None
    assert check_text(caption + " " + caption, "explanation", [DESCRIPTION, caption]).reason == "copy"


def test_flag_summary_counts_reasons() -> None:
    flags = [{"caption": "x", "reason": "empty", "detail": "d"}, {"caption": "y", "reason": "copy", "detail": "d"},
             {"caption": "z", "reason": "copy", "detail": "d"}]
    summary = flag_summary(flags, 10)
    assert summary["n_flagged"] == 3 and summary["n"] == 10 and summary["reasons"] == {"copy": 2, "empty": 1}


def test_bad_kind_is_an_error() -> None:
    with pytest.raises(ValueError, match="kind must be one of"):
        check_text("hello there", "poem")


def test_average_ead_stays_within_one_on_random_letters() -> None:
    rng = random.Random(3)
    groups = [[" ".join("".join(rng.choice("bcdfghjklmnp") for _ in range(6)) for _ in range(6)) for _ in range(10)]
              for _ in range(6)]
    assert all(0 <= v <= 1 for v in group_eads(groups))
    assert average_ead(groups) == pytest.approx(1.0, abs=1e-12)


def test_prompt_files_are_read() -> None:
    from nycc_bench.textcheck import prompt_references

    assert len(prompt_references()) > 10
