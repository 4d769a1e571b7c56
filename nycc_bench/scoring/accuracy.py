"""Hessel et al.'s multiple-choice accuracies: matching accuracy and CrowdAcc/NYAcc, fold-averaged."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nycc_bench.scoring.bootstrap import CONFIDENCE, N_RESAMPLES, SEED, bootstrap_ci
from nycc_bench.scoring.checks import (
    check_bool,
    check_choice_set,
    check_choices,
    check_folds,
    check_length,
    missing_as_none,
)

MATCHING_CHOICES = "ABCDE"
RANKING_CHOICES = "AB"
WINNER_SOURCES = ("official_winner", "crowd_winner")


def fold_accuracies(
    predictions: Sequence[str],
    references: Sequence[str],
    folds: Sequence[int],
    *,
    choices: Sequence[str] = MATCHING_CHOICES,
) -> dict[int, float]:
    """Accuracy of each cross-validation fold, keyed by fold id in sorted order.

    >>> fold_accuracies(["A", "B", "C", "C"], ["A", "B", "C", "D"], [0, 0, 1, 1])
    {0: 1.0, 1: 0.5}
    """
    correct, _ = _correct(predictions, references, choices, invalid_as_wrong=False)
    return _by_fold(correct, check_folds(folds, "folds", len(correct), "predictions"))


def accuracy(
    predictions: Sequence[str],
    references: Sequence[str],
    folds: Sequence[int] | None = None,
    *,
    choices: Sequence[str] = MATCHING_CHOICES,
    invalid_as_wrong: bool = False,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> dict[str, Any]:
    """Exact-match accuracy of letter answers, with a bootstrap interval over items.

    Without folds: `accuracy` = correct / n. With one fold id per item (Hessel's protocol): `accuracy` =
    unweighted mean of the folds' accuracies, `fold_accuracies` lists them, and the interval resamples
    items within each fold. Folds are ints in 0–4 (Hessel's five folds). Every reference must be one of
    `choices`, and so must every prediction: a missing or unparseable answer raises, unless
    `invalid_as_wrong=True`, which counts it as wrong and reports how many in `n_invalid` (never a silent
    skip either way).

    >>> accuracy(["A", "B", "C", "C", "E"], ["A", "B", "C", "D", "E"], [0, 0, 0, 1, 1])["accuracy"]
    0.75
    """
    correct, n_invalid = _correct(predictions, references, choices, invalid_as_wrong)
    if folds is None:
        result: dict[str, Any] = {"accuracy": float(correct.mean()), "n": len(correct)}
    else:
        folds = check_folds(folds, "folds", len(correct), "predictions")
        per_fold = _by_fold(correct, folds)
        result = {"accuracy": float(np.mean(list(per_fold.values()))), "n": len(correct), "fold_accuracies": per_fold}
    result["ci_low"], result["ci_high"] = bootstrap_ci(
        correct, strata=folds, confidence=confidence, n_resamples=n_resamples, seed=seed
    )
    if invalid_as_wrong:
        result["n_invalid"] = n_invalid
    return result


def crowd_ny_accuracy(
    predictions: Sequence[str],
    references: Sequence[str],
    winner_sources: Sequence[str],
    folds: Sequence[int] | None = None,
    *,
    choices: Sequence[str] = RANKING_CHOICES,
    invalid_as_wrong: bool = False,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> dict[str, Any]:
    """Quality-ranking accuracy overall, on crowd-chosen winners (CrowdAcc) and on the others (NYAcc).

    An item counts for CrowdAcc when the `winner_source` of its correct caption is `crowd_winner` and for
    NYAcc when it is `official_winner`. With folds, each of the three accuracies is the unweighted mean
    over the folds that have items of that kind. Intervals: bootstrap over items (within folds).
    `invalid_as_wrong` as in `accuracy`.

    >>> r = crowd_ny_accuracy(["A", "B", "B", "A"], ["A", "A", "B", "A"],
    ...                       ["crowd_winner", "crowd_winner", "official_winner", "official_winner"])
    >>> r["accuracy"], r["crowd_accuracy"], r["ny_accuracy"], r["n_crowd"], r["n_ny"]
    (0.75, 0.5, 1.0, 2, 2)
    """
    correct, n_invalid = _correct(predictions, references, choices, invalid_as_wrong)
    sources = check_choices(winner_sources, "winner_sources", WINNER_SOURCES)
    check_length(sources, "winner_sources", len(correct), "predictions")
    if folds is not None:
        folds = check_folds(folds, "folds", len(correct), "predictions")
    crowd = np.array([s == "crowd_winner" for s in sources])
    boot = {"confidence": confidence, "n_resamples": n_resamples, "seed": seed}

    result: dict[str, Any] = {}
    for prefix, mask in (("", np.ones_like(crowd)), ("crowd_", crowd), ("ny_", ~crowd)):
        subset = correct[mask]
        subset_folds = None if folds is None else [f for f, m in zip(folds, mask, strict=True) if m]
        if len(subset) == 0:
            rate, low, high, per_fold = None, None, None, {}
        elif subset_folds is None:
            rate, per_fold = float(subset.mean()), None
            low, high = bootstrap_ci(subset, **boot)
        else:
            per_fold = _by_fold(subset, subset_folds)
            rate = float(np.mean(list(per_fold.values())))
            low, high = bootstrap_ci(subset, strata=subset_folds, **boot)
        result[f"{prefix}accuracy"], result[f"{prefix}ci_low"], result[f"{prefix}ci_high"] = rate, low, high
        if folds is not None:
            result[f"fold_{prefix}accuracies"] = per_fold
    result.update(n=len(correct), n_crowd=int(crowd.sum()), n_ny=int((~crowd).sum()))
    if invalid_as_wrong:
        result["n_invalid"] = n_invalid
    return result


def _correct(
    predictions: Sequence[str], references: Sequence[str], choices: Sequence[str], invalid_as_wrong: bool
) -> tuple[np.ndarray, int]:
    """(1.0 where the prediction matches the reference else 0.0, number of invalid predictions), after checks."""
    choices = check_choice_set(choices)
    if check_bool(invalid_as_wrong, "invalid_as_wrong"):
        predictions = missing_as_none(predictions, "predictions")
        n_invalid = sum(p not in choices for p in predictions)  # None, NaN, "a", "Answer: B"...
    else:
        predictions = check_choices(predictions, "predictions", choices)
        n_invalid = 0
    references = check_choices(references, "references", choices)
    check_length(references, "references", len(predictions), "predictions")
    correct = [p == r for p, r in zip(predictions, references, strict=True)]
    return np.array(correct, dtype=np.float64), n_invalid


def _by_fold(correct: np.ndarray, folds: Sequence[int]) -> dict[int, float]:
    """Accuracy of each fold present, in fold order."""
    labels = np.asarray(folds)
    return {int(fold): float(correct[labels == fold].mean()) for fold in sorted(set(folds))}
