"""Each metric's checks and scoring without `evaluate`: the one home of what a metric class's `_compute` runs.

`import evaluate` pulls in transformers and torch (its `evaluator` subpackage), seconds of CPU that scoring a
run does not need. The metric classes (`metrics/<name>.py`) call these functions from `_compute`, and
`metrics.compute_metric` calls them directly, so both paths give the same numbers and the same errors. A
metric that calls a judge inside `compute` (given `judge_model`) still runs through its class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nycc_bench.errors import NyccBenchError
from nycc_bench.judge.protocols.explanation_pairwise import explanation_win_rate
from nycc_bench.judging import explanation_judgments, judge_from_kwargs
from nycc_bench.metrics._judge_args import check_judge_args
from nycc_bench.scoring.accuracy import MATCHING_CHOICES, RANKING_CHOICES, accuracy, crowd_ny_accuracy
from nycc_bench.scoring.autograder import LABELS, VERDICTS, check_categories, element_scores, validation_scores
from nycc_bench.scoring.bootstrap import CONFIDENCE, N_RESAMPLES, SEED, bootstrap_ci
from nycc_bench.scoring.checks import (
    check_bool,
    check_bootstrap,
    check_choices,
    check_flags,
    check_folds,
    check_groups,
    check_ids,
    check_int,
    check_length,
    check_optional_str,
    check_real,
    check_strings,
)
from nycc_bench.scoring.ead import MAX_N, MAX_ORDER, MAX_VOCAB_SIZE, VOCAB_SIZE, average_ead, distinct_ead
from nycc_bench.scoring.overlap import overlap_scores
from nycc_bench.scoring.sbert import group_diversities
from nycc_bench.scoring.win_rate import THRESHOLD, check_judgments, check_pairs, win_rate

MAX_LAST_K_TOKENS = 1 << 20  # element_autograder's longest explanation tail a judge reads

RULES: dict[str, Callable[..., dict[str, Any]]] = {}


def _rule(name: str) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., dict[str, Any]]]:
    def register(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        RULES[name] = fn
        return fn
    return register


@_rule("nycc_accuracy")
def nycc_accuracy(predictions, references, folds=None, choices=MATCHING_CHOICES, invalid_as_wrong=False,
                  confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED) -> dict[str, Any]:
    """Matching accuracy: the settings checked first, then the inputs and the score."""
    check_bootstrap(confidence, n_resamples, seed)
    return accuracy(predictions, references, folds, choices=choices, invalid_as_wrong=invalid_as_wrong,
                    confidence=confidence, n_resamples=n_resamples, seed=seed)


@_rule("crowd_ny_accuracy")
def crowd_ny_accuracy_rule(predictions, references, winner_sources, folds=None, choices=RANKING_CHOICES,
                           invalid_as_wrong=False, confidence=CONFIDENCE, n_resamples=N_RESAMPLES,
                           seed=SEED) -> dict[str, Any]:
    """Ranking accuracy (crowd and New Yorker winners): the settings checked first, then the score."""
    check_bootstrap(confidence, n_resamples, seed)
    return crowd_ny_accuracy(predictions, references, winner_sources, folds, choices=choices,
                             invalid_as_wrong=invalid_as_wrong, confidence=confidence, n_resamples=n_resamples,
                             seed=seed)


def check_ead(predictions, vocab_size=VOCAB_SIZE, max_n=MAX_N, sbert_model=None, sbert_include_diagonal=True,
              sbert_batch_size=64, sbert_device=None) -> list[list[str]]:
    """Every setting of `ead_diversity`, then the caption groups (returned checked)."""
    check_int(vocab_size, "vocab_size", 2, MAX_VOCAB_SIZE)
    check_int(max_n, "max_n", 1, MAX_ORDER)
    check_optional_str(sbert_model, "sbert_model")
    check_bool(sbert_include_diagonal, "sbert_include_diagonal")
    check_int(sbert_batch_size, "sbert_batch_size", 1, 1 << 16)
    check_optional_str(sbert_device, "sbert_device")
    groups = check_groups(predictions, "predictions")
    if sbert_model is not None and not sbert_include_diagonal:
        for i, group in enumerate(groups):
            if len(group) < 2:
                raise NyccBenchError(f"predictions[{i}] has 1 caption; sbert_include_diagonal=False needs 2 or more")
    return groups


@_rule("ead_diversity")
def ead_diversity(predictions, vocab_size=VOCAB_SIZE, max_n=MAX_N, sbert_model=None, sbert_include_diagonal=True,
                  sbert_batch_size=64, sbert_device=None) -> dict[str, Any]:
    """Average and distinct EAD of the caption groups, and the SBERT diversity when a model is named (only then
    is sentence-transformers imported)."""
    groups = check_ead(predictions, vocab_size, max_n, sbert_model, sbert_include_diagonal, sbert_batch_size,
                       sbert_device)
    result = {
        "average_ead": average_ead(groups, vocab_size=vocab_size, max_n=max_n),
        "distinct_ead": distinct_ead(groups, vocab_size=vocab_size),
        "n_groups": len(groups),
    }
    if sbert_model is not None:
        per_group = group_diversities(groups, sbert_model, include_diagonal=sbert_include_diagonal,
                                      batch_size=sbert_batch_size, device=sbert_device)
        result["sbert_diversity"] = float(per_group.mean())
        result["sbert_ci_low"], result["sbert_ci_high"] = bootstrap_ci(per_group)
    return result


def check_overlap(predictions, references, folds=None, descriptions=None, captions=None, judge_model=None,
                  judge_backend=None, judge_base_url=None, cache_dir=None, max_concurrency=16):
    """Every input of `explanation_overlap` (the judge's too, when one is named); the texts returned checked."""
    predictions = check_strings(predictions, "predictions")
    references = check_strings(references, "references")
    check_length(references, "references", len(predictions), "predictions")
    if folds is not None:
        check_folds(folds, "folds", len(predictions), "predictions")
    if check_judge_args(judge_model, judge_backend, judge_base_url, cache_dir, max_concurrency):
        if descriptions is None or captions is None:
            raise NyccBenchError(
                "descriptions, captions: the pairwise judge needs each cartoon's description and caption"
            )
        for values, name in ((descriptions, "descriptions"), (captions, "captions")):
            check_length(check_strings(values, name), name, len(predictions), "predictions")
    return predictions, references


@_rule("explanation_overlap")
def explanation_overlap(predictions, references, folds=None, descriptions=None, captions=None, judge_model=None,
                        judge_backend=None, judge_base_url=None, cache_dir=None, max_concurrency=16) -> dict[str, Any]:
    """BLEU-4 / ROUGE-L per fold and their mean, and the pairwise judge's win rate when a judge is named."""
    check_overlap(predictions, references, folds, descriptions, captions, judge_model, judge_backend,
                  judge_base_url, cache_dir, max_concurrency)
    result = overlap_scores(predictions, references, folds)
    judge = judge_from_kwargs(judge_model, judge_backend, judge_base_url, cache_dir, max_concurrency)
    if judge is not None:
        records = explanation_judgments(judge, descriptions, captions, predictions, references)
        result["judge"] = {"judge": judge.name, **explanation_win_rate(records)}
    return result


def check_win_rate_settings(threshold=THRESHOLD, confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED) -> None:
    """The recalibration threshold and the bootstrap settings of `group_win_rate`."""
    check_real(threshold, "threshold")
    check_bootstrap(confidence, n_resamples, seed)


@_rule("group_win_rate")
def group_win_rate(judgments, threshold=THRESHOLD, confidence=CONFIDENCE, n_resamples=N_RESAMPLES,
                   seed=SEED) -> dict[str, Any]:
    """The win rate of judged group comparisons, both orders pooled per contest."""
    check_win_rate_settings(threshold, confidence, n_resamples, seed)
    judgments = check_pairs(check_judgments(judgments))
    return win_rate(judgments, threshold=threshold, confidence=confidence, n_resamples=n_resamples, seed=seed)


def check_element_rows(predictions, references):
    """The explanations and the elements they are graded against, one each per row."""
    predictions = check_strings(predictions, "predictions")
    references = check_strings(references, "references")
    check_length(references, "references", len(predictions), "predictions")
    return predictions, references


def check_elements(predictions, references, judgments, caption_ids=None, categories=None, hard=None,
                   human_labels=None, confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED) -> None:
    """Every input and setting of `element_autograder` given its verdicts."""
    check_bootstrap(confidence, n_resamples, seed)
    predictions, _ = check_element_rows(predictions, references)
    n = len(predictions)
    check_length(check_choices(judgments, "judgments", VERDICTS), "judgments", n, "predictions")
    if caption_ids is not None:
        check_ids(caption_ids, "caption_ids", n, "predictions")
    if categories is not None:
        check_categories(categories, n, "predictions")
    if hard is not None:
        check_flags(hard, "hard", n, "predictions")
    if human_labels is not None:
        check_length(check_choices(human_labels, "human_labels", LABELS), "human_labels", n, "predictions")


@_rule("element_autograder")
def element_autograder(predictions, references, judgments, caption_ids=None, categories=None, hard=None,
                       human_labels=None, confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED) -> dict[str, Any]:
    """Element accuracy and its breakdowns from the verdicts (or, given human labels, the grader's agreement)."""
    check_elements(predictions, references, judgments, caption_ids, categories, hard, human_labels, confidence,
                   n_resamples, seed)
    boot = {"confidence": confidence, "n_resamples": n_resamples, "seed": seed}
    captions = predictions if caption_ids is None else caption_ids  # one explanation per caption
    if human_labels is not None:
        return validation_scores(judgments, human_labels, captions, **boot)
    return element_scores(judgments, captions, categories, hard, **boot)
