"""Hessel et al. (2023) matching accuracy, fold-averaged as in the paper, with a bootstrap interval.

The Space face of `nycc_bench.metrics.nycc_accuracy` (generated from it: do not edit; regenerate with
`python -m nycc_bench.metrics._faces`). The rule and the class live in the package; this file carries evaluate's
conventions: this docstring, `_KWARGS_DESCRIPTION` with examples that run through `evaluate.load`, and the class
they document.
"""

import evaluate

import nycc_bench.metrics.nycc_accuracy as package

_DESCRIPTION = package._DESCRIPTION
_CITATION = package._CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one answer letter per item, each one of `choices`.
    references (`list` of `str`): the correct letter per item (the dataset's `label`).
    folds (`list` of `int`, optional): the cross-validation fold (an int in 0–4) of each item. With folds,
        `accuracy` is the unweighted mean over folds.
    choices (`str`, default "ABCDE"): the allowed letters; "AB" for the 2-way ranking task.
    invalid_as_wrong (`bool`, default False): count a missing (None) or unparseable prediction as wrong
        and report how many in `n_invalid`, instead of raising.
    confidence (`float`, default 0.95), n_resamples (`int`, default 1000), seed (`int`, default 0):
        the percentile bootstrap interval.
Returns:
    accuracy (`float` in [0, 1]), n (`int`: number of items), ci_low, ci_high (`float`),
    and with folds fold_accuracies (`dict`: fold → accuracy).
Raises:
    ValueError (`nycc_bench.errors.NyccBenchError`), naming the argument: a reference outside `choices`, a
        prediction outside them or missing (unless `invalid_as_wrong`), lengths that differ, a fold that is
        not an int in 0–4, text that is not valid Unicode, a bad setting, an argument the metric does not take.
Examples:
    >>> import evaluate
    >>> nycc_accuracy = evaluate.load("nycc_accuracy")  # the Space: evaluate.load("nycc-bench/nycc_accuracy")
    >>> result = nycc_accuracy.compute(predictions=["A", "C", "E", "B"], references=["A", "C", "D", "B"])
    >>> result["accuracy"], result["n"]
    (0.75, 4)
    >>> result = nycc_accuracy.compute(
    ...     predictions=["A", "C", "E", "B", "A"], references=["A", "C", "D", "B", "B"], folds=[0, 0, 0, 1, 1]
    ... )
    >>> result["fold_accuracies"], round(result["accuracy"], 4)
    ({0: 0.6666666666666666, 1: 0.5}, 0.5833)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NyccAccuracy(package.NyccAccuracy):
    """Matching accuracy (Hessel et al. 2023); the rule lives in `nycc_bench.scoring.accuracy`."""

    def _info(self):
        info = super()._info()
        info.inputs_description = _KWARGS_DESCRIPTION
        return info
