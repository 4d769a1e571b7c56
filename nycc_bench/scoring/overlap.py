"""Hessel et al.'s explanation overlap scores: sacreBLEU corpus BLEU-4 and mean ROUGE-L F1."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sacrebleu

from nycc_bench.scoring.checks import check_length, check_strings


def bleu(predictions: Sequence[str], references: Sequence[str]) -> float:
    """Corpus BLEU-4 on a 0–100 scale: sacreBLEU, 13a tokenizer, exponential smoothing, one reference each.

    >>> round(bleu(["the cat sat on the mat"], ["the cat sat on the mat"]), 6)
    100.0
    """
    predictions, references = _check(predictions, references)
    return float(sacrebleu.corpus_bleu(predictions, [references], tokenize="13a", smooth_method="exp").score)


def rouge_l(predictions: Sequence[str], references: Sequence[str]) -> float:
    """Mean over examples of the ROUGE-L F1 of `rouge_score` (its default tokenizer, no stemmer), in [0, 1].

    >>> rouge_l(["the cat sat", "a dog"], ["the cat sat", "the cat"])
    0.5
    """
    from rouge_score import rouge_scorer  # on use: it imports nltk, which takes a second or two

    predictions, references = _check(predictions, references)
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    return float(
        np.mean([scorer.score(ref, pred)["rougeL"].fmeasure for pred, ref in zip(predictions, references, strict=True)])
    )


def _check(predictions: Sequence[str], references: Sequence[str]) -> tuple[list[str], list[str]]:
    predictions = check_strings(predictions, "predictions")
    references = check_strings(references, "references")
    check_length(references, "references", len(predictions), "predictions")
    return predictions, references
