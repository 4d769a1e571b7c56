"""Hessel et al. (2023) explanation-generation overlap scores: sacreBLEU BLEU-4 and mean ROUGE-L F1."""

import datasets
import evaluate

from nycc_bench.citations import HESSEL2023
from nycc_bench.judge.protocols.explanation_pairwise import explanation_win_rate
from nycc_bench.judging import explanation_judgments, judge_from_kwargs
from nycc_bench.scoring.checks import check_strings
from nycc_bench.scoring.overlap import bleu, rouge_l

_DESCRIPTION = """
Word-overlap scores of generated joke explanations against the one human-written explanation, as Hessel et
al. (2023) report them for the explanation task: BLEU-4 is the sacreBLEU corpus score (13a tokenizer,
exponential smoothing, 0–100); ROUGE-L is the mean over examples of the `rouge_score` ROUGE-L F1 (default
tokenizer, no stemmer, 0–1). The paper warns that both correlate poorly with human judgement; its main
evaluation is pairwise human preference, which an LLM judge can approximate.
"""

_CITATION = HESSEL2023.bibtex

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one generated explanation per item.
    references (`list` of `str`): the human explanation of each item (the dataset's `label`).
    judge_model (`str`, optional): also judge each model explanation against the human one, both orders, with
        an LLM judge (Hessel's human evaluation was this pairwise comparison); needs `descriptions` and
        `captions`. judge_backend ("openai" or "transformers"), judge_base_url, cache_dir, max_concurrency:
        judge options (the key comes from OPENAI_API_KEY or NYCC_JUDGE_API_KEY).
Returns:
    bleu (`float`, 0–100): corpus BLEU-4.
    rouge_l (`float`, 0–1): mean ROUGE-L F1.
    n (`int`): number of items.
    judge (`dict`, with a judge): win_rate of the model's explanation (0–1), ci_low, ci_high (bootstrap over
        items), n_items, n_judgments, n_error, and the judge's name.
Raises:
    ValueError: a missing explanation, lengths that differ, no item at all.
Examples:
    >>> import evaluate
    >>> overlap = evaluate.load("metrics/explanation_overlap")
    >>> result = overlap.compute(
    ...     predictions=["The man is a dog, so the leash joke is literal.", "It puns on bank."],
    ...     references=["The man is a dog, so the leash joke is literal.", "A pun on two senses of bank."],
    ... )
    >>> round(result["bleu"], 2), round(result["rouge_l"], 4), result["n"]
    (70.19, 0.6818, 2)
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
                "https://github.com/mjpost/sacrebleu",
                "https://github.com/google-research/google-research/tree/master/rouge",
            ],
            reference_urls=["https://arxiv.org/abs/2209.06293"],
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch, checked first: evaluate's encoder would store a missing value (NaN) as the text "nan"."""
        check_strings(predictions, "predictions")
        check_strings(references, "references")
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example, checked first."""
        check_strings([prediction], "prediction")
        check_strings([reference], "reference")
        super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(self, predictions, references, descriptions=None, captions=None, judge_model=None,
                 judge_backend=None, judge_base_url=None, cache_dir=None, max_concurrency=16):
        result = {"bleu": bleu(predictions, references), "rouge_l": rouge_l(predictions, references),
                  "n": len(predictions)}
        judge = judge_from_kwargs(judge_model, judge_backend, judge_base_url, cache_dir, max_concurrency)
        if judge is not None:
            if descriptions is None or captions is None:
                raise ValueError("descriptions, captions: the pairwise judge needs each cartoon's description "
                                 "and caption")
            records = explanation_judgments(judge, descriptions, captions, predictions, references)
            result["judge"] = {"judge": judge.name, **explanation_win_rate(records)}
        return result
