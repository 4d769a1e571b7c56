"""Group win rate: recalibration edges, ERROR handling, contest bootstrap, symmetry and bad judgments."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nycc_bench.scoring.win_rate import THRESHOLD, recalibrate, win_rate


def judgment(contest, position, verdict=None, delta=None, **extra):
    return {"contest_number": contest, "model_position": position, "verdict": verdict, "delta_logprob": delta, **extra}


def test_recalibration_edges():
    assert THRESHOLD == 3.003349167
    assert recalibrate(THRESHOLD) == "B"  # exactly at the threshold is B
    assert recalibrate(THRESHOLD + 1e-9) == "A"
    assert recalibrate(-2.0) == "B"
    assert recalibrate(0.5, threshold=0.0) == "A"
    assert recalibrate(0.0, threshold=0.0) == "B"
    with pytest.raises(ValueError, match="delta"):
        recalibrate(float("nan"))


def test_overall_protocol_recalibrates_none_verdicts():
    result = win_rate([judgment(1, "A", delta=THRESHOLD), judgment(1, "B", delta=THRESHOLD), judgment(2, "A", delta=5),
                       judgment(2, "B", delta=5)])
    # Δ at the threshold -> "B": a loss in position A, a win in position B; Δ = 5 -> "A": a win, then a loss
    assert result["n_wins"] == 2 and result["win_rate"] == 0.5


def test_given_verdict_wins_over_delta():
    assert win_rate([judgment(1, "A", verdict="B", delta=10.0), judgment(1, "B", "A")])["win_rate"] == 0.0


def test_errors_leave_numerator_and_denominator():
    result = win_rate(
        [judgment(1, "A", "A"), judgment(1, "B", "ERROR"), judgment(2, "A", "B"), judgment(2, "B", "ERROR")]
    )
    assert result["win_rate"] == 0.5
    assert (result["n_judgments"], result["n_error"], result["n_wins"], result["n_contests"]) == (4, 2, 1, 2)


def test_all_errors_give_no_rate():
    result = win_rate([judgment(1, "A", "ERROR"), judgment(1, "B", "ERROR")])
    assert result["win_rate"] is None and result["ci_low"] is None and result["n_error"] == 2


def test_interval_resamples_contests_not_judgments():
    # every contest: the model wins in both orders or loses in both; units are contests
    wins = [judgment(c, p, p) for c in range(10) for p in "AB"]
    losses = [judgment(c, p, "B" if p == "A" else "A") for c in range(10, 20) for p in "AB"]
    result = win_rate(wins + losses, n_resamples=2000, seed=1)
    assert result["win_rate"] == 0.5 and result["n_contests"] == 20
    # a contest bootstrap of 20 units: roughly 0.5 ± 1.96·sqrt(0.25/20) ≈ [0.28, 0.72]
    assert 0.2 < result["ci_low"] < 0.35 and 0.65 < result["ci_high"] < 0.8
    assert win_rate(wins + losses, n_resamples=2000, seed=1) == result  # seeded


def test_extra_keys_are_ignored():
    pair = [judgment(1, "A", "A", human_group="top10", raw="A"), judgment(1, "B", "B", human_group="top10")]
    assert win_rate(pair)["win_rate"] == 1.0


@pytest.mark.parametrize(
    ("judgments", "message"),
    [
        ([judgment(1, "A", "A"), judgment(1, "B", "B"), judgment(1, "B", "B")], r"contest 1 has 1 .* and 2 as B"),
        ([judgment(1, "A", "A"), judgment(1, "B", "B"), judgment(2, "A", "A")], r"contest 2 has 1 .* and 0 as B"),
        ([judgment(1, "A", "A"), judgment(1, "A", "A")], r"contest 1 has 2 judgments .* and 0 as B"),
    ],
)
def test_duplicate_or_missing_orders_are_errors_not_reweighting(judgments, message):
    # before: a duplicated winning order or a dropped losing one silently raised the rate
    with pytest.raises(ValueError, match=r"judgments: " + message):
        win_rate(judgments)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (judgment(1, "A"), r"judgments\[0\] has neither a verdict nor a delta_logprob"),
        (judgment(1, "C", "A"), r"judgments\[0\]\['model_position'\] = 'C'"),
        (judgment(1, "A", "a"), r"judgments\[0\]\['verdict'\] = 'a'"),
        (judgment("1", "A", "A"), r"judgments\[0\]\['contest_number'\] = '1'; expected a non-negative int"),
        (judgment(2**64, "A", "A"), r"contest_number"),
        (judgment(1, "A", delta=10**400), r"judgments\[0\]\['delta_logprob'\]"),
        (judgment(True, "A", "A"), r"contest_number"),
        (judgment(1, "A", delta=float("inf")), r"judgments\[0\]\['delta_logprob'\]"),
        ("A", r"judgments\[0\] must be a dict"),
    ],
)
def test_bad_judgments_raise(bad, message):
    with pytest.raises(ValueError, match=message):
        win_rate([bad])


def test_no_judgment_raises():
    with pytest.raises(ValueError, match="judgments is empty"):
        win_rate([])


verdicts = st.sampled_from(["A", "B", "ERROR"])
contests = st.dictionaries(st.integers(0, 10**6), st.tuples(verdicts, verdicts), min_size=1, max_size=15)


def pairs(contests):
    """(contest, position, verdict) rows, both orders of each contest."""
    return [(c, p, v) for c, (a, b) in contests.items() for p, v in (("A", a), ("B", b))]

SWAP = {"A": "B", "B": "A", "ERROR": "ERROR"}


@settings(max_examples=80, deadline=None)
@given(contests=contests)
def test_swapping_positions_and_verdicts_consistently_changes_nothing(contests):
    rows = pairs(contests)
    original = win_rate([judgment(c, p, v) for c, p, v in rows], n_resamples=100)
    swapped = win_rate([judgment(c, SWAP[p], SWAP[v]) for c, p, v in rows], n_resamples=100)
    assert swapped == original


@settings(max_examples=80, deadline=None)
@given(contests=contests)
def test_win_rate_lies_in_unit_interval(contests):
    result = win_rate([judgment(c, p, v) for c, p, v in pairs(contests)], n_resamples=100)
    if result["win_rate"] is not None:
        assert 0 <= result["ci_low"] <= result["ci_high"] <= 1
        assert 0 <= result["win_rate"] <= 1
