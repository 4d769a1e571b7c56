"""HumorBench scores from element-level autograder verdicts, and the autograder's agreement with humans."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from nycc_bench.errors import NyccBenchError
from nycc_bench.scoring.bootstrap import CONFIDENCE, N_RESAMPLES, SEED, bootstrap_ci
from nycc_bench.scoring.checks import check_choices, check_flags, check_ids, check_length, check_sequence, shorten

CATEGORIES = ("wordplay", "cultural reference", "toxic or shocking")
VERDICTS = ("PASS", "FAIL", "ERROR")
LABELS = ("PASS", "FAIL")


def element_scores(
    verdicts: Sequence[str],
    caption_ids: Sequence[Hashable],
    categories: Sequence[Sequence[str]] | None = None,
    hard: Sequence[bool] | None = None,
    *,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> dict[str, Any]:
    """Aggregate one verdict per (explanation, element) row into HumorBench's scores.

    - `element_accuracy` = PASS / (PASS + FAIL). ERROR rows (the autograder's reply had no clean verdict)
      leave numerator and denominator and are counted in `n_error`. All rates are None with no graded row.
    - `stderr` = sqrt(p(1 − p) / n) over graded elements: the paper's "±1 standard error across elements".
    - `ci_low`, `ci_high`: percentile bootstrap over captions (a caption's elements stay together).
    - `caption_all_pass`: share of captions whose graded elements all PASS; `caption_mean_pass`: mean over
      captions of their pass rate; both over the `n_captions` captions with at least one graded row;
      `caption_all_pass_ci_low`, `caption_all_pass_ci_high`: the all-pass share's own bootstrap interval.
    - `categories` (one list per row, possibly empty, of "wordplay", "cultural reference", "toxic or
      shocking") adds `category_scores`: per category `accuracy`, `n` (graded rows), `ci_low`, `ci_high`.
    - `hard` (one bool per row) adds `hard_accuracy`, `n_hard` (graded rows), `hard_ci_low`, `hard_ci_high`.

    >>> r = element_scores(["PASS", "FAIL", "PASS", "ERROR"], [1, 1, 2, 3])
    >>> r["element_accuracy"], r["n_error"], r["caption_all_pass"], r["caption_mean_pass"], r["n_captions"]
    (0.6666666666666666, 1, 0.5, 0.75, 2)
    """
    verdicts = check_choices(verdicts, "verdicts", VERDICTS)
    caption_ids = check_ids(caption_ids, "caption_ids", len(verdicts), "verdicts")
    boot = {"confidence": confidence, "n_resamples": n_resamples, "seed": seed}
    passed = np.array([v == "PASS" for v in verdicts], dtype=np.float64)
    graded = np.array([v != "ERROR" for v in verdicts], dtype=np.float64)
    captions = _codes(caption_ids)

    n_graded = int(graded.sum())
    p = float(passed.sum() / n_graded) if n_graded else None
    result: dict[str, Any] = {
        "element_accuracy": p,
        "stderr": float(np.sqrt(p * (1 - p) / n_graded)) if n_graded else None,
        "n_elements": len(verdicts),
        "n_pass": int(passed.sum()),
        "n_fail": n_graded - int(passed.sum()),
        "n_error": len(verdicts) - n_graded,
    }
    result["ci_low"], result["ci_high"] = _caption_ci(passed, graded, captions, **boot)

    caption_pass = np.bincount(captions, weights=passed)
    caption_graded = np.bincount(captions, weights=graded)
    seen = caption_graded > 0
    result["n_captions"] = int(seen.sum())
    result["caption_all_pass"] = float(np.mean(caption_pass[seen] == caption_graded[seen])) if seen.any() else None
    result["caption_mean_pass"] = float(np.mean(caption_pass[seen] / caption_graded[seen])) if seen.any() else None
    all_pass = (caption_pass[seen] == caption_graded[seen]).astype(np.float64)
    result["caption_all_pass_ci_low"], result["caption_all_pass_ci_high"] = bootstrap_ci(
        all_pass, np.ones_like(all_pass), **boot)  # its own interval: captions resampled, all-pass share recomputed

    if categories is not None:
        tags = check_categories(categories, len(verdicts), "verdicts")
        result["category_scores"] = {}
        for category in CATEGORIES:
            mask = np.array([category in row for row in tags], dtype=np.float64)
            result["category_scores"][category] = _subset(passed, graded * mask, captions, boot)
    if hard is not None:
        flags = np.array(check_flags(hard, "hard", len(verdicts), "verdicts"), dtype=np.float64)
        scores = _subset(passed, graded * flags, captions, boot)
        result["hard_accuracy"], result["n_hard"] = scores["accuracy"], scores["n"]
        result["hard_ci_low"], result["hard_ci_high"] = scores["ci_low"], scores["ci_high"]
    return result


def validation_scores(
    verdicts: Sequence[str],
    human_labels: Sequence[str],
    caption_ids: Sequence[Hashable] | None = None,
    *,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> dict[str, Any]:
    """Agreement of autograder verdicts with human PASS/FAIL labels, PASS being the positive class.

    `accuracy` = (TP + TN) / n, `fpr` = FP / (FP + TN) (the autograder passes what humans failed),
    `fnr` = FN / (FN + TP); rows whose verdict is ERROR are left out of all of them and counted in
    `n_error`. The accuracy interval resamples captions when `caption_ids` are given, else rows.

    >>> r = validation_scores(["PASS", "PASS", "FAIL", "FAIL", "ERROR"], ["PASS", "FAIL", "FAIL", "PASS", "PASS"])
    >>> r["accuracy"], r["fpr"], r["fnr"], r["tp"], r["fp"], r["tn"], r["fn"], r["n_error"]
    (0.5, 0.5, 0.5, 1, 1, 1, 1, 1)
    """
    verdicts = check_choices(verdicts, "verdicts", VERDICTS)
    labels = check_choices(human_labels, "human_labels", LABELS)
    check_length(labels, "human_labels", len(verdicts), "verdicts")
    units = range(len(verdicts)) if caption_ids is None else caption_ids
    captions = _codes(check_ids(units, "caption_ids", len(verdicts), "verdicts"))

    counts = {"tp": 0, "fp": 0, "tn": 0, "fn": 0}
    for verdict, label in zip(verdicts, labels, strict=True):
        if verdict != "ERROR":
            counts[("t" if verdict == label else "f") + ("p" if verdict == "PASS" else "n")] += 1
    tp, fp, tn, fn = counts["tp"], counts["fp"], counts["tn"], counts["fn"]
    n = tp + fp + tn + fn
    agree = np.array([v == h for v, h in zip(verdicts, labels, strict=True)], dtype=np.float64)
    graded = np.array([v != "ERROR" for v in verdicts], dtype=np.float64)
    low, high = _caption_ci(agree * graded, graded, captions, confidence=confidence, n_resamples=n_resamples, seed=seed)
    return {
        "accuracy": (tp + tn) / n if n else None,
        "fpr": fp / (fp + tn) if fp + tn else None,
        "fnr": fn / (fn + tp) if fn + tp else None,
        "ci_low": low,
        "ci_high": high,
        **counts,
        "n": n,
        "n_error": len(verdicts) - n,
    }


def _subset(passed: np.ndarray, graded: np.ndarray, captions: np.ndarray, boot: dict) -> dict[str, Any]:
    """Accuracy, graded count and caption-bootstrap interval over the rows where `graded` is 1."""
    n = int(graded.sum())
    low, high = _caption_ci(passed * graded, graded, captions, **boot)
    return {"accuracy": float((passed * graded).sum() / n) if n else None, "n": n, "ci_low": low, "ci_high": high}


def _caption_ci(hits: np.ndarray, graded: np.ndarray, captions: np.ndarray, **boot: Any) -> tuple:
    return bootstrap_ci(np.bincount(captions, weights=hits), np.bincount(captions, weights=graded), **boot)


def _codes(ids: Sequence[Hashable]) -> np.ndarray:
    codes: dict[Hashable, int] = {}
    return np.array([codes.setdefault(i, len(codes)) for i in ids], dtype=np.int64)


def check_categories(categories: Any, n_rows: int, rows_from: str) -> list[set[str]]:
    """One list per row, possibly empty, of HumorBench categories (`CATEGORIES`), as sets."""
    rows = check_sequence(categories, "categories")
    check_length(rows, "categories", n_rows, rows_from)
    tags = []
    for i, row in enumerate(rows):
        row = check_sequence(row, f"categories[{i}]", allow_empty=True)
        for category in row:
            if not isinstance(category, str) or category not in CATEGORIES:
                raise NyccBenchError(
                    f"categories[{i}] contains {shorten(category)}, not one of {', '.join(map(repr, CATEGORIES))}"
                )
        tags.append(set(row))
    return tags
