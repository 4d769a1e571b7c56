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
    values = np.ones(100_000)
    assert bootstrap_ci(values, n_resamples=50) == (1.0, 1.0)


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
