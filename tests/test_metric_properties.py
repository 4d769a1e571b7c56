"""Property tests over every metric module: any input gives numbers in range or a ValueError naming the argument.

Inputs mix valid values with every kind of bad one (wrong types, lengths, letters, folds, non-finite or huge
numbers, lone surrogates, unknown arguments). No other exception type may escape. Judge-capable metrics are
given a judge whose calls raise `JudgeCalled`: every check must have run before a judge is reached.
"""

import inspect
import math
import os
import re
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nycc_bench.metrics import METRIC_NAMES, load_metric, rules
from nycc_bench.scoring.ead import EAD_BOUND

# 60 examples per metric keep the file near 15 s; NYCC_PROPERTY_EXAMPLES=1000 runs a deeper search.
EXAMPLES = int(os.environ.get("NYCC_PROPERTY_EXAMPLES", "60"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SURROGATES = st.sampled_from(["\ud800", "a\udc80b", "\udfff"])
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    SURROGATES,
    st.binary(max_size=3),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)
TEXT = st.one_of(st.text(max_size=30), st.sampled_from(["猫が好き", "Привет мир как дела", "the cat sat on the mat"]))
ABSENT = object()


class JudgeCalled(Exception):
    """Raised instead of a judge call: the inputs passed every check."""


def valid_list(element, n):
    """A list of exactly n valid elements."""
    return st.lists(element, min_size=n, max_size=n)


def bad_list(element, bad_element, n):
    """A list of n with one bad element, a list of another length, or not a list at all."""
    def replace(args):
        values, i, bad = args
        values[i % n] = bad
        return values

    return st.one_of(
        st.tuples(valid_list(element, n), st.integers(0, n - 1), bad_element).map(replace),
        st.lists(element, max_size=n + 2).filter(lambda values: len(values) != n),
        JUNK,
    )


def arguments(draw, required, optional):
    """(keyword arguments, whether all are valid): at most one is bad (or a misspelt extra one is added);
    optional ones may be absent. `required` and `optional` map a name to (valid strategy, bad strategy).
    """
    fields = {**required, **optional}
    bad = draw(st.one_of(st.none(), st.none(), st.sampled_from([*fields, "misspelt"])))
    kwargs = {}
    for name, (valid, invalid) in fields.items():
        if name == bad:
            kwargs[name] = draw(invalid)
        elif name in required or draw(st.booleans()):
            kwargs[name] = draw(valid)
    if bad == "misspelt":
        kwargs[draw(st.sampled_from(["fold", "refrences", "n_resample", "confidence_level"]))] = 1
    return kwargs, bad is None


BOOTSTRAP = {
    "confidence": (st.floats(0.01, 0.99), st.one_of(JUNK, st.sampled_from([0, 1, 1.5, -0.1]))),
    "n_resamples": (st.integers(1, 50), st.one_of(JUNK, st.sampled_from([0, -3, 10**30, 5.0]))),
    "seed": (st.integers(0, 10**40), st.one_of(JUNK, st.sampled_from([-1, 2.5]))),
}
FOLD = st.integers(0, 4)
BAD_FOLD = st.one_of(st.sampled_from([5, 7, -1, "0", 1.0, True]), JUNK)


def in_unit(*values):
    """Every value is None or in [0, 1]."""
    return all(v is None or 0 <= v <= 1 for v in values)


def check_interval(result, prefix=""):
    """A bootstrap interval: both None, or inside [0, 1] in order."""
    low, high = result[f"{prefix}ci_low"], result[f"{prefix}ci_high"]
    assert (low is None) == (high is None)
    if low is not None:
        assert 0 <= low <= high <= 1


def arguments_of(name):
    """Every argument name the metric takes: its inputs and the parameters of compute and _compute."""
    metric = load_metric(name)
    names = {*metric._feature_names(), *inspect.signature(metric.compute).parameters,
             *inspect.signature(metric._compute).parameters}
    return names - {"self", "kwargs"}


def run(name, case, patch=None):
    """compute(**kwargs): the result, or None after a ValueError whose message starts with an argument name
    (never for valid arguments) or after reaching the judge."""
    kwargs, valid = case
    metric = load_metric(name)
    try:
        if patch is None:
            return metric.compute(**kwargs)
        home = "rules" if hasattr(rules, patch) else name  # the judge call lives in the rule or the class
        with mock.patch(f"nycc_bench.metrics.{home}.{patch}", side_effect=JudgeCalled):
            return metric.compute(**kwargs)
    except ValueError as error:
        message = str(error)
        assert not valid, f"valid arguments refused: {message}"
        first = re.match(r"\w+", message)
        assert first and first.group() in {*kwargs, *arguments_of(name)}, message
        assert "\n" not in message, message
        return None
    except JudgeCalled:  # a "bad" draw may happen to be valid, so only the converse is asserted here
        return None


@st.composite
def accuracy_kwargs(draw, winner_sources=False):
    n = draw(st.integers(1, 6))
    letters = "AB" if winner_sources else "ABCDE"  # each metric's default choices
    letter = st.sampled_from(letters)
    required = {"predictions": (valid_list(letter, n), bad_list(letter, st.one_of(JUNK, st.sampled_from("aF")), n)),
                "references": (valid_list(letter, n), bad_list(letter, JUNK, n))}
    if winner_sources:
        source = st.sampled_from(["crowd_winner", "official_winner"])
        required["winner_sources"] = (valid_list(source, n), bad_list(source, JUNK, n))
    optional = {
        "folds": (valid_list(FOLD, n), bad_list(FOLD, BAD_FOLD, n)),
        "choices": (st.sampled_from([letters, list(letters)]),
                    st.one_of(JUNK, st.sampled_from(["", "AA", ["A", None], "A\ud800"]))),
        "invalid_as_wrong": (st.booleans(), st.one_of(JUNK.filter(lambda v: not isinstance(v, bool)))),
        **BOOTSTRAP,
    }
    return arguments(draw, required, optional)


@SETTINGS
@given(case=accuracy_kwargs())
def test_nycc_accuracy(case):
    kwargs = case[0]
    result = run("nycc_accuracy", case)
    if result is not None:
        assert in_unit(result["accuracy"], *result.get("fold_accuracies", {}).values())
        assert result["n"] == len(kwargs["predictions"])  # a failed call before left nothing behind
        check_interval(result)


@SETTINGS
@given(case=accuracy_kwargs(winner_sources=True))
def test_crowd_ny_accuracy(case):
    kwargs = case[0]
    result = run("crowd_ny_accuracy", case)
    if result is not None:
        assert in_unit(result["accuracy"], result["crowd_accuracy"], result["ny_accuracy"])
        assert result["n"] == result["n_crowd"] + result["n_ny"] == len(kwargs["predictions"])
        for prefix in ("", "crowd_", "ny_"):
            check_interval(result, prefix)


@st.composite
def overlap_kwargs(draw):
    n = draw(st.integers(1, 5))
    text = (valid_list(TEXT, n), bad_list(TEXT, st.one_of(JUNK, SURROGATES), n))
    required = {"predictions": text, "references": text}
    if draw(st.booleans()):  # the pairwise judge: checked before it is reached
        required |= {"descriptions": text, "captions": text,
                     "judge_model": (st.just("openai:gpt-4o"), st.one_of(JUNK, st.just(""))),
                     "judge_base_url": (st.just("http://127.0.0.1:9/v1"), JUNK.filter(lambda v: v is not None))}
    return arguments(draw, required, {"folds": (valid_list(FOLD, n), bad_list(FOLD, BAD_FOLD, n))})


@SETTINGS
@given(case=overlap_kwargs())
def test_explanation_overlap(case):
    kwargs = case[0]
    result = run("explanation_overlap", case, patch="explanation_judgments")
    if result is not None:
        assert 0 <= result["bleu"] <= 100 and 0 <= result["rouge_l"] <= 1
        assert all(0 <= v <= 100 for v in result.get("fold_bleu", {}).values())
        assert in_unit(*result.get("fold_rouge_l", {}).values())
        assert result["aggregation"] == ("pooled" if kwargs.get("folds") is None else "mean_over_folds")


@st.composite
def ead_kwargs(draw):
    caption = st.one_of(TEXT, st.lists(st.sampled_from(["a", "b", "c", " ", ".", "\n"]), max_size=12).map("".join))
    group = st.lists(caption, min_size=1, max_size=5)
    n = draw(st.integers(1, 5))
    bad_group = st.one_of(bad_list(caption, st.one_of(JUNK, SURROGATES), 2), st.just([]))
    return arguments(
        draw,
        {"predictions": (valid_list(group, n), bad_list(group, bad_group, n))},
        {"vocab_size": (st.integers(2, 10**6), st.one_of(JUNK, st.sampled_from([1, 10**30]))),
         "max_n": (st.integers(1, 8), st.one_of(JUNK, st.sampled_from([0, 10**9]))),
         "sbert_include_diagonal": (st.just(True), JUNK.filter(lambda v: not isinstance(v, bool))),
         "sbert_batch_size": (st.integers(1, 64), JUNK)},
    )


@SETTINGS
@given(case=ead_kwargs())
def test_ead_diversity(case):
    kwargs = case[0]
    result = run("ead_diversity", case)
    if result is not None:
        assert 0 <= result["distinct_ead"] <= 1 and 0 <= result["average_ead"] < math.inf
        n_tokens = sum(len(c.split()) for group in kwargs["predictions"] for c in group)
        if kwargs.get("vocab_size", 32000) >= n_tokens:  # N ≤ C ≤ V: EAD cannot exceed 1/(1 − 1/e)
            assert result["average_ead"] <= EAD_BOUND
        assert result["n_groups"] == len(kwargs["predictions"])


@st.composite
def judgment_rows(draw, bad=False):
    """Both orders of each contest; with `bad`, one field, one order or one contest number is wrong."""
    contests = draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=5, unique=True))
    verdict = st.sampled_from(["A", "B", "ERROR"])
    rows = [{"contest_number": c, "model_position": p, "verdict": draw(st.one_of(st.none(), verdict)),
             "delta_logprob": draw(st.floats(-20, 20))} for c in contests for p in draw(st.permutations("AB"))]
    if bad:
        i = draw(st.integers(0, len(rows) - 1))
        key = draw(st.sampled_from(["contest_number", "model_position", "verdict", "delta_logprob", "order"]))
        if key == "order":
            rows.append(dict(rows[i])) if draw(st.booleans()) else rows.pop(i)
        else:
            values = {"contest_number": st.sampled_from([-1, 2**63, "7", 1.0, None]),
                      "model_position": st.sampled_from(["a", "C", "", "\ud800", None]),
                      "verdict": st.sampled_from(["a", "C", "", "\ud800", 1]),
                      "delta_logprob": st.sampled_from([math.inf, math.nan, 10**400, "1"])}
            rows[i][key] = draw(values[key])
            if key == "delta_logprob":
                rows[i]["verdict"] = None
    return rows


@st.composite
def win_rate_kwargs(draw):
    if draw(st.integers(0, 3)):
        return arguments(
            draw,
            {"judgments": (judgment_rows(), st.one_of(judgment_rows(bad=True), JUNK, st.just([])))},
            {"threshold": (st.floats(-5, 5), st.sampled_from([math.nan, math.inf, "3", 10**400])), **BOOTSTRAP},
        )
    n = draw(st.integers(1, 3))  # the judge path: groups instead of judgments, checked before the judge
    group = st.lists(TEXT, min_size=1, max_size=3)
    groups = (valid_list(group, n), bad_list(group, st.one_of(JUNK, st.lists(SURROGATES, min_size=1)), n))
    contest = st.integers(0, 900)
    kwargs, valid = arguments(
        draw,
        {"model_groups": groups, "human_groups": groups,
         "contest_numbers": (st.lists(contest, min_size=n, max_size=n, unique=True), bad_list(contest, JUNK, n))},
        {"protocol": (st.sampled_from(["overall", "best_pick"]), JUNK)},
    )
    return kwargs | {"judge_model": "openai:gpt-4o", "judge_base_url": "http://127.0.0.1:9/v1"}, valid


@SETTINGS
@given(case=win_rate_kwargs())
def test_group_win_rate(case):
    kwargs = case[0]
    result = run("group_win_rate", case, patch="group_judgments")
    if result is not None:
        assert in_unit(result["win_rate"])
        check_interval(result)
        # both orders of every contest, exactly once: n_judgments is twice the contests
        assert result["n_judgments"] == 2 * result["n_contests"] == len(kwargs["judgments"])
        assert result["n_wins"] + result["n_error"] <= result["n_judgments"]


@st.composite
def autograder_kwargs(draw):
    n = draw(st.integers(1, 5))
    text = (valid_list(TEXT, n), bad_list(TEXT, st.one_of(JUNK, SURROGATES), n))
    verdict = st.sampled_from(["PASS", "FAIL", "ERROR"])
    label = st.sampled_from(["PASS", "FAIL"])
    category = st.lists(st.sampled_from(["wordplay", "cultural reference", "toxic or shocking"]), max_size=2)
    caption_id = st.one_of(st.integers(0, 3), st.sampled_from(["a", "b"]))
    flag = st.booleans()
    required = {"predictions": text, "references": text}
    optional = {
        "caption_ids": (valid_list(caption_id, n), bad_list(caption_id, st.one_of(JUNK.filter(
            lambda v: not isinstance(v, (int, str)) or isinstance(v, bool)), SURROGATES), n)),
        "categories": (valid_list(category, n), bad_list(category, st.one_of(JUNK, st.just(["puns"])), n)),
        "hard": (valid_list(flag, n), bad_list(flag, st.sampled_from([0, 1, "yes", None]), n)),
        "human_labels": (valid_list(label, n), bad_list(label, st.sampled_from(["ERROR", "pass", None]), n)),
        **BOOTSTRAP,
    }
    if draw(st.integers(0, 3)):
        required["judgments"] = (valid_list(verdict, n), bad_list(verdict, st.sampled_from(["pass", "MAYBE"]), n))
        return arguments(draw, required, optional)
    required |= {"descriptions": text, "captions": text}  # the judge path: checked before the judge
    optional["last_k_tokens"] = (st.integers(1, 50), st.sampled_from([0, -2, 3.5, "5"]))
    kwargs, valid = arguments(draw, required, optional)
    return kwargs | {"judge_model": "openai:gpt-4o", "judge_base_url": "http://127.0.0.1:9/v1"}, valid


@SETTINGS
@given(case=autograder_kwargs())
def test_element_autograder(case):
    kwargs = case[0]
    result = run("element_autograder", case, patch="element_judgments")
    if result is None:
        return
    if kwargs.get("human_labels") is not None:
        assert in_unit(result["accuracy"], result["fpr"], result["fnr"])
        assert result["n"] + result["n_error"] == len(kwargs["predictions"])
    else:
        assert in_unit(result["element_accuracy"], result["caption_all_pass"], result["caption_mean_pass"])
        assert result["stderr"] is None or 0 <= result["stderr"] <= 0.5
        assert result["n_elements"] == len(kwargs["predictions"])
        for scores in result.get("category_scores", {}).values():
            assert in_unit(scores["accuracy"])
    check_interval(result)


def test_every_metric_has_a_property_test():
    tested = {name.removeprefix("test_") for name in globals() if name.startswith("test_")}
    assert set(METRIC_NAMES) <= tested


@pytest.mark.parametrize(
    ("name", "kwargs", "argument"),
    [
        ("nycc_accuracy", {"predictions": ["A", "B"], "references": ["A", "B"], "folds": [0, "0"]}, r"folds\[1\]"),
        ("nycc_accuracy", {"predictions": ["A"], "references": ["A"], "folds": [7]}, r"folds\[0\] = 7"),
        ("nycc_accuracy", {"predictions": ["A"], "references": ["A"], "fold": [0]}, r"fold: .*did you mean folds"),
        ("crowd_ny_accuracy", {"predictions": ["A"], "references": ["A"]}, r"winner_sources"),
        ("explanation_overlap", {"predictions": ["x\ud800"], "references": ["x"]}, r"predictions\[0\] holds a lone"),
        ("ead_diversity", {"predictions": [["a", "b\udfff"]]}, r"predictions\[0\]\[1\] holds a lone surrogate"),
        ("ead_diversity", {"predictions": [["a"]], "vocab_size": 10**30}, r"vocab_size"),
        ("group_win_rate", {"judgments": [{"contest_number": 1, "model_position": "A", "verdict": "A"}]},
         r"judgments: contest 1 has 1 judgment with the model's group as A and 0 as B"),
        ("group_win_rate", {"judgments": [{"contest_number": 2**64, "model_position": "A", "verdict": "A"}]},
         r"contest_number"),
        ("group_win_rate", {"judgments": [{"contest_number": 1, "model_position": "A", "delta_logprob": 10**400}]},
         r"delta_logprob"),
        ("element_autograder", {"predictions": ["e"], "references": ["x"], "judgments": ["PASS"],
                                "caption_ids": [1.5]}, r"caption_ids\[0\]"),
    ],
)
def test_named_errors_from_the_issue(name, kwargs, argument):
    with pytest.raises(ValueError, match=argument):
        load_metric(name).compute(**kwargs)


@pytest.mark.parametrize(
    ("name", "patch", "kwargs", "argument"),
    [
        ("explanation_overlap", "explanation_judgments",
         {"predictions": ["x"], "references": ["y"], "descriptions": ["d"], "captions": ["c\ud800"]}, "captions"),
        ("explanation_overlap", "explanation_judgments",
         {"predictions": ["x"], "references": ["y"], "descriptions": ["d"], "captions": ["c"], "folds": [9]}, "folds"),
        ("element_autograder", "element_judgments",
         {"predictions": ["x"], "references": ["y"], "descriptions": ["d"], "captions": ["c"], "hard": [1]}, "hard"),
        ("element_autograder", "element_judgments",
         {"predictions": ["x"], "references": ["y"], "descriptions": ["d", "e"], "captions": ["c"]}, "descriptions"),
        ("group_win_rate", "group_judgments",
         {"model_groups": [["a"]], "human_groups": [["b"]], "contest_numbers": [1], "seed": -1}, "seed"),
        ("group_win_rate", "group_judgments",
         {"model_groups": [["a"]], "human_groups": [["b"]], "contest_numbers": ["1"]}, r"contest_numbers\[0\]"),
    ],
)
def test_bad_input_never_reaches_the_judge(name, patch, kwargs, argument):
    judge = {"judge_model": "openai:gpt-4o", "judge_base_url": "http://127.0.0.1:9/v1"}
    home = "rules" if hasattr(rules, patch) else name
    with mock.patch(f"nycc_bench.metrics.{home}.{patch}", side_effect=JudgeCalled) as called:
        with pytest.raises(ValueError, match=argument):
            load_metric(name).compute(**kwargs, **judge)
        assert not called.called
        good = {k: v for k, v in kwargs.items() if k not in ("folds", "hard", "seed")}
        good |= {"captions": ["c"] * len(good.get("predictions", [1])), "descriptions": ["d"] * len(
            good.get("predictions", [1]))} if "predictions" in good else {"contest_numbers": [1]}
        with pytest.raises(JudgeCalled):  # the same call with the bad argument fixed reaches the judge
            load_metric(name).compute(**good, **judge)


def test_nothing_to_score_names_the_input():
    with pytest.raises(ValueError, match=r"^predictions: nothing to score"):
        load_metric("nycc_accuracy").compute()
