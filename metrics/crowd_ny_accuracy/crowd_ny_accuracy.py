"""Hessel et al. (2023) quality-ranking accuracy overall, on crowd-chosen (CrowdAcc) and official (NYAcc) winners.

The Space face of `nycc_bench.metrics.crowd_ny_accuracy` (generated from it: do not edit; regenerate with
`python -m nycc_bench.metrics._faces`). The rule and the class live in the package; this file carries evaluate's
conventions: this docstring, `_KWARGS_DESCRIPTION` with examples that run through `evaluate.load`, and the class
they document.
"""

import evaluate

import nycc_bench.metrics.crowd_ny_accuracy as package

_DESCRIPTION = package._DESCRIPTION
_CITATION = package._CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one answer letter per item, each one of `choices`.
    references (`list` of `str`): the correct letter per item (the dataset's `label`).
    winner_sources (`list` of `str`): "crowd_winner" or "official_winner" per item (the dataset's
        `winner_source`).
    folds (`list` of `int`, optional): the cross-validation fold (an int in 0–4) of each item.
    choices (`str`, default "AB"): the allowed letters.
    invalid_as_wrong (`bool`, default False): count a missing (None) or unparseable prediction as wrong
        and report how many in `n_invalid`, instead of raising.
    confidence (`float`, default 0.95), n_resamples (`int`, default 1000), seed (`int`, default 0):
        the percentile bootstrap intervals.
Returns:
    accuracy, crowd_accuracy, ny_accuracy (`float` in [0, 1], None for a kind with no item),
    n, n_crowd, n_ny (`int`), ci_low/ci_high, crowd_ci_low/crowd_ci_high, ny_ci_low/ny_ci_high,
    and with folds fold_accuracies, fold_crowd_accuracies, fold_ny_accuracies (`dict`: fold → accuracy).
Raises:
    ValueError (`nycc_bench.errors.NyccBenchError`), naming the argument: a letter outside `choices`, an
        unknown winner source, a missing value, lengths that differ, a fold that is not an int in 0–4, text
        that is not valid Unicode, a bad setting, an argument the metric does not take.
Examples:
    >>> import evaluate
    >>> crowd_ny = evaluate.load("crowd_ny_accuracy")  # the Space: evaluate.load("nycc-bench/crowd_ny_accuracy")
    >>> result = crowd_ny.compute(
    ...     predictions=["A", "B", "B", "A"],
    ...     references=["A", "A", "B", "A"],
    ...     winner_sources=["crowd_winner", "crowd_winner", "official_winner", "official_winner"],
    ... )
    >>> result["accuracy"], result["crowd_accuracy"], result["ny_accuracy"], result["n_crowd"], result["n_ny"]
    (0.75, 0.5, 1.0, 2, 2)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CrowdNyAccuracy(package.CrowdNyAccuracy):
    """CrowdAcc / NYAcc (Hessel et al. 2023); the rule lives in `nycc_bench.scoring.accuracy`."""

    def _info(self):
        info = super()._info()
        info.inputs_description = _KWARGS_DESCRIPTION
        return info
