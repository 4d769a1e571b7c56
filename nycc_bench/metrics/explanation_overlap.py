"""Hessel et al. (2023) explanation-generation overlap scores: sacreBLEU BLEU-4 and mean ROUGE-L F1, fold-averaged."""

import datasets
import evaluate

from nycc_bench.citations import HESSEL2023
from nycc_bench.metrics import rules
from nycc_bench.metrics._support import check_add_call, check_compute_call
from nycc_bench.scoring.checks import check_strings

_DESCRIPTION = """
Word-overlap scores of generated joke explanations against the one human-written explanation, as Hessel et
al. (2023) report them for the explanation task: BLEU-4 is the sacreBLEU corpus score (13a tokenizer,
exponential smoothing, 0–100); ROUGE-L is the mean over examples of the `rouge_score` ROUGE-L F1 (default
tokenizer, no stemmer, 0–1). With folds, each fold is scored on its own and the scores are averaged over the
folds, as the authors' `eval_crossval.py` does (`aggregation`: "mean_over_folds"; without folds "pooled").
Text in the Latin script is tokenized exactly as those libraries do; letters of other scripts, which they
drop (ROUGE) or glue into one token (BLEU, for scripts written without spaces), are kept as tokens
(`tokenization`: "unicode" when that happened, else "paper"). The paper warns that both scores correlate
poorly with human judgement; its main evaluation is pairwise human preference, which an LLM judge can
approximate.
"""

_CITATION = HESSEL2023.bibtex

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
    >>> from nycc_bench.metrics import load_metric
    >>> overlap = load_metric("explanation_overlap")  # or evaluate.load("nycc-bench/explanation_overlap")
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
class ExplanationOverlap(evaluate.Metric):
    """BLEU-4 and ROUGE-L of explanations; the rules live in `nycc_bench.scoring.overlap`."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
            homepage="https://github.com/jmhessel/caption_contest_corpus",
            codebase_urls=[
                "https://github.com/jmhessel/caption_contest_corpus",
                "https://github.com/mjpost/sacrebleu",
                "https://github.com/google-research/google-research/tree/master/rouge",
            ],
            reference_urls=["https://arxiv.org/abs/2209.06293"],
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch, checked first: evaluate's encoder would store a missing value (NaN) as the text "nan"."""
        check_add_call(self, kwargs)
        predictions = check_strings(predictions, "predictions")
        references = check_strings(references, "references")
        super().add_batch(predictions=predictions, references=references)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example, checked first."""
        check_add_call(self, kwargs)
        check_strings([prediction], "prediction")
        check_strings([reference], "reference")
        super().add(prediction=prediction, reference=reference)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Check every argument (a bad one raises ValueError naming it) before any judge call, then score."""
        check_compute_call(self, {"predictions": predictions, "references": references}, kwargs)
        if predictions is not None or references is not None:
            predictions, references = rules.check_overlap(predictions, references, **kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, folds=None, descriptions=None, captions=None, judge_model=None,
                 judge_backend=None, judge_base_url=None, cache_dir=None, max_concurrency=16):
        return rules.explanation_overlap(predictions, references, folds, descriptions, captions, judge_model,
                                         judge_backend, judge_base_url, cache_dir, max_concurrency)
