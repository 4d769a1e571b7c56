"""`normalise_array` (byte tables on ASCII rows and on rows `as_ascii` makes ASCII, Python on the rest) gives
`normalise`'s strings: on every code point `as_ascii` maps, on hard cases and on every real shared caption."""

from __future__ import annotations

import csv
from pathlib import Path

import pyarrow as pa
import pytest

from nycc_bench.novelty.text import as_ascii, normalise, normalise_array

SUMMARIES = (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "nextml_caption_contest_data_api"
             / "contests" / "summaries")
HARD = [
    "Stra\u00dfe", "\u0130stanbul", "e\u0301te\u0301", "\u00b4quoted\u00b4", "\u0149", "a\u00a0b", "line\u2028break",
    "nel\x85x", "\uff21\uff22\uff23\uff01", "\ufb01ne", "\u1100\u1161", "\u212a\u00c5",
    "\u2026\u2019\u201c\u201d", "\u2014dash\u2013", "zero\u200bwidth", "soft\u00adhyphen", "\u00bd cup",
    "caf\u00e9 \u2019n\u2019 r\u00e9sum\u00e9", "a\u0301", "\u1e9b\u0323", "\u03a3\u03a3 \u03c2", "\u2126hm",
    "", " ", "\t\n", "Don\u2019t \u2026 PANIC",
]


def test_every_code_point_as_ascii_maps_is_normalised_alike_in_ascii_text() -> None:
    """For each of the 1.1M code points, where `as_ascii` gives a form, the character and that form normalise
    alike between ASCII neighbours (letters, spaces, punctuation, nothing)."""
    contexts = [("a", "b"), ("x ", " y"), ("", ""), ("A.", "'s")]
    mapped = 0
    for point in range(128, 0x110000):
        if 0xD800 <= point <= 0xDFFF or (form := as_ascii(chr(point))) is None:
            continue
        mapped += 1
        for before, after in contexts:
            assert normalise(before + chr(point) + after) == normalise(before + form + after), hex(point)
    assert mapped > 1000  # the typographic marks, full-width forms, ligatures, spaces...


def test_hard_cases_row_for_row() -> None:
    """Casefolds that grow, compositions, compatibility forms, Unicode whitespace, mixed with mapped marks."""
    texts = HARD + [a + " " + b for a in HARD for b in HARD[:6]]
    assert normalise_array(pa.array(texts)).to_pylist() == [normalise(t) for t in texts]
    assert as_ascii("\u00e9") is None and as_ascii("\u00b4") is None and as_ascii("\u2019") == ""


@pytest.mark.skipif(not SUMMARIES.is_dir(), reason="../shared/data is not beside this checkout")
def test_every_shared_caption() -> None:
    """All 405k captions of the shared nextml summaries: identical strings."""
    texts: list[str] = []
    for path in sorted(SUMMARIES.glob("*.csv")):
        with path.open(newline="", encoding="utf-8") as f:
            texts += [row["caption"] for row in csv.DictReader(f) if row["caption"] is not None]
    assert len(texts) > 400_000
    assert normalise_array(pa.chunked_array([pa.array(texts)])).to_pylist() == [normalise(t) for t in texts]
