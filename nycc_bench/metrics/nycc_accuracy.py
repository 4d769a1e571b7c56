"""Hessel et al. (2023) matching accuracy, fold-averaged as in the paper, with a bootstrap interval."""

import datasets
import evaluate

from nycc_bench.citations import HESSEL2023
from nycc_bench.metrics import rules
from nycc_bench.metrics._support import check_add_call, check_compute_call
from nycc_bench.scoring.accuracy import MATCHING_CHOICES, accuracy
from nycc_bench.scoring.bootstrap import CONFIDENCE, N_RESAMPLES, SEED
from nycc_bench.scoring.checks import check_bootstrap, check_strings, missing_as_none

_DESCRIPTION = """
Accuracy of letter answers for the New Yorker Caption Contest matching task of Hessel et al. (2023): pick
which of 5 captions (A–E) was written for the cartoon. Accuracy is exact match. With one cross-validation
fold id per item, the reported accuracy is the unweighted mean of the folds' accuracies, as in the paper.
A missing or unparseable answer is an error, never a silent skip. The interval is a seeded percentile
bootstrap over items (within folds when folds are given).
"""

_CITATION = HESSEL2023.bibtex

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
    >>> from nycc_bench.metrics import load_metric
    >>> nycc_accuracy = load_metric("nycc_accuracy")  # or evaluate.load("nycc-bench/nycc_accuracy")
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
class NyccAccuracy(evaluate.Metric):
    """Matching accuracy (Hessel et al. 2023); the rule lives in `nycc_bench.scoring.accuracy`."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("large_string"),  # large: evaluate refuses None in "string"
                    "references": datasets.Value("string"),
                }
            ),
            homepage="https://github.com/jmhessel/caption_contest_corpus",
            codebase_urls=["https://github.com/jmhessel/caption_contest_corpus"],
            reference_urls=["https://arxiv.org/abs/2209.06293"],
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch, checked first: evaluate's encoder would store a missing value (NaN) as the text "nan".

        A missing prediction is kept as None: `_compute` raises on it, or counts it wrong (`invalid_as_wrong`).
        """
        check_add_call(self, kwargs)
        predictions = missing_as_none(predictions, "predictions")
        references = check_strings(references, "references")
        super().add_batch(predictions=predictions, references=references)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example, checked first."""
        check_add_call(self, kwargs)
        prediction = missing_as_none([prediction], "prediction")[0]
        check_strings([reference], "reference")
        super().add(prediction=prediction, reference=reference)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Check every argument (a bad one raises ValueError naming it), then score."""
        check_compute_call(self, {"predictions": predictions, "references": references}, kwargs)
        if predictions is not None or references is not None:
            _check(predictions, references, **kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, folds=None, choices=MATCHING_CHOICES, invalid_as_wrong=False,
                 confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED):
        return rules.nycc_accuracy(predictions, references, folds, choices, invalid_as_wrong, confidence,
                                   n_resamples, seed)


def _check(predictions, references, folds=None, choices=MATCHING_CHOICES, invalid_as_wrong=False,
           confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED):
    """Every check `accuracy` makes, without scoring: settings first, then the inputs."""
    check_bootstrap(confidence, n_resamples, seed)
    accuracy(predictions, references, folds, choices=choices, invalid_as_wrong=invalid_as_wrong, n_resamples=1)
