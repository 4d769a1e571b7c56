"""Seeded percentile bootstrap intervals that resample units (contests, captions, items), never judgments."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from nycc_bench.errors import NyccBenchError
from nycc_bench.scoring.checks import check_bootstrap

CONFIDENCE = 0.95
N_RESAMPLES = 1000
SEED = 0
# Resampled index matrices are drawn in chunks of at most this many entries, so memory stays flat.
_CHUNK_ENTRIES = 1 << 22


def bootstrap_ci(
    numerators: Sequence[float] | np.ndarray,
    denominators: Sequence[float] | np.ndarray | None = None,
    *,
    strata: Sequence[Hashable] | None = None,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float] | tuple[None, None]:
    """Percentile bootstrap interval of a pooled rate `sum(numerators) / sum(denominators)` over units.

    One entry per unit (a contest, a caption, an item): e.g. for a win rate the numerator is the number of
    wins in a contest and the denominator its number of valid judgments. Units are drawn with replacement,
    so judgments of one contest stay together. `denominators=None` means 1 per unit (a plain mean).
    Units whose denominator is 0 carry no information and are left out before resampling.

    With `strata` (e.g. cross-validation folds), units are resampled within each stratum and the statistic
    is the unweighted mean over strata of the stratum's rate: the interval of a fold-averaged accuracy.

    Returns `(low, high)`, or `(None, None)` when no unit has a positive denominator. The same inputs and
    seed always give the same interval. Where every unit is all successes (or all failures), as a small
    sample often is, resampling has no spread and would give the point `(1, 1)`: the interval is then the exact
    (Clopper-Pearson) one of n units out of n, `((alpha/2)^(1/n), 1)` (`exact_all_agree`). Other samples whose
    units agree (one unit, say) keep the bootstrap's degenerate `(rate, rate)`.

    >>> bootstrap_ci([1, 1, 0, 1, 0, 1, 1, 1], seed=0)
    (0.375, 1.0)
    >>> bootstrap_ci([3, 0], [4, 0])
    (0.75, 0.75)
    >>> [round(x, 3) for x in bootstrap_ci([2, 2, 2, 2], [2, 2, 2, 2])]  # 4 contests, every judgment a win
    [0.398, 1.0]
    """
    confidence, n_resamples, seed = check_bootstrap(confidence, n_resamples, seed)
    num = np.asarray(numerators, dtype=np.float64)
    den = np.ones_like(num) if denominators is None else np.asarray(denominators, dtype=np.float64)
    if num.ndim != 1 or den.shape != num.shape:
        raise NyccBenchError(
            f"numerators and denominators must be flat and of equal length, got {num.shape} and {den.shape}"
        )
    labels = np.zeros(len(num), dtype=np.int64) if strata is None else _stratum_labels(strata, len(num))
    keep = den > 0
    num, den, labels = num[keep], den[keep], labels[keep]
    if len(num) == 0:
        return None, None
    if (exact := exact_all_agree(num, den, confidence)) is not None:
        return exact

    rng = np.random.default_rng(seed)
    stats = np.zeros(n_resamples)
    present = np.unique(labels)
    for label in present:
        stats += _resampled_rates(num[labels == label], den[labels == label], n_resamples, rng)
    stats /= len(present)
    alpha = (1 - confidence) / 2
    low, high = np.percentile(stats, [100 * alpha, 100 * (1 - alpha)])
    return float(low), float(high)


def exact_interval(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float | None, float | None]:
    """Clopper-Pearson interval of k successes in n (scipy's exact binomial interval, imported here only), exact at
    any n; (None, None) without a trial."""
    if n <= 0:
        return None, None
    from scipy.stats import binomtest

    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="exact")
    return float(ci.low), float(ci.high)


def exact_all_agree(num: np.ndarray, den: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The exact (Clopper-Pearson) interval of n units out of n where every unit is all successes (all failures:
    mirrored), else None: the percentile bootstrap collapses to a point there ("100.0 [100.0, 100.0] (n=8)").
    `exact_interval(n, n)` in closed form, so scoring never imports scipy for it."""
    edge = float(((1 - confidence) / 2) ** (1 / len(num)))
    if np.all(num == den):
        return edge, 1.0
    if np.all(num == 0):
        return 0.0, 1.0 - edge
    return None


def _resampled_rates(num: np.ndarray, den: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    n_units = len(num)
    chunk = max(1, _CHUNK_ENTRIES // n_units)
    rates = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        idx = rng.integers(0, n_units, size=(stop - start, n_units))
        rates[start:stop] = num[idx].sum(axis=1) / den[idx].sum(axis=1)
    return rates


def _stratum_labels(strata: Sequence[Hashable], n_units: int) -> np.ndarray:
    strata = list(strata)
    if len(strata) != n_units:
        raise NyccBenchError(f"strata has {len(strata)} items, expected {n_units} (one per unit)")
    codes: dict[Hashable, int] = {}
    return np.array([codes.setdefault(s, len(codes)) for s in strata], dtype=np.int64)
