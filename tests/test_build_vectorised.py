"""The vectorised per-run checks of the caption_ratings build equal their Python definitions."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from nycc_bench.builders.zhang2024 import caption_flags, caption_multiset_key

CAPTIONS = st.lists(st.text("ab \n’😀", max_size=4), max_size=12)


@settings(max_examples=150, deadline=None)
@given(CAPTIONS, st.integers(0, 3), st.integers(1, 4))
def test_repeated_texts_are_the_later_rows_of_a_text(captions: list[str], skip: int, chunks: int) -> None:
    """`is_duplicate_text` is True exactly on a text's second and later rows (chunked and sliced input too)."""
    size = max(1, len(captions) // chunks)
    chunked = pa.chunked_array([pa.array(captions[i:i + size], pa.string()) for i in range(0, len(captions), size)],
                               pa.string())
    seen: set[str] = set()
    expected = [text in seen or seen.add(text) is not None for text in captions]
    assert caption_flags(chunked)["is_duplicate_text"].to_pylist() == expected
    sliced = pa.array(["x"] * skip + captions, pa.string()).slice(skip)
    assert caption_flags(sliced)["is_duplicate_text"].to_pylist() == expected


@settings(max_examples=150, deadline=None)
@given(CAPTIONS, CAPTIONS, st.randoms())
def test_multiset_key_is_equal_iff_the_sorted_captions_are(a: list[str], b: list[str], rng) -> None:
    shuffled = list(a)
    rng.shuffle(shuffled)
    assert caption_multiset_key(pa.array(a, pa.string())) == caption_multiset_key(
        pa.chunked_array([pa.array(shuffled, pa.string())]))
    assert (caption_multiset_key(pa.array(a, pa.string())) == caption_multiset_key(pa.array(b, pa.string()))) == (
        sorted(a) == sorted(b))
