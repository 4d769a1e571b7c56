"""Hessel et al.'s explanation overlap scores: sacreBLEU corpus BLEU-4 and mean ROUGE-L F1, per fold then averaged.

Tokenization is the paper's (sacreBLEU's 13a, rouge_score's default tokenizer) for every text written in
the Latin script, so English scores are exactly the paper setting's. Those tokenizers lose other scripts:
rouge_score keeps only [a-z0-9] (Cyrillic, Greek, Arabic, CJK... vanish, so identical texts score 0) and
13a glues a sentence of a script written without spaces (Chinese, Japanese, Thai...) into one token. Here
letters of non-Latin scripts are kept as ROUGE tokens, and each character of a script written without
spaces is its own token for both scores; `tokenization` says whether that happened.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import regex
import sacrebleu
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from nycc_bench.scoring.checks import check_folds, check_length, check_strings

# Scripts written without spaces between words: one token per character (with its combining marks).
_UNSPACED_SCRIPTS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
_UNSPACED = regex.compile(r"[" + _UNSPACED_SCRIPTS + r"]\p{M}*")
# Letters and digits of any other script except Latin (and the script-less Common/Inherited characters).
_OTHER_SCRIPT = r"[[\p{L}\p{N}]--[\p{Latin}\p{Common}\p{Inherited}" + _UNSPACED_SCRIPTS + r"]]"
_ROUGE_TOKEN = regex.compile(
    r"[a-z0-9]+|[" + _UNSPACED_SCRIPTS + r"]\p{M}*|(?:" + _OTHER_SCRIPT + r"\p{M}*)+", regex.V1
)
_BEYOND_PAPER = regex.compile(r"[" + _UNSPACED_SCRIPTS + r"]|" + _OTHER_SCRIPT, regex.V1)
_13A = Tokenizer13a()


def bleu_tokenize(text: str) -> str:
    """sacreBLEU's 13a tokenization, then each character of a script written without spaces split off.

    >>> bleu_tokenize("It's a pun, (see?)"), bleu_tokenize("猫が好き")
    ("It's a pun , ( see ? )", '猫 が 好 き')
    """
    tokens = _13A(text.rstrip())  # what sacreBLEU does to a segment before scoring it
    if _UNSPACED.search(tokens):
        tokens = " ".join(_UNSPACED.sub(r" \g<0> ", tokens).split())
    return tokens


def rouge_tokenize(text: str) -> list[str]:
    """rouge_score's default tokens ([a-z0-9] runs of the lowercased text), plus words of non-Latin scripts.

    >>> rouge_tokenize("Hello, wörld 42!"), rouge_tokenize("Привет, мир"), rouge_tokenize("猫が好き")
    (['hello', 'w', 'rld', '42'], ['привет', 'мир'], ['猫', 'が', '好', 'き'])
    """
    return _ROUGE_TOKEN.findall(text.lower())


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token lists (one row of the DP table at a time).

    >>> lcs_length("the cat sat on the mat".split(), "the mat the cat sat".split())
    3
    """
    if len(b) > len(a):
        a, b = b, a
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for j, y in enumerate(b, 1):
            above = row[j]
            row[j] = diagonal + 1 if x == y else max(above, row[j - 1])
            diagonal = above
    return row[-1]


def rouge_l_f1(reference: Sequence[str], prediction: Sequence[str]) -> float:
    """`rouge_score`'s ROUGE-L F1 of two token lists, float for float (its `_score_lcs` and `scoring.fmeasure`):
    0 when either is empty, else 2PR/(P+R) with P = LCS/len(prediction), R = LCS/len(reference).

    >>> rouge_l_f1(["a", "b", "c"], ["a", "c"]), rouge_l_f1([], ["a"])
    (0.8, 0.0)
    """
    if not reference or not prediction:
        return 0.0
    lcs = lcs_length(reference, prediction)
    precision, recall = lcs / len(prediction), lcs / len(reference)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def tokenization(predictions: Sequence[str], references: Sequence[str]) -> str:
    """"paper" when every text is tokenized exactly as sacreBLEU 13a and rouge_score's default do, else "unicode".

    >>> tokenization(["a pun"], ["a pun, résumé"]), tokenization(["a pun"], ["каламбур"])
    ('paper', 'unicode')
    """
    found = any(_BEYOND_PAPER.search(text.lower()) for text in (*predictions, *references))
    return "unicode" if found else "paper"


def bleu(predictions: Sequence[str], references: Sequence[str]) -> float:
    """Corpus BLEU-4 in [0, 100]: sacreBLEU, 13a tokenizer (see `bleu_tokenize`), exponential smoothing.

    One reference per prediction. A corpus with no 4-gram scores 0, as in sacreBLEU. A perfect match can
    come out of sacreBLEU's float arithmetic as 100.00000000000004; it is reported as 100.

    >>> bleu(["the cat sat on the mat"], ["the cat sat on the mat"]), bleu(["我们今天很高兴"], ["我们今天很高兴"])
    (100.0, 100.0)
    """
    predictions, references = _check(predictions, references)
    score = sacrebleu.corpus_bleu(
        [bleu_tokenize(p) for p in predictions],
        [[bleu_tokenize(r) for r in references]],
        tokenize="none",
        smooth_method="exp",
    ).score
    return min(100.0, float(score))


def rouge_l(predictions: Sequence[str], references: Sequence[str]) -> float:
    """Mean over examples of the ROUGE-L F1 of `rouge_score` (no stemmer; tokens as `rouge_tokenize`), in [0, 1].

    The F1 is `rouge_l_f1`, which gives `rouge_score`'s numbers exactly (tests/test_scoring_overlap.py) without
    importing it: `rouge_score` imports all of nltk (a second of a baseline run) for a stemmer the paper's
    setting does not use.

    >>> rouge_l(["the cat sat", "a dog"], ["the cat sat", "the cat"]), rouge_l(["Привет мир"], ["Привет мир"])
    (0.5, 1.0)
    """
    predictions, references = _check(predictions, references)
    return float(np.mean([rouge_l_f1(rouge_tokenize(ref), rouge_tokenize(pred))
                          for pred, ref in zip(predictions, references, strict=True)]))


def overlap_scores(
    predictions: Sequence[str], references: Sequence[str], folds: Sequence[int] | None = None
) -> dict[str, Any]:
    """BLEU-4 and ROUGE-L as Hessel et al. report them: with folds, each fold scored alone, then the mean over folds.

    `eval_crossval.py` (jmhessel/caption_contest_corpus) scores each of the five test folds with sacreBLEU and
    ROUGE and averages the five numbers; pooling the folds into one corpus gives another BLEU. Without
    folds the items are one corpus (`aggregation` "pooled"); with folds (ints 0–4, one per item) `bleu` and
    `rouge_l` are unweighted means over the folds present (`aggregation` "mean_over_folds"), listed in
    `fold_bleu`, `fold_rouge_l` and `fold_n`. One fold gives the pooled numbers.

    >>> r = overlap_scores(["a b c d", "a b c d e", "x y"], ["a b c d", "a b c d f", "x z"], folds=[0, 1, 1])
    >>> {f: round(v, 6) for f, v in r["fold_rouge_l"].items()}, round(r["rouge_l"], 6), r["aggregation"]
    ({0: 1.0, 1: 0.65}, 0.825, 'mean_over_folds')
    """
    predictions, references = _check(predictions, references)
    result: dict[str, Any] = {"n": len(predictions), "tokenization": tokenization(predictions, references)}
    if folds is None:
        result.update(bleu=bleu(predictions, references), rouge_l=rouge_l(predictions, references),
                      aggregation="pooled")
        return result
    folds = check_folds(folds, "folds", len(predictions), "predictions")
    per_fold: dict[str, dict[int, Any]] = {"fold_bleu": {}, "fold_rouge_l": {}, "fold_n": {}}
    for fold in sorted(set(folds)):
        preds = [p for p, f in zip(predictions, folds, strict=True) if f == fold]
        refs = [r for r, f in zip(references, folds, strict=True) if f == fold]
        per_fold["fold_bleu"][fold] = bleu(preds, refs)
        per_fold["fold_rouge_l"][fold] = rouge_l(preds, refs)
        per_fold["fold_n"][fold] = len(preds)
    result.update(
        bleu=float(np.mean(list(per_fold["fold_bleu"].values()))),
        rouge_l=float(np.mean(list(per_fold["fold_rouge_l"].values()))),
        aggregation="mean_over_folds",
        **per_fold,
    )
    return result


def _check(predictions: Sequence[str], references: Sequence[str]) -> tuple[list[str], list[str]]:
    predictions = check_strings(predictions, "predictions")
    references = check_strings(references, "references")
    check_length(references, "references", len(predictions), "predictions")
    return predictions, references
