"""HumorBench aggregation: ERROR handling, captions, categories, hard subset, validation and bad inputs."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nycc_bench.scoring.autograder import element_scores, validation_scores


def test_published_gpt4o_pass_rate_is_element_accuracy():
    # upstream docs: gpt-4o passes 372 of the 499 elements
    verdicts = ["PASS"] * 372 + ["FAIL"] * 127
    result = element_scores(verdicts, list(range(499)))
    assert result["element_accuracy"] == 0.7454909819639278
    assert result["stderr"] == pytest.approx(math.sqrt(0.7454909819639278 * (1 - 0.7454909819639278) / 499))


def test_errors_leave_numerator_and_denominator_and_are_counted():
    result = element_scores(["PASS", "ERROR", "FAIL", "PASS", "ERROR"], [1, 1, 2, 2, 3])
    assert result["element_accuracy"] == pytest.approx(2 / 3)
    assert (result["n_pass"], result["n_fail"], result["n_error"], result["n_elements"]) == (2, 1, 2, 5)
    # caption 1: its one graded element passes; caption 2: half; caption 3: nothing graded -> left out
    assert result["n_captions"] == 2
    assert result["caption_all_pass"] == 0.5
    assert result["caption_mean_pass"] == 0.75


def test_all_errors_give_no_rates():
    result = element_scores(["ERROR", "ERROR"], [1, 2])
    assert result["element_accuracy"] is None and result["stderr"] is None and result["caption_all_pass"] is None
    assert result["n_error"] == 2


def test_categories_and_hard_subset():
    result = element_scores(
        ["PASS", "FAIL", "PASS", "FAIL"],
        ["a", "a", "b", "c"],
        categories=[["wordplay"], ["wordplay", "cultural reference"], [], ["toxic or shocking"]],
        hard=[False, True, True, True],
    )
    scores = result["category_scores"]
    assert scores["wordplay"]["accuracy"] == 0.5 and scores["wordplay"]["n"] == 2
    assert scores["cultural reference"]["accuracy"] == 0.0
    assert scores["toxic or shocking"]["n"] == 1
    assert result["hard_accuracy"] == pytest.approx(1 / 3) and result["n_hard"] == 3


def test_interval_resamples_captions():
    # 20 captions of 3 elements each, all PASS or all FAIL: the caption is the unit
    verdicts = [v for i in range(20) for v in ["PASS" if i < 10 else "FAIL"] * 3]
    result = element_scores(verdicts, [i for i in range(20) for _ in range(3)], n_resamples=2000)
    assert 0.2 < result["ci_low"] < 0.35 and 0.65 < result["ci_high"] < 0.8


def test_validation_counts_and_rates():
    result = validation_scores(
        ["PASS", "PASS", "PASS", "FAIL", "FAIL", "ERROR"], ["PASS", "PASS", "FAIL", "FAIL", "PASS", "FAIL"]
    )
    assert (result["tp"], result["fp"], result["tn"], result["fn"]) == (2, 1, 1, 1)
    assert result["accuracy"] == 0.6 and result["fpr"] == 0.5 and result["fnr"] == pytest.approx(1 / 3)
    assert (result["n"], result["n_error"]) == (5, 1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"verdicts": ["PASS", "pass"], "caption_ids": [1, 2]}, r"verdicts\[1\] = 'pass' is not one of"),
        ({"verdicts": ["PASS", None], "caption_ids": [1, 2]}, r"verdicts\[1\] is missing"),
        ({"verdicts": ["PASS"], "caption_ids": [1, 2]}, r"caption_ids has 2 items, expected 1"),
        ({"verdicts": ["PASS"], "caption_ids": [1], "categories": [["puns"]]}, r"categories\[0\] contains 'puns'"),
        ({"verdicts": ["PASS"], "caption_ids": [1], "categories": ["wordplay"]}, r"categories\[0\] must be a list"),
        ({"verdicts": ["PASS"], "caption_ids": [1], "categories": [[], []]}, r"categories has 2 items"),
        ({"verdicts": ["PASS"], "caption_ids": [1], "hard": ["yes"]}, r"hard\[0\] = 'yes'"),
    ],
)
def test_bad_inputs_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        element_scores(**kwargs)


def test_bad_human_labels_raise():
    with pytest.raises(ValueError, match=r"human_labels\[0\] = 'ERROR' is not one of"):
        validation_scores(["PASS"], ["ERROR"])
    with pytest.raises(ValueError, match=r"human_labels has 2 items, expected 1"):
        validation_scores(["PASS"], ["PASS", "FAIL"])


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(["PASS", "FAIL", "ERROR"]), st.integers(0, 8)), min_size=1, max_size=40))
def test_rates_lie_in_unit_interval(rows):
    verdicts, captions = map(list, zip(*rows, strict=True))
    result = element_scores(verdicts, captions, n_resamples=100)
    for key in ("element_accuracy", "caption_all_pass", "caption_mean_pass", "ci_low", "ci_high"):
        assert result[key] is None or 0 <= result[key] <= 1
    if result["element_accuracy"] is not None:
        assert result["caption_all_pass"] <= result["caption_mean_pass"] + 1e-12
