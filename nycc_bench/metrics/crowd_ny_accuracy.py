"""Hessel et al. (2023) quality-ranking accuracy overall, on crowd-chosen (CrowdAcc) and official (NYAcc) winners."""

import datasets
import evaluate

from nycc_bench.citations import HESSEL2023
from nycc_bench.metrics import rules
from nycc_bench.metrics._support import check_add_call, check_compute_call
from nycc_bench.scoring.accuracy import RANKING_CHOICES, crowd_ny_accuracy
from nycc_bench.scoring.bootstrap import CONFIDENCE, N_RESAMPLES, SEED
from nycc_bench.scoring.checks import check_bootstrap, check_strings, missing_as_none

_DESCRIPTION = """
Accuracy for the quality-ranking task of Hessel et al. (2023): of two captions for a cartoon, pick the one
that won. Items are split by the `winner_source` of the correct caption: CrowdAcc is the accuracy where it is
`crowd_winner` (the top crowd-rated caption), NYAcc where it is `official_winner` (a New Yorker finalist).
With one cross-validation fold per item each accuracy is the unweighted mean over folds, as in the paper.
Intervals: seeded percentile bootstrap over items (within folds).
"""

_CITATION = HESSEL2023.bibtex

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
    >>> from nycc_bench.metrics import load_metric
    >>> crowd_ny = load_metric("crowd_ny_accuracy")  # or evaluate.load("nycc-bench/crowd_ny_accuracy")
    >>> result = crowd_ny.compute(
    ...     predictions=["A", "B", "B", "A"],
    ...     references=["A", "A", "B", "A"],
    ...     winner_sources=["crowd_winner", "crowd_winner", "official_winner", "official_winner"],
    ... )
    >>> result["accuracy"], result["crowd_accuracy"], result["ny_accuracy"], result["n_crowd"], result["n_ny"]
    (0.75, 0.5, 1.0, 2, 2)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CrowdNyAccuracy(evaluate.Metric):
    """CrowdAcc / NYAcc (Hessel et al. 2023); the rule lives in `nycc_bench.scoring.accuracy`."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("large_string"),  # large: evaluate refuses None in "string"
                    "references": datasets.Value("string"),
                    "winner_sources": datasets.Value("string"),
                }
            ),
            homepage="https://github.com/jmhessel/caption_contest_corpus",
            codebase_urls=["https://github.com/jmhessel/caption_contest_corpus"],
            reference_urls=["https://arxiv.org/abs/2209.06293"],
        )

    def add_batch(self, *, predictions=None, references=None, winner_sources=None, **kwargs):
        """Add a batch, checked first: evaluate's encoder would store a missing value (NaN) as the text "nan".

        A missing prediction is kept as None: `_compute` raises on it, or counts it wrong (`invalid_as_wrong`).
        """
        check_add_call(self, kwargs)
        predictions = missing_as_none(predictions, "predictions")
        references = check_strings(references, "references")
        winner_sources = check_strings(winner_sources, "winner_sources")
        super().add_batch(predictions=predictions, references=references, winner_sources=winner_sources)

    def add(self, *, prediction=None, reference=None, winner_sources=None, **kwargs):
        """Add one example, checked first."""
        check_add_call(self, kwargs)
        prediction = missing_as_none([prediction], "prediction")[0]
        check_strings([reference], "reference")
        check_strings([winner_sources], "winner_sources")
        super().add(prediction=prediction, reference=reference, winner_sources=winner_sources)

    def compute(self, *, predictions=None, references=None, winner_sources=None, **kwargs):
        """Check every argument (a bad one raises ValueError naming it), then score."""
        inputs = {"predictions": predictions, "references": references, "winner_sources": winner_sources}
        check_compute_call(self, inputs, kwargs)
        if any(value is not None for value in inputs.values()):
            _check(**inputs, **kwargs)
        return super().compute(**inputs, **kwargs)

    def _compute(self, predictions, references, winner_sources, folds=None, choices=RANKING_CHOICES,
                 invalid_as_wrong=False, confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED):
        return rules.crowd_ny_accuracy_rule(predictions, references, winner_sources, folds, choices,
                                            invalid_as_wrong, confidence, n_resamples, seed)


def _check(predictions, references, winner_sources, folds=None, choices=RANKING_CHOICES, invalid_as_wrong=False,
           confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED):
    """Every check `crowd_ny_accuracy` makes (it is cheap with one resample): settings first, then the inputs."""
    check_bootstrap(confidence, n_resamples, seed)
    crowd_ny_accuracy(predictions, references, winner_sources, folds, choices=choices,
                      invalid_as_wrong=invalid_as_wrong, n_resamples=1)
