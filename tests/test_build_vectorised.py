"""The vectorised per-run checks of the caption_ratings build equal their Python definitions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from nycc_bench.builders.errors import SourceError
from nycc_bench.builders.nextml import _quotes, _rating_fault, _ratings_valid, _repeats, stable_rank, stable_sorted
from nycc_bench.builders.zhang2024 import (
    _repeated_codes,
    _repeated_texts,
    caption_flags,
    caption_multiset_key,
    one_array,
    repeated_rows,
    repeated_text,
)

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


ROWS = st.lists(st.tuples(st.sampled_from(["a", "b", "a\n", " ", ""]), st.sampled_from([1.5, 2.0]),
                          st.integers(0, 2)), max_size=14)


@settings(max_examples=150, deadline=None)
@given(ROWS)
def test_repeated_rows_and_line_breaks_equal_their_definitions(rows: list[tuple[str, float, int]]) -> None:
    """`is_repeated_row` (compared only among rows whose text repeats) is True exactly on a row equal to an earlier
    one in every rating column; `has_line_break` and `is_empty_text` equal their definitions."""
    table = pa.table({"caption": [r[0] for r in rows], "mean": [r[1] for r in rows], "precision": [0.1] * len(rows),
                      "votes": [r[2] for r in rows], "funny": [0] * len(rows), "somewhat_funny": [0] * len(rows),
                      "unfunny": [r[2] for r in rows]},
                     schema=pa.schema([("caption", pa.string()), ("mean", pa.float64()), ("precision", pa.float64()),
                                       ("votes", pa.int64()), ("funny", pa.int64()), ("somewhat_funny", pa.int64()),
                                       ("unfunny", pa.int64())]))
    seen: set[tuple] = set()
    expected = [row in seen or seen.add(row) is not None for row in rows]
    flags = caption_flags(table["caption"])
    assert repeated_rows(table).to_pylist() == expected
    assert repeated_rows(table, flags["is_duplicate_text"]).to_pylist() == expected
    assert flags["has_line_break"].to_pylist() == [("\n" in r[0]) for r in rows]
    assert flags["is_empty_text"].to_pylist() == [r[0].strip() == "" for r in rows]


@given(st.lists(st.integers(-3, 40), max_size=30), st.booleans())
def test_repeated_ids_are_found_in_any_range(ids: list[int], spread: bool) -> None:
    """A repeated target_id is found whether the ids span a small range (counted) or a wide one (sorted)."""
    values = np.array([i * (10**9 if spread else 1) for i in ids], dtype=np.int64)
    assert _repeats(values) == (len(set(ids)) < len(ids))
    assert _repeats(values.astype(np.float64)) == (len(set(ids)) < len(ids))


COUNT = st.integers(-2, 6)
RATING_ROWS = st.lists(st.tuples(COUNT, COUNT, COUNT, st.integers(-1, 2), st.sampled_from([0.1, 0.0, -0.2, np.nan,
                                                                                             np.inf]),
                                 st.sampled_from([1.0, 2.5, 3.0, 0.9, 3.1, np.nan, -np.inf])), min_size=1,
                       max_size=8)


@settings(max_examples=300, deadline=None)
@given(RATING_ROWS, st.booleans())
def test_the_ratings_pass_the_fast_check_iff_no_fault_is_named(rows: list[tuple], api: bool) -> None:
    """`_ratings_valid` (reductions) is True exactly when `_rating_fault` (the masks that name the row) finds
    nothing: NaN, infinity, negatives and miscounted votes are all caught by the fast check."""
    funny, somewhat, unfunny, extra = (np.array([r[i] for r in rows], dtype=np.int64) for i in range(4))
    votes = funny + somewhat + unfunny + extra
    precision, mean = (np.array([r[i] for r in rows], dtype=np.float64) for i in (4, 5))
    arrays = (votes, funny, somewhat, unfunny, precision, mean)
    try:
        _rating_fault(Path("x.csv"), api, *arrays)
        named = False
    except SourceError:
        named = True
    assert _ratings_valid(api, *arrays) is not named


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text("a\t\n\r\x0b\x0c\x1f é’😀", max_size=5), max_size=12), st.integers(0, 3))
def test_line_breaks_are_found_among_other_control_bytes(captions: list[str], skip: int) -> None:
    """`has_line_break` is True exactly on captions holding \\n or \\r, whatever other low bytes are near them."""
    sliced = pa.array(["\n"] * skip + captions, pa.string()).slice(skip)
    assert caption_flags(sliced)["has_line_break"].to_pylist() == [("\n" in c or "\r" in c) for c in captions]


def test_one_array_keeps_a_lone_chunk_without_copying() -> None:
    """A one-chunk column is used as it is (no copy of every caption); several chunks are joined in order."""
    array = pa.array(["a", "bc"], pa.string())
    assert one_array(pa.chunked_array([array])).buffers()[2].address == array.buffers()[2].address
    assert one_array(pa.chunked_array([array, array])).to_pylist() == ["a", "bc", "a", "bc"]
    assert one_array(pa.chunked_array([], pa.string())).to_pylist() == []
    assert one_array(array) is array


@given(st.binary(max_size=300), st.integers(1, 70))
def test_quotes_are_counted_across_slices(data: bytes, chunk: int) -> None:
    """The quote count that tells a truncated file is bytes.count's, whatever the slice size."""
    assert _quotes(data, chunk) == data.count(b'"')


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([1.0, 1.5, 2.0, 2.5, 3.0]), max_size=12), st.booleans(), st.integers(1, 3))
def test_stable_sorted_is_the_stable_sort_in_take_s_layout(means: list[float], presorted: bool, chunks: int) -> None:
    """`stable_sorted` gives `stable_rank`'s order (ties in file order) in one chunk per column, whether the file
    was already in that order (kept as read) or not (taken), with the buffers `take` gives (so the card's
    in-memory sizes are the same either way)."""
    if presorted:
        means = sorted(means, reverse=True)
    size = max(1, len(means) // chunks)
    schema = pa.schema([("mean", pa.float64()), ("row", pa.int64()), ("caption", pa.string()),
                        ("target_id", pa.int64())])

    def part(i: int) -> pa.Table:
        rows = list(range(i, min(i + size, len(means))))
        return pa.table([pa.array(means[i:i + size], pa.float64()), pa.array(rows, pa.int64()),
                         pa.array([f"caption {r}" * (r % 3) for r in rows], pa.string()),
                         pa.nulls(len(rows), pa.int64())], schema=schema)

    table = pa.concat_tables([part(i) for i in range(0, len(means), size)] or [schema.empty_table()])
    result = stable_sorted(table)
    order = stable_rank(np.array(means, dtype=np.float64))
    assert result["row"].to_pylist() == order.tolist()
    taken = table.take(pa.array(order, pa.int64()))
    assert result.equals(taken) and result.nbytes == taken.nbytes
    for ours, theirs in zip(result.columns, taken.columns, strict=True):
        assert ours.num_chunks == theirs.num_chunks == 1
        assert [b and b.size for b in ours.chunk(0).buffers()] == [b and b.size for b in theirs.chunk(0).buffers()]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(" a.\t\n\x1c\x85\xa0\u2003\u3000é😀~\x7f", max_size=4), max_size=14), st.integers(0, 3))
def test_blank_captions_equal_arrow_s_whitespace_test(captions: list[str], skip: int) -> None:
    """`is_empty_text`, which asks Arrow only about captions not starting with printable ASCII, equals Arrow's
    whitespace test over every caption (empty, or Unicode whitespace only: tabs, NBSP, ideographic spaces)."""
    sliced = pa.array(["x"] * skip + captions, pa.string()).slice(skip)
    whole = pa.array(captions, pa.string())
    expected = pc.or_(pc.equal(pc.binary_length(whole), 0), pc.utf8_is_space(whole)).to_pylist()
    assert caption_flags(sliced)["is_empty_text"].to_pylist() == expected
    assert caption_flags(pa.chunked_array([whole]))["is_empty_text"].to_pylist() == expected
    assert expected == [c.strip() == "" or all(ch.isspace() for ch in c) for c in captions]


@given(st.text("ab/_é😀", max_size=6), st.integers(0, 20))
def test_repeated_text_is_pa_repeat(value: str, n: int) -> None:
    """A run's repeated texts have `pa.repeat`'s values and buffers (so the card's in-memory sizes are the same)."""
    ours, theirs = repeated_text(value, n), pa.repeat(value, n)
    assert ours.equals(theirs) and ours.nbytes == theirs.nbytes and ours.null_count == 0
    assert [b and b.size for b in ours.buffers()] == [b and b.size for b in theirs.buffers()]
    ours.validate(full=True)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("ab’", min_size=0, max_size=40), max_size=30), st.integers(0, 9))
def test_repeated_texts_by_keys_equal_the_definition_for_long_texts(captions: list[str], skip: int) -> None:
    """`is_duplicate_text` by 64-bit keys (length, first, middle and last 8 bytes) equals its definition for texts
    longer than a key's bytes, sharing prefixes and suffixes, at any byte alignment of the text buffer, and equals
    Arrow's hash (`_repeated_codes`)."""
    seen: set[str] = set()
    expected = [text in seen or seen.add(text) is not None for text in captions]
    sliced = pa.array(["x" * skip] * skip + captions, pa.string()).slice(skip)
    assert _repeated_texts(sliced).to_pylist() == expected
    assert _repeated_codes(pa.array(captions, pa.string())).to_pylist() == expected
