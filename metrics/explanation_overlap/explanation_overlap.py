"""Hessel et al. (2023) explanation-generation overlap scores: sacreBLEU BLEU-4 and mean ROUGE-L F1, fold-averaged.

The Space face of `nycc_bench.metrics.explanation_overlap` (generated from it: do not edit; regenerate with
`python -m nycc_bench.metrics._faces`). The rule and the class live in the package; this file carries evaluate's
conventions: this docstring, `_KWARGS_DESCRIPTION` with examples that run through `evaluate.load`, and the class
they document.
"""

import evaluate

import nycc_bench.metrics.explanation_overlap as package

_DESCRIPTION = package._DESCRIPTION
_CITATION = package._CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one generated explanation per item.
    references (`list` of `str`): the human explanation of each item (the dataset's `label`).
    folds (`list` of `int`, optional): the cross-validation fold (an int in 0–4) of each item; scores are
        computed per fold and averaged over folds (Hessel's `eval_crossval.py`). One fold gives the pooled
        numbers.
    judge_model (`str`, optional): also judge each model explanation against the human one, both orders, with
        an LLM judge (Hessel's human evaluation was this pairwise comparison); the key comes from
        OPENAI_API_KEY or NYCC_JUDGE_API_KEY.
    descriptions (`list` of `str`, with a judge): the cartoon's description, one per item.
    captions (`list` of `str`, with a judge): the caption each explanation explains, one per item.
    judge_backend (`str`, optional): "openai" or "transformers".
    judge_base_url (`str`, optional): the judge's OpenAI-compatible endpoint.
    cache_dir (`str`, optional): the judge cache folder (a re-run makes no call it already made).
    max_concurrency (`int`, default 16): judge calls in flight.
Returns:
    bleu (`float`, 0–100): corpus BLEU-4 (with folds, the mean of the folds' corpus BLEU).
    rouge_l (`float`, 0–1): mean ROUGE-L F1 (with folds, the mean of the folds' means).
    n (`int`): number of items.
    aggregation (`str`): "pooled" (no folds) or "mean_over_folds".
    tokenization (`str`): "paper" (every text tokenized exactly as sacreBLEU 13a / rouge_score do) or "unicode".
    fold_bleu, fold_rouge_l, fold_n (`dict`: fold → value, with folds).
    judge (`dict`, with a judge): win_rate of the model's explanation (0–1), ci_low, ci_high (bootstrap over
        items), n_items, n_judgments, n_error, and the judge's name.
Raises:
    ValueError (`nycc_bench.errors.NyccBenchError`), naming the argument: a missing explanation, lengths that
        differ, no item at all, a fold that is not an int in 0–4, text that is not valid Unicode, a bad judge
        option, an argument the metric does not take. All checks run before any judge call.
Examples:
    >>> import evaluate
    >>> overlap = evaluate.load("explanation_overlap")  # the Space: evaluate.load("nycc-bench/explanation_overlap")
    >>> result = overlap.compute(
    ...     predictions=["The man is a dog, so the leash joke is literal.", "It puns on bank."],
    ...     references=["The man is a dog, so the leash joke is literal.", "A pun on two senses of bank."],
    ... )
    >>> round(result["bleu"], 2), round(result["rouge_l"], 4), result["n"], result["aggregation"]
    (70.19, 0.6818, 2, 'pooled')
    >>> result = overlap.compute(
    ...     predictions=["a b c d", "a b c d e", "x y"], references=["a b c d", "a b c d f", "x z"], folds=[0, 1, 1]
    ... )
    >>> round(result["fold_bleu"][1], 2), round(result["bleu"], 2), round(result["rouge_l"], 4)
    (61.48, 80.74, 0.825)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ExplanationOverlap(package.ExplanationOverlap):
    """BLEU-4 and ROUGE-L of explanations; the rules live in `nycc_bench.scoring.overlap`."""

    def _info(self):
        info = super()._info()
        info.inputs_description = _KWARGS_DESCRIPTION
        return info
