"""HumorBench (Narad et al. 2025) scores from element-level autograder verdicts, and autograder validation."""

import datasets
import evaluate

from nycc_bench.citations import HUMORBENCH
from nycc_bench.errors import NyccBenchError
from nycc_bench.judging import element_judgments
from nycc_bench.metrics import rules
from nycc_bench.metrics._judge_args import check_judge_args
from nycc_bench.metrics._support import check_add_call, check_compute_call
from nycc_bench.scoring.autograder import VERDICTS
from nycc_bench.scoring.bootstrap import CONFIDENCE, N_RESAMPLES, SEED
from nycc_bench.scoring.checks import (
    check_choices,
    check_int,
    check_length,
    check_strings,
)

MAX_LAST_K_TOKENS = rules.MAX_LAST_K_TOKENS

_DESCRIPTION = """
HumorBench asks a model to explain a New Yorker cartoon caption's joke; an LLM autograder then checks each of
the caption's objective "elements" against the explanation and answers PASS or FAIL (a reply without a clean
`<judgement>` is ERROR). One row per (explanation, element). Element accuracy = PASS / (PASS + FAIL): ERROR
rows leave numerator and denominator and are counted. Also reported: the binomial standard error over
elements (the paper's error bars), a percentile bootstrap interval over captions, per-caption all-pass and
mean pass rates, per-category pass rates (wordplay, cultural reference, toxic or shocking) and a hard-subset
pass rate. With `human_labels` the module instead validates the autograder against human PASS/FAIL labels:
accuracy, false-positive rate FP/(FP+TN) and false-negative rate FN/(FN+TP), PASS being the positive class.
"""

_CITATION = HUMORBENCH.bibtex

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): the explanation of each row (one explanation per caption, repeated on
        each of its element rows).
    references (`list` of `str`): the element of each row.
    judgments (`list` of `str`): the autograder's verdict of each row: "PASS", "FAIL" or "ERROR".
    caption_ids (`list` of `int` or `str`, optional): the caption of each row (HumorBench's `idx`); by
        default rows with the same explanation text are one caption.
    categories (`list` of `list` of `str`, optional): each row's categories, possibly none, among
        "wordplay", "cultural reference", "toxic or shocking".
    hard (`list` of `bool`, optional): whether each row is in the hard subset.
    human_labels (`list` of `str`, optional): human "PASS"/"FAIL" labels; switches to validation mode.
    judge_model (`str`, optional): grade with a judge instead of passing `judgments`: an LLM
        (`judge_backend="openai"` with `judge_base_url`, key from OPENAI_API_KEY, or `"transformers"` with a
        local model) with the HumorBench autograder prompt, or the offline embedding grader
        (`judge_backend="embedding"`, a grader folder). Needs `descriptions` and `captions` (one per row).
    judge_backend, judge_base_url, cache_dir (judge calls are cached there and a re-run makes none),
        max_concurrency, last_k_tokens (grade only the last k tokens of each explanation): judge options.
    confidence (`float`, default 0.95), n_resamples (`int`, default 1000), seed (`int`, default 0):
        the percentile bootstrap intervals.
Returns:
    element_accuracy (`float` in [0, 1]), stderr (binomial, over elements), ci_low, ci_high (bootstrap over
    captions), n_elements, n_pass, n_fail, n_error, n_captions, caption_all_pass, caption_mean_pass; with
    categories category_scores (category → accuracy, n, ci_low, ci_high); with hard hard_accuracy, n_hard,
    hard_ci_low, hard_ci_high. Rates are None when nothing was graded.
    Validation mode: accuracy, fpr, fnr, ci_low, ci_high, tp, fp, tn, fn, n, n_error.
Raises:
    ValueError (`nycc_bench.errors.NyccBenchError`), naming the argument: a verdict or label outside the
        allowed strings, a missing value, an unknown category, lengths that differ, a caption id that is not
        an int or a string, text that is not valid Unicode, a bad setting or judge option, an argument the
        metric does not take. All checks run before any judge call.
Examples:
    >>> from nycc_bench.metrics import load_metric
    >>> autograder = load_metric("element_autograder")  # or evaluate.load("nycc-bench/element_autograder")
    >>> result = autograder.compute(
    ...     predictions=["The boss sits by the window.", "The boss sits by the window.", "A pun on 'stop'."],
    ...     references=["Leadership depends on who is riding.", "President until the next stop.", "Stop means quit."],
    ...     judgments=["PASS", "FAIL", "PASS"],
    ...     categories=[[], [], ["wordplay"]],
    ... )
    >>> result["element_accuracy"], result["n_captions"], result["caption_all_pass"]
    (0.6666666666666666, 2, 0.5)
    >>> result["category_scores"]["wordplay"]["accuracy"]
    1.0
    >>> result = autograder.compute(
    ...     predictions=["e1", "e2", "e3", "e4"], references=["x", "y", "z", "w"],
    ...     judgments=["PASS", "PASS", "FAIL", "ERROR"], human_labels=["PASS", "FAIL", "FAIL", "PASS"],
    ... )
    >>> result["accuracy"], result["fpr"], result["fnr"], result["n_error"]
    (0.6666666666666666, 0.5, 0.0, 1)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ElementAutograder(evaluate.Metric):
    """HumorBench aggregation; the rules live in `nycc_bench.scoring.autograder`."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Value("string"),
                    "judgments": datasets.Value("string"),
                }
            ),
            homepage="https://github.com/ReubenNarad/Humor-Bench",
            codebase_urls=["https://github.com/ReubenNarad/Humor-Bench"],
            reference_urls=["https://github.com/ReubenNarad/Humor-Bench"],
        )

    def add_batch(self, *, predictions=None, references=None, judgments=None, **kwargs):
        """Add rows, checked first: evaluate's encoder would store a missing value (NaN) as the text "nan"."""
        check_add_call(self, kwargs)
        predictions = check_strings(predictions, "predictions")
        references = check_strings(references, "references")
        judgments = check_choices(judgments, "judgments", VERDICTS)
        super().add_batch(predictions=predictions, references=references, judgments=judgments)

    def add(self, *, prediction=None, reference=None, judgments=None, **kwargs):
        """Add one row, checked first."""
        check_add_call(self, kwargs)
        check_strings([prediction], "prediction")
        check_strings([reference], "reference")
        check_choices([judgments], "judgments", VERDICTS)
        super().add(prediction=prediction, reference=reference, judgments=judgments)

    def compute(self, *, predictions=None, references=None, judgments=None, descriptions=None, captions=None,
                judge_model=None, judge_backend=None, judge_base_url=None, cache_dir=None, max_concurrency=16,
                last_k_tokens=None, **kwargs):
        """Score given verdicts, or first obtain them from a judge; every argument is checked first."""
        judge_args = (judge_model, judge_backend, judge_base_url, cache_dir, max_concurrency)
        inputs = {"predictions": predictions, "references": references, "judgments": judgments}
        extra = ("descriptions", "captions", "judge_model", "judge_backend", "judge_base_url", "cache_dir",
                 "max_concurrency", "last_k_tokens")
        if (judge := check_judge_args(*judge_args)) is not None:
            if judgments is not None:
                raise NyccBenchError("judgments: give either judgments or judge_model, not both")
            check_compute_call(self, {**inputs, "judgments": "from the judge"}, kwargs, extra)
            if last_k_tokens is not None:
                check_int(last_k_tokens, "last_k_tokens", 1, MAX_LAST_K_TOKENS)
            predictions, references = rules.check_element_rows(predictions, references)
            n = len(predictions)
            if descriptions is None or captions is None:
                raise NyccBenchError("descriptions, captions: a judge needs the cartoon description and caption of "
                                     "each row")
            for values, name in ((descriptions, "descriptions"), (captions, "captions")):
                check_length(check_strings(values, name), name, n, "predictions")
            rules.check_elements(predictions, references, ["PASS"] * n, **kwargs)
            records = element_judgments(judge, descriptions, captions, references, predictions, last_k_tokens)
            judgments = [r["verdict"] for r in records]
        else:
            unused = {"descriptions": descriptions, "captions": captions, "last_k_tokens": last_k_tokens}
            if given := [name for name, value in unused.items() if value is not None]:
                raise NyccBenchError(f"{given[0]}: only used with a judge_model; pass judgments, or a judge_model")
            check_compute_call(self, inputs, kwargs, extra)
            if any(value is not None for value in inputs.values()):
                rules.check_elements(predictions, references, judgments, **kwargs)
        return super().compute(predictions=predictions, references=references, judgments=judgments, **kwargs)

    def _compute(self, predictions, references, judgments, caption_ids=None, categories=None, hard=None,
                 human_labels=None, confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED):
        return rules.element_autograder(predictions, references, judgments, caption_ids, categories, hard,
                                        human_labels, confidence, n_resamples, seed)
