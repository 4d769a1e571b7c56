"""BLEU-4 and ROUGE-L of explanations: the exact library calls, and bad inputs."""

import numpy as np
import pytest
import sacrebleu
from rouge_score import rouge_scorer

from nycc_bench.scoring.overlap import bleu, rouge_l

PREDICTIONS = ["The joke is that the dog walks the man.", "A pun on bank", "Nothing here"]
REFERENCES = ["The joke: the dog is walking the man, not the other way.", "Bank means river and money.", "x"]


def test_bleu_is_the_sacrebleu_corpus_score():
    expected = sacrebleu.corpus_bleu(PREDICTIONS, [REFERENCES], tokenize="13a", smooth_method="exp").score
    assert bleu(PREDICTIONS, REFERENCES) == expected
    assert bleu(["same words here, four"], ["same words here, four"]) == pytest.approx(100)


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
