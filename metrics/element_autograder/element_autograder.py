"""HumorBench (Narad et al. 2025) scores from element-level autograder verdicts, and autograder validation.

The Space face of `nycc_bench.metrics.element_autograder` (generated from it: do not edit; regenerate with
`python -m nycc_bench.metrics._faces`). The rule and the class live in the package; this file carries evaluate's
conventions: this docstring, `_KWARGS_DESCRIPTION` with examples that run through `evaluate.load`, and the class
they document.
"""

import evaluate

import nycc_bench.metrics.element_autograder as package

_DESCRIPTION = package._DESCRIPTION
_CITATION = package._CITATION

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
    >>> import evaluate
    >>> autograder = evaluate.load("element_autograder")  # the Space: evaluate.load("nycc-bench/element_autograder")
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
class ElementAutograder(package.ElementAutograder):
    """HumorBench aggregation; the rules live in `nycc_bench.scoring.autograder`."""

    def _info(self):
        info = super()._info()
        info.inputs_description = _KWARGS_DESCRIPTION
        return info
