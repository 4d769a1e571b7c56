"""The novelty index written chunk by chunk: the same files, byte for byte, as the whole-corpus build, whatever the
chunk size; alphabets it cannot code exactly fall back to the whole-corpus build."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from nycc_bench.novelty.index import Settings, write_arrays_whole, write_index
from nycc_bench.novelty.streaming import write_arrays
from nycc_bench.novelty.text import normalise

FILES = ("band_keys.npy", "band_ids.npy", "shingle_vocab.npy", "shingle_indptr.npy", "shingle_ids.npy")
SETTINGS = Settings()


def _captions(n: int, seed: int) -> list[str]:
    """Original caption-like texts: repeated words (shared shingles), short ones (under a shingle), blanks, and
    characters outside ASCII, so chunks meet new and known shingles alike."""
    rng = np.random.default_rng(seed)
    words = ["tax", "lawyer", "fish", "caf\u00e9", "na\u00efve", "\u00fcber", "ok", "a", "boat", "moon", "x",
             "\u65e5\u672c", "don\u2019t", "r\u00e9sum\u00e9", "zz", "umbrella", "lighthouse"]
    out = []
    for i in range(n):
        if i % 97 == 0:
            out.append("" if i % 2 else "a")
            continue
        out.append(" ".join(rng.choice(words, size=int(rng.integers(1, 9))).tolist()))
    return [normalise(t) for t in out]


def _whole(norms: list[str], folder: Path) -> Path:
    folder.mkdir()
    write_arrays_whole(norms, SETTINGS, folder)
    return folder


@pytest.mark.parametrize("chunk", [1, 7, 250, 5000])
def test_chunked_index_files_equal_the_whole_corpus_build(tmp_path: Path, chunk: int) -> None:
    """Every array file of the chunked build is byte-identical to the whole-corpus build's (what was written
    before), for one caption per chunk up to one chunk in all."""
    norms = _captions(1200, 3)
    whole = _whole(norms, tmp_path / "whole")
    chunked = tmp_path / "chunked"
    chunked.mkdir()
    assert write_arrays(pa.chunked_array([pa.array(norms[:500]), pa.array(norms[500:])]), SETTINGS.shingle_size,
                        SETTINGS.num_perm, SETTINGS.bands, SETTINGS.rows, chunked, chunk=chunk)
    for name in FILES:
        assert (chunked / name).read_bytes() == (whole / name).read_bytes(), name
    assert sorted(p.name for p in chunked.iterdir()) == sorted(FILES)  # no scratch file left behind


def test_a_nul_falls_back_to_the_whole_corpus_build(tmp_path: Path) -> None:
    """A NUL (the chunk separator) cannot be coded exactly: nothing is written and `write_index` builds the
    index the whole-corpus way, the same files."""
    norms = ["plain text", "with a \x00 nul", "another one"]
    folder = tmp_path / "chunked"
    folder.mkdir()
    assert not write_arrays(pa.array(norms), 4, 128, SETTINGS.bands, SETTINGS.rows, folder)
    assert not list(folder.iterdir())
    table = pa.table({"norm": norms})
    write_index(table, SETTINGS, tmp_path / "index", {})
    whole = _whole(norms, tmp_path / "whole")
    for name in FILES:
        assert (tmp_path / "index" / name).read_bytes() == (whole / name).read_bytes(), name


def test_the_alphabet_of_ascii_chunks_is_counted_on_their_bytes(tmp_path: Path) -> None:
    """The code points present: counted on the bytes of an ASCII chunk (a slice, empty strings and a NUL
    included), through Python strings for the others, the same set either way; an all-ASCII corpus gives the
    whole-corpus build's files."""
    from nycc_bench.novelty.shingling import _code_points
    from nycc_bench.novelty.streaming import _present

    norms = _captions(600, 5)
    ascii_rows = [t for t in norms if t.isascii()] + ["", "with a \x00 nul"]
    parts = pa.chunked_array([pa.array(["skipped", *ascii_rows]).slice(1), pa.array(norms), pa.array([""])])
    expected = np.zeros(0x110000, dtype=bool)
    expected[_code_points(parts.to_pylist(), 1)[0]] = True
    assert np.array_equal(_present(parts, 64), expected)
    assert not _present(pa.chunked_array([], pa.string()), 64).any()
    ascii_only = [t for t in norms if t.isascii()]
    whole = _whole(ascii_only, tmp_path / "whole")
    (tmp_path / "chunked").mkdir()
    assert write_arrays(pa.chunked_array([pa.array(ascii_only[:100]), pa.array(ascii_only[100:])]),
                        SETTINGS.shingle_size, SETTINGS.num_perm, SETTINGS.bands, SETTINGS.rows, tmp_path / "chunked",
                        chunk=64)
    for name in FILES:
        assert (tmp_path / "chunked" / name).read_bytes() == (whole / name).read_bytes(), name
