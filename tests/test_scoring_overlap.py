"""BLEU-4 and ROUGE-L of explanations: the exact library calls, and bad inputs."""

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from nycc_bench.scoring.overlap import (
    bleu,
    bleu_tokenize,
    overlap_scores,
    rouge_l,
    rouge_l_f1,
    rouge_tokenize,
    tokenization,
)

PREDICTIONS = ["The joke is that the dog walks the man.", "A pun on bank", "Nothing here"]
REFERENCES = ["The joke: the dog is walking the man, not the other way.", "Bank means river and money.", "x"]


def test_bleu_is_the_sacrebleu_corpus_score():
    expected = sacrebleu.corpus_bleu(PREDICTIONS, [REFERENCES], tokenize="13a", smooth_method="exp").score
    assert bleu(PREDICTIONS, REFERENCES) == expected
    assert bleu(["same words here, four"], ["same words here, four"]) == 100.0  # sacreBLEU: 100.00000000000004


def test_rouge_l_is_the_mean_per_example_f1_without_stemmer():
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    expected = np.mean([scorer.score(r, p)["rougeL"].fmeasure for p, r in zip(PREDICTIONS, REFERENCES, strict=True)])
    assert rouge_l(PREDICTIONS, REFERENCES) == pytest.approx(expected, abs=1e-15)
    # no stemming: "walks" and "walking" do not match
    assert rouge_l(["walks"], ["walking"]) == 0.0


@pytest.mark.parametrize(
    ("predictions", "references", "message"),
    [
        (["a", None], ["a", "b"], r"predictions\[1\] is missing"),
        (["a"], ["a", float("nan")], r"references\[1\] is missing"),
        (["a"], ["a", "b"], r"references has 2 items, expected 1"),
        ([], [], r"predictions is empty"),
    ],
)
def test_bad_inputs_raise(predictions, references, message):
    with pytest.raises(ValueError, match=message):
        bleu(predictions, references)
    with pytest.raises(ValueError, match=message):
        rouge_l(predictions, references)


# Latin-script text with everything 13a and rouge_score's tokenizer treat specially: entities, "<skipped>",
# hyphenated line breaks, accents (rouge drops them), combining marks, digits, punctuation, odd spacing.
PIECES = [*"abcXYZ019 .,;'\"-?!()\n\t", "é", "ñ", "e\u0301", "&quot;", "&amp;", "<skipped>", "-\n", "Œ", "²", "K"]
LATIN = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=150, deadline=None)
@given(pairs=st.lists(st.tuples(LATIN, LATIN), min_size=1, max_size=6))
def test_latin_text_scores_exactly_as_the_paper_library_settings(pairs):
    predictions, references = [p for p, _ in pairs], [r for _, r in pairs]
    expected_bleu = sacrebleu.corpus_bleu(predictions, [references], tokenize="13a", smooth_method="exp").score
    assert bleu(predictions, references) == min(100.0, expected_bleu)
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    expected_rouge = np.mean([scorer.score(r, p)["rougeL"].fmeasure for p, r in pairs])
    assert rouge_l(predictions, references) == expected_rouge
    assert overlap_scores(predictions, references)["tokenization"] == "paper"


@pytest.mark.parametrize(
    "text",
    ["我们今天去公园散步了", "今日は公園を散歩しました", "วันนี้เราไปเดินเล่นในสวน", "Сегодня мы гуляли в парке",
     "Σήμερα περπατήσαμε στο πάρκο", "היום הלכנו לטייל בפארק", "आज हम पार्क में घूमने गए", "오늘 우리는 공원에 산책을 갔다"],
)
def test_identical_non_latin_text_scores_the_maximum(text):
    # before: rouge_score dropped every non-ASCII letter (F1 0) and 13a made a CJK/Thai sentence one token (BLEU 0)
    assert bleu([text], [text]) == 100.0
    assert rouge_l([text], [text]) == 1.0
    assert overlap_scores([text], [text])["tokenization"] == "unicode"


def test_unspaced_scripts_count_characters_and_other_scripts_words():
    assert bleu_tokenize("猫が好きです。") == "猫 が 好 き で す 。"
    assert rouge_tokenize("Le chat — кот, 猫!") == ["le", "chat", "кот", "猫"]
    assert rouge_l(["猫が好き"], ["犬が好き"]) == pytest.approx(0.75)  # LCS が好き: 3 of 4 characters


def test_explanation_scores_are_the_mean_over_folds_computed_by_hand():
    # Hessel's eval_crossval.py scores each fold alone, then averages the folds' numbers.
    predictions = ["a b c d", "a b c d e", "x y"]
    references = ["a b c d", "a b c d f", "x z"]
    result = overlap_scores(predictions, references, folds=[0, 1, 1])
    # fold 0: a perfect 4-gram match, BLEU 100, ROUGE-L 1.
    # fold 1 pooled n-gram precisions (1 + 4 tokens matched of 2 + 5, ...): 5/7, 3/5, 2/3, 1/2; equal lengths, BP 1
    fold1_bleu = 100 * (5 / 7 * 3 / 5 * 2 / 3 * 1 / 2) ** (1 / 4)  # = 100 · 7^(−1/4) ≈ 61.48
    # fold 1 ROUGE-L: "a b c d e" vs "a b c d f" LCS 4 of 5 → 0.8; "x y" vs "x z" LCS 1 of 2 → 0.5; mean 0.65
    assert result["fold_bleu"][0] == 100.0 and result["fold_bleu"][1] == pytest.approx(fold1_bleu, abs=1e-9)
    assert result["fold_rouge_l"] == {0: 1.0, 1: pytest.approx(0.65)}
    assert result["bleu"] == pytest.approx((100 + fold1_bleu) / 2, abs=1e-9)  # 80.74; pooled it is 75.64
    assert result["rouge_l"] == pytest.approx((1 + 0.65) / 2)  # 0.825, pooled mean would be 0.7667
    assert result["fold_n"] == {0: 1, 1: 2} and result["aggregation"] == "mean_over_folds" and result["n"] == 3
    pooled = overlap_scores(predictions, references)
    assert pooled["aggregation"] == "pooled" and "fold_bleu" not in pooled
    # pooled: precisions 9/11, 6/8, 4/5, 2/3 (one corpus), ROUGE-L (1 + 0.8 + 0.5)/3
    assert pooled["bleu"] == pytest.approx(100 * (9 / 11 * 6 / 8 * 4 / 5 * 2 / 3) ** 0.25, abs=1e-9)
    assert pooled["rouge_l"] == pytest.approx(2.3 / 3)


def test_one_fold_gives_the_pooled_numbers():
    pooled = overlap_scores(PREDICTIONS, REFERENCES)
    one = overlap_scores(PREDICTIONS, REFERENCES, folds=[3, 3, 3])
    assert (one["bleu"], one["rouge_l"]) == (pooled["bleu"], pooled["rouge_l"])


@pytest.mark.parametrize(
    ("folds", "message"),
    [([0, "0", 1], r"folds\[1\] = '0'; expected an int fold in 0–4"), ([0, 7, 1], r"folds\[1\] = 7"),
     ([0, True, 1], r"folds\[1\] = True"), ([0, 1], r"folds has 2 items, expected 3")],
)
def test_bad_folds_raise(folds, message):
    with pytest.raises(ValueError, match=message):
        overlap_scores(PREDICTIONS, REFERENCES, folds=folds)


def test_lone_surrogate_is_an_error_naming_the_argument():
    with pytest.raises(ValueError, match=r"references\[1\] holds a lone surrogate"):
        bleu(["a", "b"], ["a", "b\udc80"])


def _explanation_sets() -> list[tuple[str, list[str]]]:
    """The explanation texts at hand: the sample's `explanation` labels (every split) and, when ../shared/data is
    there, HumorBench's annotated elements (real explanations of real captions)."""
    import csv
    from pathlib import Path

    import pyarrow.parquet as pq

    from nycc_bench.paths import SAMPLE_DIR

    sets = [("sample explanation", [label for path in sorted((SAMPLE_DIR / "newyorker_caption_contest" /
                                                               "explanation").glob("*.parquet"))
                                    for label in pq.read_table(path, columns=["label"])["label"].to_pylist()])]
    upstream = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "humorbench_reubennarad"
    if (upstream / "comprehensive_annotations.csv").is_file():
        with (upstream / "comprehensive_annotations.csv").open(newline="", encoding="utf-8") as f:
            sets.append(("humorbench elements", [row["element"] for row in csv.DictReader(f)][:300]))
    return sets


@pytest.mark.parametrize(("name", "texts"), _explanation_sets(), ids=lambda v: v if isinstance(v, str) else "")
def test_rouge_l_equals_rouge_score_on_the_explanation_sets(name: str, texts: list[str]) -> None:
    """Our LCS F1 is rouge_score's, float for float, on every (prediction, reference) pair of each explanation set
    (each text against the next ones, and against itself cut in half), with rouge_score's own tokenizer and ours."""

    class Ours:
        def tokenize(self, text: str) -> list[str]:
            return rouge_tokenize(text)

    assert len(texts) >= 8, name
    default = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    ours = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False, tokenizer=Ours())
    pairs = [(p, r) for i, p in enumerate(texts) for r in (texts[(i + 1) % len(texts)], texts[(i + 7) % len(texts)],
                                                          p[: len(p) // 2], p, "")]
    for prediction, reference in pairs:
        expected = ours.score(reference, prediction)["rougeL"].fmeasure
        assert rouge_l_f1(rouge_tokenize(reference), rouge_tokenize(prediction)) == expected, (prediction, reference)
        if tokenization([prediction], [reference]) == "paper":
            assert expected == default.score(reference, prediction)["rougeL"].fmeasure
    predictions, references = [p for p, _ in pairs], [r for _, r in pairs]
    assert rouge_l(predictions, references) == np.mean([ours.score(r, p)["rougeL"].fmeasure for p, r in pairs])


def test_scoring_explanations_imports_neither_rouge_score_nor_nltk() -> None:
    import subprocess
    import sys

    code = ("import sys; from nycc_bench.scoring.overlap import overlap_scores; "
            "overlap_scores(['the dog walks the man'], ['a man walks a dog'], folds=[0]); "
            "print(sorted(m for m in ('rouge_score', 'nltk') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
