"""Matching accuracy and CrowdAcc/NYAcc: fold averaging, splits, intervals and bad inputs."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nycc_bench.scoring.accuracy import accuracy, crowd_ny_accuracy, fold_accuracies


def test_fold_average_is_the_unweighted_mean_of_fold_accuracies():
    # fold 0: 3 of 4 right; fold 1: 1 of 2 right -> folds 0.75 and 0.5, mean 0.625 (pooled would be 4/6)
    predictions = ["A", "B", "C", "D", "E", "A"]
    references = ["A", "B", "C", "E", "E", "B"]
    folds = [0, 0, 0, 0, 1, 1]
    result = accuracy(predictions, references, folds)
    assert result["fold_accuracies"] == {0: 0.75, 1: 0.5}
    assert result["accuracy"] == 0.625
    assert result["n"] == 6
    assert fold_accuracies(predictions, references, folds) == {0: 0.75, 1: 0.5}


def test_without_folds_accuracy_is_pooled():
    result = accuracy(["A", "B", "C"], ["A", "B", "D"])
    assert result["accuracy"] == pytest.approx(2 / 3)
    assert "fold_accuracies" not in result
    assert result["ci_low"] <= result["accuracy"] <= result["ci_high"]


def test_crowd_and_ny_split_with_folds():
    result = crowd_ny_accuracy(
        ["A", "B", "A", "A", "B", "B"],
        ["A", "A", "A", "A", "B", "A"],
        ["crowd_winner", "crowd_winner", "official_winner", "crowd_winner", "official_winner", "official_winner"],
        folds=[0, 0, 0, 1, 1, 1],
    )
    # fold 0: crowd 1/2, ny 1/1, all 2/3; fold 1: crowd 1/1, ny 1/2, all 2/3
    assert result["fold_crowd_accuracies"] == {0: 0.5, 1: 1.0}
    assert result["fold_ny_accuracies"] == {0: 1.0, 1: 0.5}
    assert result["crowd_accuracy"] == 0.75
    assert result["ny_accuracy"] == 0.75
    assert result["accuracy"] == pytest.approx(2 / 3)
    assert (result["n"], result["n_crowd"], result["n_ny"]) == (6, 3, 3)


def test_a_kind_without_items_is_none():
    result = crowd_ny_accuracy(["A"], ["A"], ["official_winner"])
    assert result["crowd_accuracy"] is None and result["crowd_ci_low"] is None
    assert result["ny_accuracy"] == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"predictions": ["A", "F"], "references": ["A", "B"]}, r"predictions\[1\] = 'F' is not one of"),
        ({"predictions": ["a"], "references": ["A"]}, r"predictions\[0\] = 'a' is not one of"),
        ({"predictions": ["A", None], "references": ["A", "B"]}, r"predictions\[1\] is missing"),
        ({"predictions": ["A", float("nan")], "references": ["A", "B"]}, r"predictions\[1\] is missing"),
        ({"predictions": ["A"], "references": ["A", "B"]}, r"references has 2 items, expected 1"),
        ({"predictions": [], "references": []}, r"predictions is empty"),
        ({"predictions": ["A", "B"], "references": ["A", "B"], "folds": [0]}, r"folds has 1 items, expected 2"),
        ({"predictions": ["A", "B"], "references": ["A", "B"], "folds": [0, None]}, r"folds\[1\]"),
    ],
)
def test_bad_inputs_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        accuracy(**kwargs)


def test_unknown_winner_source_raises():
    with pytest.raises(ValueError, match=r"winner_sources\[0\] = 'crowd' is not one of"):
        crowd_ny_accuracy(["A"], ["A"], ["crowd"])
    with pytest.raises(ValueError, match=r"winner_sources has 1 items, expected 2"):
        crowd_ny_accuracy(["A", "B"], ["A", "B"], ["crowd_winner"])


letters = st.sampled_from("ABCDE")


@settings(max_examples=80, deadline=None)
@given(
    pairs=st.lists(st.tuples(letters, letters, st.integers(0, 4)), min_size=1, max_size=40),
    use_folds=st.booleans(),
)
def test_accuracy_and_interval_lie_in_unit_interval(pairs, use_folds):
    predictions, references, folds = map(list, zip(*pairs, strict=True))
    result = accuracy(predictions, references, folds if use_folds else None, n_resamples=200)
    assert 0 <= result["ci_low"] <= result["ci_high"] <= 1
    assert 0 <= result["accuracy"] <= 1


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sampled_from("AB"), st.sampled_from("AB"), st.sampled_from(["crowd_winner", "official_winner"])),
        min_size=1,
        max_size=30,
    )
)
def test_crowd_ny_rates_lie_in_unit_interval(rows):
    result = crowd_ny_accuracy(*map(list, zip(*rows, strict=True)), n_resamples=100)
    for key in ("accuracy", "crowd_accuracy", "ny_accuracy"):
        assert result[key] is None or 0 <= result[key] <= 1
    assert result["n_crowd"] + result["n_ny"] == result["n"]


def test_invalid_predictions_count_as_wrong_only_when_asked():
    result = accuracy(["A", None, float("nan"), "Answer: B"], ["A", "B", "C", "B"], invalid_as_wrong=True)
    assert result["accuracy"] == 0.25 and result["n_invalid"] == 3 and result["n"] == 4
    with pytest.raises(ValueError, match=r"predictions\[1\] is missing"):
        accuracy(["A", None], ["A", "B"])
    result = crowd_ny_accuracy([None, "A"], ["A", "A"], ["crowd_winner", "official_winner"], invalid_as_wrong=True)
    assert (result["crowd_accuracy"], result["ny_accuracy"], result["n_invalid"]) == (0.0, 1.0, 1)
    with pytest.raises(ValueError, match=r"references\[0\] = 'Z'"):
        accuracy(["A"], ["Z"], invalid_as_wrong=True)


@pytest.mark.parametrize(
    ("folds", "message"),
    [
        ([0, "0"], r"folds\[1\] = '0'; expected an int fold in 0–4"),  # before: two folds, "0" and 0
        ([0, 7], r"folds\[1\] = 7; expected an int fold in 0–4"),  # before: accepted though the docs say 0–4
        ([0, 1.0], r"folds\[1\] = 1.0"),
        ([0, True], r"folds\[1\] = True"),
    ],
)
def test_folds_are_ints_in_zero_to_four(folds, message):
    with pytest.raises(ValueError, match=message):
        accuracy(["A", "B"], ["A", "B"], folds)
    with pytest.raises(ValueError, match=message):
        crowd_ny_accuracy(["A", "B"], ["A", "B"], ["crowd_winner", "official_winner"], folds)


def test_numpy_fold_ids_are_plain_int_keys():
    import numpy as np

    result = accuracy(["A", "B"], ["A", "A"], np.array([3, 4]))
    assert result["fold_accuracies"] == {3: 1.0, 4: 0.0} and all(type(k) is int for k in result["fold_accuracies"])


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"choices": 5}, "choices"), ({"choices": "AA"}, "choices"), ({"invalid_as_wrong": "yes"}, "invalid_as_wrong"),
     ({"seed": -1}, "seed"), ({"n_resamples": 10**30}, "n_resamples"), ({"confidence": float("nan")}, "confidence")],
)
def test_bad_settings_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        accuracy(["A"], ["A"], **kwargs)
