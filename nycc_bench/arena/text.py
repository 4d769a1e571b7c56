"""How a caption is shown in the arena: one normalised form, so that quotes, spacing or a numbering left by a model
never tell a visitor which player wrote it."""

from __future__ import annotations

import re
import unicodedata

_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"', "‘": "'", "’": "'",
                         "‚": "'", "‛": "'", "`": "'", "–": "-", "—": "-", "…": "..."})
_NUMBERING = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*•])\s+")
_WRAPPING = ('"', "'")


def display_text(text: str) -> str:
    """The caption as the arena shows it: Unicode NFC, plain quotes and dashes, no list numbering, no wrapping quotes,
    single spaces.

    >>> display_text('  1. “I told you,”  he said —  twice. ')
    '"I told you," he said - twice.'
    >>> display_text('"Relax, the slideshow is insured."')
    'Relax, the slideshow is insured.'
    """
    out = unicodedata.normalize("NFC", str(text)).translate(_QUOTES)
    out = " ".join(_NUMBERING.sub("", out).split())
    while len(out) >= 2 and out[0] == out[-1] and out[0] in _WRAPPING and out[0] not in out[1:-1]:
        out = out[1:-1].strip()
    return out


def length(text: str) -> int:
    """A caption's length as the length covariate counts it: characters of its displayed form."""
    return len(display_text(text))
