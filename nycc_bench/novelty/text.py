"""Caption normalisation, character shingles and exact Jaccard: the one definition of "the same caption"."""

from __future__ import annotations

import unicodedata

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
