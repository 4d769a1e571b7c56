"""Zhang et al.'s group win rate: the share of judge verdicts, both orders pooled, that pick the model's group."""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from nycc_bench.errors import NyccBenchError
from nycc_bench.scoring.bootstrap import CONFIDENCE, N_RESAMPLES, SEED, bootstrap_ci
from nycc_bench.scoring.checks import INT64_MAX, check_real, check_sequence, shorten, to_finite_float

# Zhang et al. (2024), appendix C.2: answer "A" iff log p("A") − log p("B") exceeds this (undoes the A-bias).
THRESHOLD = 3.003349167
POSITIONS = ("A", "B")
VERDICTS = ("A", "B", "ERROR")


def recalibrate(delta: float, threshold: float = THRESHOLD) -> str:
    """The Overall protocol's verdict from Δ = log p("A") − log p("B"): "A" iff Δ > threshold, else "B".

    >>> recalibrate(3.1), recalibrate(THRESHOLD), recalibrate(-0.5)
    ('A', 'B', 'B')
    """
    return "A" if check_real(delta, "delta_logprob") > threshold else "B"


def win_rate(
    judgments: Sequence[Mapping[str, Any]],
    *,
    threshold: float = THRESHOLD,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> dict[str, Any]:
    """Aggregate group-comparison judgments into a win rate in [0, 1] with a bootstrap interval over contests.

    A judgment is a mapping with `contest_number` (int), `model_position` ("A" or "B": where the model's
    group was shown), `verdict` ("A", "B", "ERROR" or None) and `delta_logprob` (float or None); other keys
    are ignored. A given verdict is used as is; a None verdict is recalibrated from `delta_logprob`
    (Overall protocol, see `recalibrate`); neither is an error. Every contest must have exactly one judgment
    per order (model's group as A, and as B): a duplicate or a missing order would silently reweight the
    contest, so it is an error (see `check_pairs`). ERROR verdicts (an unparseable judge reply)
    leave numerator and denominator and are counted in `n_error`, never scored as a loss.

    `win_rate` = wins / valid judgments; `n_judgments` counts all judgments, ERROR included. The interval
    resamples contests (both orders of a contest stay together); `win_rate`, `ci_low` and `ci_high` are
    None when no judgment is valid.

    >>> r = win_rate([
    ...     {"contest_number": 1, "model_position": "A", "verdict": "A", "delta_logprob": None},
    ...     {"contest_number": 1, "model_position": "B", "verdict": "A", "delta_logprob": None},
    ...     {"contest_number": 2, "model_position": "A", "verdict": None, "delta_logprob": 4.2},
    ...     {"contest_number": 2, "model_position": "B", "verdict": "ERROR", "delta_logprob": None},
    ... ])
    >>> r["win_rate"], r["n_judgments"], r["n_error"], r["n_contests"]
    (0.6666666666666666, 4, 1, 2)
    """
    judgments = check_pairs(check_judgments(judgments))
    threshold = check_real(threshold, "threshold")
    contest_index: dict[int, int] = {}
    wins: list[int] = []
    valid: list[int] = []
    n_error = 0
    for judgment in judgments:
        c = contest_index.setdefault(judgment["contest_number"], len(contest_index))
        if c == len(wins):
            wins.append(0)
            valid.append(0)
        verdict = judgment["verdict"] or recalibrate(judgment["delta_logprob"], threshold)
        if verdict == "ERROR":
            n_error += 1
            continue
        valid[c] += 1
        wins[c] += verdict == judgment["model_position"]

    n_valid = sum(valid)
    low, high = bootstrap_ci(wins, valid, confidence=confidence, n_resamples=n_resamples, seed=seed)
    return {
        "win_rate": sum(wins) / n_valid if n_valid else None,
        "ci_low": low,
        "ci_high": high,
        "n_wins": int(sum(wins)),
        "n_judgments": len(judgments),
        "n_error": n_error,
        "n_contests": len(contest_index),
    }


def check_judgments(judgments: Any) -> list[dict[str, Any]]:
    """Check judgments and keep only the four fields that count (a ValueError says what is wrong, and where).

    >>> check_judgments([{"contest_number": 7, "model_position": "B", "verdict": None, "delta_logprob": -1.5,
    ...                   "raw": "..."}])
    [{'contest_number': 7, 'model_position': 'B', 'verdict': None, 'delta_logprob': -1.5}]
    """
    judgments = check_sequence(judgments, "judgments")
    return [_check_judgment(judgment, f"judgments[{i}]") for i, judgment in enumerate(judgments)]


def check_pairs(judgments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Raise unless every contest has exactly one judgment with the model's group as A and one as B.

    >>> check_pairs([{"contest_number": 7, "model_position": "A"}, {"contest_number": 7, "model_position": "A"}])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    nycc_bench.errors.NyccBenchError: judgments: contest 7 has 2 judgments with the model's group as A and 0 as B; ...
    """
    counts = Counter((j["contest_number"], j["model_position"]) for j in judgments)
    for contest in dict.fromkeys(j["contest_number"] for j in judgments):
        a, b = counts[(contest, "A")], counts[(contest, "B")]
        if (a, b) != (1, 1):
            raise NyccBenchError(
                f"judgments: contest {contest} has {a} judgment{'s' * (a != 1)} with the model's group as A and "
                f"{b} as B; expected exactly one per order (judgments of several human groups? filter by "
                "human_group first)"
            )
    return judgments


def _check_judgment(judgment: Any, where: str) -> dict[str, Any]:
    if not isinstance(judgment, Mapping):
        raise NyccBenchError(f"{where} must be a dict, got {type(judgment).__name__}")
    contest = judgment.get("contest_number")
    if isinstance(contest, bool) or not isinstance(contest, numbers.Integral) or not 0 <= contest <= INT64_MAX:
        raise NyccBenchError(f"{where}['contest_number'] = {shorten(contest)}; expected a non-negative int")
    position = judgment.get("model_position")
    if not isinstance(position, str) or position not in POSITIONS:
        raise NyccBenchError(f"{where}['model_position'] = {shorten(position)}; expected 'A' or 'B'")
    verdict = judgment.get("verdict")
    if verdict is not None and (not isinstance(verdict, str) or verdict not in VERDICTS):
        raise NyccBenchError(f"{where}['verdict'] = {shorten(verdict)}; expected 'A', 'B', 'ERROR' or None")
    delta = judgment.get("delta_logprob")
    if delta is not None:
        delta = to_finite_float(delta)
        if delta is None:
            raise NyccBenchError(
                f"{where}['delta_logprob'] = {shorten(judgment.get('delta_logprob'))}; expected a finite float or None"
            )
    if verdict is None and delta is None:
        raise NyccBenchError(
            f"{where} has neither a verdict nor a delta_logprob; expected 'verdict' in "
            "'A', 'B', 'ERROR' or a float 'delta_logprob' (Overall protocol)"
        )
    return {"contest_number": int(contest), "model_position": position, "verdict": verdict, "delta_logprob": delta}
