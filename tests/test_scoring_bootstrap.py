"""The percentile bootstrap: seeded, over units, stratified, and its edge cases."""

import numpy as np
import pytest

from nycc_bench.scoring.bootstrap import bootstrap_ci


def test_same_seed_same_interval_other_seed_other_interval():
    values = np.random.default_rng(3).normal(size=200)
    assert bootstrap_ci(values, seed=5) == bootstrap_ci(values, seed=5)
    assert bootstrap_ci(values, seed=5) != bootstrap_ci(values, seed=6)


def test_interval_of_a_mean_is_close_to_the_normal_one():
    values = np.random.default_rng(0).integers(0, 2, size=400).astype(float)
    low, high = bootstrap_ci(values, n_resamples=4000)
    half = 1.96 * values.std() / np.sqrt(len(values))
    assert low == pytest.approx(values.mean() - half, abs=0.01)
    assert high == pytest.approx(values.mean() + half, abs=0.01)


def test_ratio_of_sums_and_units_without_denominator():
    # the rate is pooled over units (3 of 4), and a unit with denominator 0 is left out
    assert bootstrap_ci([3, 0], [4, 0]) == (0.75, 0.75)
    assert bootstrap_ci([0], [0]) == (None, None)


def test_strata_resample_within_and_average_over_strata():
    # stratum 0 always 1, stratum 1 always 0: every resample averages to 0.5 exactly
    assert bootstrap_ci([1, 1, 1, 0], strata=["a", "a", "a", "b"]) == (0.5, 0.5)


def test_large_input_is_chunked():
    values = np.tile([1.0, 0.0, 1.0, 1.0], 25_000)
    low, high = bootstrap_ci(values, n_resamples=50)
    assert low < 0.75 < high and high - low < 0.02


def test_all_units_agreeing_get_the_exact_interval_not_a_point():
    """`random` won all 8 judgments of 4 contests under a weak judge: "100.0 [100.0, 100.0] (n=8)" said a
    certainty the data cannot give; the exact interval of 4 contests out of 4 is [39.8, 100]."""
    low, high = bootstrap_ci([2, 2, 2, 2], [2, 2, 2, 2])
    assert round(100 * low, 1) == 39.8 and high == 1.0
    assert bootstrap_ci([0, 0, 0, 0], [2, 2, 2, 2]) == (0.0, pytest.approx(1 - low))
    assert bootstrap_ci(np.ones(100_000))[0] == pytest.approx(0.025 ** (1 / 100_000))
    assert bootstrap_ci([1, 1, 1, 1], strata=["a", "a", "b", "b"]) == (pytest.approx(low), 1.0)
    from scipy.stats import binomtest

    assert low == pytest.approx(binomtest(4, 4).proportion_ci(method="exact").low)  # Clopper-Pearson


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"confidence": 1.0}, "confidence"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"denominators": [1, 2, 3]}, "equal length"),
        ({"strata": [0]}, "strata has 1 items"),
    ],
)
def test_bad_settings_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bootstrap_ci([1, 0], **kwargs)
