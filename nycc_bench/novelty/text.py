"""Caption normalisation, character shingles and exact Jaccard: the one definition of "the same caption"."""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # scipy is imported where a matrix is made (0.2 CPU s a run that makes none)
    from scipy import sparse

# Apostrophes vanish so that "don't", "don’t" and "dont" agree; every other punctuation mark and symbol becomes a
# space so that "well...I" and "well, I" agree.
APOSTROPHES = frozenset("'’‘ʼ`´")
NORMALISATION = ("unicode NFKC, casefold, apostrophes (' ’ ‘ ʼ ` ´) removed, every other punctuation or symbol "
                 "character (Unicode categories P* and S*) replaced by a space, whitespace (line breaks included) "
                 "collapsed to one space, ends stripped")


def _is_gap(char: str) -> bool:
    """True for a character that separates words after normalisation (punctuation, symbols)."""
    return unicodedata.category(char)[0] in "PS"


def normalise(text: str) -> str:
    """The comparison form of a caption (see NORMALISATION).

    >>> normalise("  “Don’t\\nPANIC,” he said... ")
    'dont panic he said'
    >>> normalise("ﬁne—really!") == normalise("FINE really")
    True
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join("" if c in APOSTROPHES else " " if _is_gap(c) else c for c in text)
    return " ".join(text.split())


@functools.cache
def as_ascii(char: str) -> str | None:
    """What `normalise` makes of one non-ASCII character among ASCII text, when that is ASCII text and the same
    wherever the character stands (else None): "…" is three gaps, "’" vanishes, "ﬁ" is "fi", "Ａ" is "a".

    Its NFKC form must hold no combining mark (nothing then composes with a neighbour, so NFKC of the text is the
    characters' NFKC side by side); casefold works character by character; the apostrophe, gap and whitespace
    rules are per character and a gap or whitespace becomes one space (runs of them collapse alike).

    >>> [as_ascii(c) for c in "…’ﬁＡé\u00b4"]
    ['   ', '', 'fi', 'a', None, None]
    """
    form = unicodedata.normalize("NFKC", char)
    if any(unicodedata.combining(c) or unicodedata.category(c)[0] == "M" for c in char + form):
        return None
    out = "".join("" if c in APOSTROPHES else " " if _is_gap(c) or c.isspace() else c for c in form.casefold())
    return out if out.isascii() else None


@functools.cache
def _ascii_table() -> tuple[np.ndarray, tuple[int, ...]]:
    """Per ASCII byte, what `normalise` makes of it among ASCII text (`as_ascii`: lowercased, a space for a gap
    or whitespace); and the bytes it drops (the ASCII apostrophes), which the table leaves as they are."""
    forms = [as_ascii(chr(b)) for b in range(128)]
    table = np.array([ord(f or chr(b)) for b, f in enumerate(forms)] + [0] * 128, dtype=np.uint8)
    return table, tuple(b for b, f in enumerate(forms) if f == "")


def _without(data: np.ndarray, offsets: np.ndarray, drop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bytes not dropped, and the strings' offsets after dropping them (each less the drops before it)."""
    return data[~drop], offsets - np.searchsorted(np.flatnonzero(drop), offsets).astype(offsets.dtype)


def ascii_normalise(texts: Any) -> Any:
    """`normalise` of ASCII texts (a pyarrow string array without nulls) on the array's bytes: each byte mapped
    by a table (`as_ascii`), apostrophes dropped, then every space that starts its string or follows a space,
    then a space left at the end of a string (runs collapsed, ends stripped); offsets shifted by what was dropped.

    >>> import pyarrow as pa
    >>> ascii_normalise(pa.array(["  Don't\\nPANIC, he_said... ", "", "!!", "a ' b"])).to_pylist()
    ['dont panic he said', '', '', 'a b']
    """
    import pyarrow as pa

    texts = texts.cast(pa.string())
    n = len(texts)
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32, count=n + 1, offset=4 * texts.offset).copy()
    data = np.zeros(0, dtype=np.uint8)
    if offsets[-1] > offsets[0]:
        data = np.frombuffer(texts.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    offsets -= offsets[0]
    table, dropped = _ascii_table()
    apostrophe = np.zeros(len(data), dtype=bool)
    for byte in dropped:
        apostrophe |= data == byte
    data, offsets = _without(table.take(data), offsets, apostrophe)
    space = data == 32
    repeated = np.empty(len(data), dtype=bool)  # a space after a space or at the start of its string
    repeated[:1] = True
    repeated[1:] = space[:-1]
    repeated[offsets[:-1][offsets[:-1] < offsets[1:]]] = True
    data, offsets = _without(data, offsets, repeated & space)
    ends = offsets[1:][offsets[:-1] < offsets[1:]] - 1
    trailing = ends[data[ends] == 32]  # at most one space is left at the end of a string
    if len(trailing):
        data, offsets = np.delete(data, trailing), offsets - np.searchsorted(trailing, offsets).astype(offsets.dtype)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))


def _translated(texts: Any) -> Any:
    """The texts with each non-ASCII character that `as_ascii` maps replaced by its ASCII form (one pyarrow pass
    per distinct character present)."""
    import pyarrow.compute as pc

    points = np.frombuffer("".join(texts.to_pylist()).encode("utf-32-le"), dtype=np.uint32)
    present = np.zeros(0x110000, dtype=bool)
    present[points[points > 127]] = True
    for point in np.flatnonzero(present).tolist():
        if (ascii_form := as_ascii(chr(point))) is not None:
            texts = pc.replace_substring(texts, chr(point), ascii_form)
    return texts


def normalise_array(texts: Any) -> Any:
    """`normalise` of every text of a pyarrow string array (no nulls), the same strings: `ascii_normalise` on the
    Arrow bytes of the ASCII texts (most captions) and of those made ASCII by `as_ascii` (typographic quotes,
    ellipses, dashes; pyarrow's replace kernel), `normalise` itself on the others.

    >>> import pyarrow as pa
    >>> normalise_array(pa.array(["  Don't\\nPANIC, he_said... ", "“Don’t” ﬁne", "café"])).to_pylist()
    ['dont panic he said', 'dont fine', 'café']
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
    ascii_rows = pc.string_is_ascii(texts).to_numpy(zero_copy_only=False)
    others = np.flatnonzero(~ascii_rows)
    kernel_input = texts.filter(pa.array(ascii_rows))
    made_ascii = np.zeros(len(others), dtype=bool)
    if len(others):
        translated = _translated(texts.take(pa.array(others)))
        made_ascii = pc.string_is_ascii(translated).to_numpy(zero_copy_only=False)
        kernel_input = pa.concat_arrays([kernel_input.cast(pa.string()),
                                         translated.filter(pa.array(made_ascii)).cast(pa.string())])
    plain = ascii_normalise(kernel_input)
    python_rows = others[~made_ascii]
    if not len(others):
        return plain.cast(pa.string())
    rest = pa.array([normalise(t) for t in texts.take(pa.array(python_rows)).to_pylist()], pa.string())
    position = np.empty(len(texts), dtype=np.int64)  # where each row's text is in plain + rest
    n_ascii = int(ascii_rows.sum())
    position[ascii_rows] = np.arange(n_ascii)
    position[others[made_ascii]] = n_ascii + np.arange(int(made_ascii.sum()))
    position[python_rows] = len(plain) + np.arange(len(python_rows))
    return pa.concat_arrays([plain.cast(pa.string()), rest]).take(pa.array(position))


def shingles(norm: str, k: int) -> frozenset[str]:
    """The set of character k-grams of a normalised caption padded with one space at each end.

    The padding lets a caption's first and last words count like the inner ones; a text shorter than k is one
    shingle.

    >>> sorted(shingles("ab c", 3))
    [' ab', ' c ', 'ab ', 'b c']
    """
    padded = f" {norm} "
    if len(padded) <= k:
        return frozenset((padded,))
    return frozenset(padded[i:i + k] for i in range(len(padded) - k + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|A ∩ B| / |A ∪ B| (1.0 for two empty sets).

    >>> jaccard(frozenset("abc"), frozenset("bcd"))
    0.5
    """
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)



def shingle_matrix(norms: Sequence[str], k: int) -> sparse.csr_matrix:
    """The 0/1 incidence matrix (texts × distinct shingles) of `shingles(norm, k)` for every text, vectorised.

    Each shingle is coded exactly from the ranks of its code points in the texts' alphabet (base A+1, the
    padding of a text shorter than k coded as 0), so two shingles share a column iff they are equal; only
    when (A+1)^k exceeds 2^64 are the codes hashed instead.
    """
    padded = [f" {n} " for n in norms]
    lengths = np.fromiter(map(len, padded), dtype=np.int64, count=len(padded))
    points = np.frombuffer("".join(padded).encode("utf-32-le"), dtype=np.uint32)
    present = np.zeros(int(points.max(initial=0)) + 1, dtype=bool)
    present[points] = True
    rank_of = np.cumsum(present, dtype=np.uint64)  # 1-based rank of each code point present; 0 is the padding
    size = int(rank_of[-1])
    ranks = np.append(rank_of[points], np.uint64(0))
    counts = np.maximum(lengths - k + 1, 1)
    text = np.repeat(np.arange(len(padded)), counts)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    position = starts[text] + np.arange(int(counts.sum())) - first[text]
    end = (starts + lengths)[text]
    exact = (size + 1) ** k < 2**64
    code = np.zeros(len(position), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):
            value = np.where(position + j < end, ranks[np.minimum(position + j, len(ranks) - 1)], np.uint64(0))
            code = code * np.uint64(size + 1 if exact else 0x100000001B3) + value
    columns, inverse = np.unique(code, return_inverse=True)
    from scipy import sparse

    matrix = sparse.csr_matrix((np.ones(len(code), dtype=np.int32), (text, inverse.ravel())),
                               shape=(len(padded), len(columns)))
    matrix.sum_duplicates()
    matrix.data[:] = 1  # a shingle repeated in one text counts once
    return matrix


def jaccard_matrix(queries: Sequence[str], others: Sequence[str], k: int) -> np.ndarray:
    """Exact Jaccard of `shingles(q, k)` and `shingles(o, k)` for every normalised query and other text.

    One sparse product of incidence matrices (scipy) instead of a Python loop over pairs: a contest's
    thousands of captions are compared with its generated ones in milliseconds.

    >>> jaccard_matrix(["abc"], ["bcd", "xyz", "abc"], 1).round(3).tolist()  # the padding space is shared
    [[0.6, 0.143, 1.0]]
    """
    matrix = shingle_matrix([*queries, *others], k)
    q, o = matrix[: len(queries)], matrix[len(queries):]
    inter = (q @ o.T).toarray().astype(np.float64)
    union = np.add.outer(np.diff(q.indptr), np.diff(o.indptr)) - inter
    return inter / union
