"""Average EAD and corpus EAD: the paper's published values, a plain reference loop, and bad inputs."""

import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nycc_bench.scoring.ead import average_ead, distinct_ead, ead, group_eads, tokenize

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
GENERATIONS = DATA / "zhang_cartoon_caption_generation" / "examples" / "generations"
PUBLISHED = {  # Zhang et al. (2024), Table 6, as printed by the upstream notebook
    "human_top.csv": 0.9455847415190286,
    "human_200.csv": 0.9564068457237652,
    "human_1000.csv": 0.9608193014367068,
    "human_median.csv": 0.959699228394541,
}


def reference_average_ead(groups, vocab_size=32000, max_n=5):
    """The definition written as plainly as possible, to check the vectorised one against."""
    per_group = []
    for group in groups:
        tokens = [[t for t in c.replace(".", "").replace("\n", "").split(" ") if t] for c in group]
        scores = []
        for n in range(1, max_n + 1):
            grams = [tuple(t[i : i + n]) for t in tokens for i in range(len(t) - n + 1)]
            total = len(grams)
            expected = vocab_size * (1 - ((vocab_size - 1) / vocab_size) ** total)
            scores.append(len(set(grams)) / expected if total else 0.0)
        per_group.append(sum(scores) / max_n)
    return per_group


def read_groups(path: Path) -> list[list[str]]:
    # the csv module reads every cell as text: no "NA"/"nan" guessing as pandas would do
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == [str(i) for i in range(10)]
    return rows[1:]


@pytest.mark.skipif(not GENERATIONS.is_dir(), reason=f"upstream human groups not found at {GENERATIONS}")
@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_reproduces_published_average_ead(name):
    groups = read_groups(GENERATIONS / name)
    assert len(groups) == 91 and all(len(g) == 10 for g in groups)
    assert all(cell.strip() for g in groups for cell in g), "an empty cell would be a missing caption"
    assert average_ead(groups) == pytest.approx(PUBLISHED[name], abs=1e-12, rel=0)


captions = st.text(alphabet=st.sampled_from(list("ab .\n\x00xyZ")), max_size=30)
groups_strategy = st.lists(st.lists(captions, min_size=1, max_size=6), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(groups=groups_strategy, max_n=st.integers(1, 6), vocab_size=st.integers(2, 50000))
def test_matches_plain_loop(groups, max_n, vocab_size):
    expected = np.minimum(reference_average_ead(groups, vocab_size, max_n), 1.0)  # each group capped at 1
    np.testing.assert_allclose(group_eads(groups, vocab_size=vocab_size, max_n=max_n), expected, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(group=st.lists(captions, min_size=1, max_size=8), data=st.data())
def test_group_ead_is_unchanged_by_reordering_captions(group, data):
    shuffled = data.draw(st.permutations(group))
    assert group_eads([shuffled])[0] == pytest.approx(group_eads([group])[0], abs=1e-15)


def test_chunked_scoring_equals_one_pass(monkeypatch):
    groups = [[f"w{i % 7} w{i % 5} x.", f"w{i % 3} y"] for i in range(50)]
    whole = group_eads(groups)
    monkeypatch.setattr("nycc_bench.scoring.ead._CHUNK_CAPTIONS", 7)
    np.testing.assert_array_equal(group_eads(groups), whole)


def test_tokenization_rule():
    assert tokenize("Mr. Tell's  bow\nand arrow.") == ["Mr", "Tell's", "bowand", "arrow"]
    assert tokenize("...") == []


def test_no_ngram_scores_zero_and_counts_in_the_mean():
    # one unigram: EAD_1 = 1/(V·(1 − (V − 1)/V)) = 1 up to rounding; orders 2..5 have C = 0 and score 0
    assert group_eads([["a"]])[0] == pytest.approx(0.2, abs=1e-11)
    assert average_ead([[""], ["a"]]) == pytest.approx(0.1, abs=1e-11)


def test_distinct_ead_pools_unigrams_over_the_corpus():
    v = 32000
    expected = 3 / (v * (1 - ((v - 1) / v) ** 4))
    assert distinct_ead([["a b"], ["a c"]]) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ([["fine", None]], r"groups\[0\]\[1\] \(group 0, caption position 1\) is missing"),
        ([["fine"], ["x", float("nan")]], r"groups\[1\]\[1\].*missing"),
        ([["fine"], []], r"groups\[1\] is an empty group"),
        ([], r"groups is empty"),
        ("a caption", r"groups must be a list"),
        ([["fine", 3]], r"groups\[0\]\[1\] = 3 is a int"),
    ],
)
def test_bad_groups_raise(groups, message):
    with pytest.raises(ValueError, match=message):
        average_ead(groups)


@pytest.mark.parametrize(("kwargs", "name"), [({"vocab_size": 1}, "vocab_size"), ({"max_n": 0}, "max_n")])
def test_bad_settings_raise(kwargs, name):
    with pytest.raises(ValueError, match=name):
        average_ead([["a b"]], **kwargs)


def test_distinct_ead_is_capped_at_one():
    # two distinct words: N/E = 1/(1 − 1/(2V)) = 1.0000156 uncapped; an all-distinct corpus scores 1
    assert distinct_ead([["two words"]]) == 1.0
    assert distinct_ead([["a a"]]) == pytest.approx(1 / (32000 * (1 - (31999 / 32000) ** 2)))


def test_average_ead_is_capped_at_one():
    # the reference code lets a group whose n-grams are all distinct score above 1 (random letters scored 1.0006);
    # each group is capped at 1 here. Real groups repeat words: the shared data's human groups peak at 0.992, so
    # no published figure changes.
    assert average_ead([["a b c d e f"]], max_n=1) == 1.0
    assert average_ead([["a b c d e f"], ["a a"]], max_n=1) == pytest.approx((1 + float(ead(1, 2))) / 2)


@pytest.mark.parametrize(
    ("groups", "message"),
    [([["ok", "bad\udc80"]], r"groups\[0\]\[1\] holds a lone surrogate"), ([("a", "b"), "ab"], r"groups\[1\] must")],
)
def test_bad_text_raises_naming_the_position(groups, message):
    with pytest.raises(ValueError, match=message):
        average_ead(groups)
    with pytest.raises(ValueError, match=message):
        distinct_ead(groups)


@pytest.mark.parametrize(("kwargs", "name"), [({"vocab_size": 10**30}, "vocab_size"), ({"max_n": 10**9}, "max_n"),
                                              ({"vocab_size": 3.0}, "vocab_size"), ({"max_n": True}, "max_n")])
def test_out_of_range_settings_raise(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name} = "):
        average_ead([["a b"]], **kwargs)
