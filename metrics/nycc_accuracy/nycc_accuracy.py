"""Hessel et al. (2023) matching accuracy, fold-averaged as in the paper, with a bootstrap interval."""

import datasets
import evaluate

from nycc_bench.citations import HESSEL2023
from nycc_bench.scoring.accuracy import MATCHING_CHOICES, accuracy
from nycc_bench.scoring.bootstrap import CONFIDENCE, N_RESAMPLES, SEED
from nycc_bench.scoring.checks import check_strings, missing_as_none

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
    folds (`list` of `int`, optional): the cross-validation fold (0–4) of each item. With folds,
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
    ValueError: a reference outside `choices`, a prediction outside them or missing (unless
        `invalid_as_wrong`), lengths that differ, a fold list of the wrong length.
Examples:
    >>> import evaluate
    >>> nycc_accuracy = evaluate.load("metrics/nycc_accuracy")
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
        predictions = missing_as_none(predictions, "predictions")
        check_strings(references, "references")
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example, checked first."""
        prediction = missing_as_none([prediction], "prediction")[0]
        check_strings([reference], "reference")
        super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(
        self,
        predictions,
        references,
        folds=None,
        choices=MATCHING_CHOICES,
        invalid_as_wrong=False,
        confidence=CONFIDENCE,
        n_resamples=N_RESAMPLES,
        seed=SEED,
    ):
        return accuracy(
            predictions,
            references,
            folds,
            choices=choices,
            invalid_as_wrong=invalid_as_wrong,
            confidence=confidence,
            n_resamples=n_resamples,
            seed=seed,
        )
