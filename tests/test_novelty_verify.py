"""The contest-block verification counts every query's intersection exactly, whatever the rows' lengths."""

from __future__ import annotations

import numpy as np
import pytest

from nycc_bench.novelty.shingling import ShingleSets, build_shingle_sets
from nycc_bench.novelty.text import jaccard, shingles
from nycc_bench.novelty.verify import Verifier


def _words(rng: np.random.Generator, n: int) -> str:
    """n random made-up words: texts with as many distinct shingles as wanted."""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyzéü"))
    return " ".join("".join(rng.choice(letters, size=rng.integers(2, 9))) for _ in range(n))


@pytest.mark.parametrize("longest", [40, 80, 14_000], ids=["8-bit fields", "16-bit fields", "32-bit fields"])
def test_block_is_exact_for_short_long_and_empty_rows(longest: int) -> None:
    """Rows of up to `longest` words (past 255 and 65,535 shingles the fields widen), rows with no shingle between
    and at the end, and 19 queries (several groups of fields, a partial last one): every Jaccard equals `jaccard()`."""
    rng = np.random.default_rng(longest)
    texts = [_words(rng, int(n)) for n in rng.integers(1, 12, 30)] + ["", _words(rng, longest)]
    queries = [texts[i] for i in (0, 3, 7, 31)] + [_words(rng, int(n)) for n in rng.integers(1, 10, 14)] + [""]
    k = 4
    built, _ = build_shingle_sets(texts, k)
    assert built.sizes().max() >= {40: 100, 80: 256, 14_000: 65_536}[longest]
    # rows with no stored shingle (build_shingle_sets never makes one) at 5 and at the end
    indptr = np.concatenate((built.indptr[:6], built.indptr[5:], built.indptr[-1:]))
    stored = ShingleSets(built.vocab, indptr, built.ids)
    sets = [shingles(t, k) for t in texts]
    sets = [*sets[:5], frozenset(), *sets[5:], frozenset()]
    query_sets = [shingles(q, k) for q in queries]
    ids, sizes = stored.lookup(query_sets), np.array([len(s) for s in query_sets])
    expected = np.array([[jaccard(q, s) for s in sets] for q in query_sets])
    got = Verifier(stored).block(ids, sizes, 0, len(stored))
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(Verifier(stored).block(ids, sizes, 3, 31), expected[:, 3:31])
    np.testing.assert_array_equal(Verifier(stored).block(ids, sizes, 5, 6), expected[:, 5:6])
