"""Is this text a caption (or an explanation) at all? The offline judges ask before they score, so random letters,
byte garbage, a copy of the prompt or of the description, one word repeated, an empty or far too long text and
another language than the task's English lose every comparison and fail every element, with the reason recorded.

Each check is measured on the shared data (6,056 real captions, 80 drawn from each of the 77 NEXT contests; the
600 explanations of HumorBench's rubric files) against generated nonsense (`nycc-bench judges stress` runs the same
kinds of case on any judge). All checks together flag 8 of the 6,056 real captions (0.13%: two digit-only ratings,
one symbol string, five with rare long words) and none of the 600 explanations, and catch 299/300 random consonant
strings, 292/300 random letter strings (the misses: three or four words of two to four letters), 100/100 byte
strings and 8/8 lines in French, German, Spanish, Italian, Portuguese, Dutch, Chinese and Russian:

- ``not_words``: word pieces per word in the judge's own encoder tokenizer (MiniLM's English WordPiece vocabulary):
  real captions median 1.0, 99th percentile 1.7; random consonants or letters 1st percentile 2.5 and 2.0. Invented
  strings break into many pieces, real words, names and slang mostly do not. Flags three or more words whose mean
  is >= 2.2 and median >= 2.
- ``other_language``: langdetect (Google's language-detection profiles, offline, seeded) gives P(English) below
  0.05 for every foreign line tried, but also for about 1% of real (short, slangy) captions, so it is asked only
  when fewer than 20% of the words are English function words (scikit-learn's stop-word list) and the words
  fragment like foreign ones (>= 1.3 pieces per word); text mostly in a non-Latin script is flagged at once.
- The encoder's distance to real captions was measured too and is not used: a classifier on MiniLM embeddings
  (real captions against cartoon descriptions and explanation sentences) and the cosine to the nearest real
  captions both leave news sentences and recipe lines inside the real captions' spread (a recipe line sits at
  cosine 0.38-0.43 to its nearest captions; real captions' 1st percentile is 0.28), so they flag real captions
  before they flag those. Fluent text that is not a caption (a news sentence, a recipe line) is left to the
  judge's own score; the tests hold the offline judges to ranking it below every human group.
- The rest are character and word rules: ``empty`` (no letter), ``not_text`` (control characters, U+FFFD, or
  under 50% letters among the non-space characters, a run of one symbol counted once), ``repeated`` (one word four
  or more times and nothing else, or six or more words with at most a quarter distinct), ``too_long`` (more words
  than any real one: captions at most 60, the longest of the 6,056 has 48; explanations at most 1,500), ``copy``
  (the whole text, or at least 60% of its word trigrams, found in the description, the caption explained or one of
  the package's prompt files).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

REASONS = {
    "empty": "no letters at all",
    "not_text": "not text (control characters or mostly symbols)",
    "too_long": "far longer than any real one",
    "repeated": "one word repeated",
    "not_words": "not words (random letters)",
    "other_language": "not English",
    "copy": "a copy of the prompt, the description or the caption",
}
"""Each reason a text is not a caption / an explanation -> what it means (the record counts them by key)."""
MAX_WORDS = {"caption": 60, "explanation": 1500}
MAX_PIECES_PER_WORD = 2.2
FOREIGN_PIECES_PER_WORD = 1.3
MIN_ENGLISH_PROBABILITY = 0.05
MIN_LETTER_SHARE = 0.5
MAX_FOREIGN_STOPWORDS = 0.2
COPY_SHARE = 0.6
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_PROMPT_DIRS = ("tasks", "judge")


@dataclass(frozen=True)
class Flag:
    """Why a text was judged not a caption / not an explanation: a `REASONS` key and the measured value."""

    reason: str
    detail: str

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}"

    def to_dict(self) -> dict[str, str]:
        """As the record keeps it."""
        return {"reason": self.reason, "detail": self.detail}


def words(text: str) -> list[str]:
    """The text's words (letters, with an inner apostrophe), lower-cased.

    >>> words("Don't look, Phil -- it's 3 o'clock!")
    ["don't", 'look', 'phil', "it's", "o'clock"]
    """
    return [w.lower() for w in _WORD.findall(text)]


def _trigrams(tokens: Sequence[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + 3]) for i in range(len(tokens) - 2)}


@cache
def prompt_references() -> tuple[str, ...]:
    """The text of every prompt file the package sends (task and judge prompts): a reply copying one is no answer."""
    root = Path(__file__).parent
    files = sorted(p for d in _PROMPT_DIRS for p in (root / d).rglob("*.txt") if "LICENSE" not in p.name)
    return tuple(p.read_text(encoding="utf-8", errors="replace") for p in files)


@lru_cache(maxsize=4096)
def _reference(ref: str) -> tuple[str, frozenset[tuple[str, ...]]] | None:
    """A reference's words joined and its trigrams, worked out once per text (the prompt files are references of
    every text checked, and a run checks thousands), None when it has no word."""
    theirs = words(ref)
    return (" ".join(theirs), frozenset(_trigrams(theirs))) if theirs else None


def _is_copy(tokens: list[str], references: Iterable[str]) -> bool:
    """Whether the words are a copy of one reference: the same words, or >= COPY_SHARE of their trigrams in it."""
    mine = _trigrams(tokens)
    joined = " ".join(tokens)
    for ref in references:
        if (found := _reference(ref)) is None:
            continue
        whole, theirs = found
        if joined == whole or (len(tokens) >= 5 and f" {joined} " in f" {whole} "):
            return True
        if len(mine) >= 3 and len(mine & theirs) >= COPY_SHARE * len(mine):
            return True
    return False


def _letter_share(text: str) -> float:
    visible = [c for c in re.sub(r"(\W)\1+", r"\1", text) if not c.isspace()]  # "......" counts once
    return sum(c.isalpha() for c in visible) / len(visible) if visible else 0.0


def _latin_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum("LATIN" in unicodedata.name(c, "") for c in letters) / len(letters) if letters else 1.0


def english_probability(text: str) -> float:
    """langdetect's P(English) of the text (seeded, so the same text always gets the same answer)."""
    from langdetect import DetectorFactory, detect_langs
    from langdetect.lang_detect_exception import LangDetectException

    DetectorFactory.seed = 0
    try:
        return next((float(lang.prob) for lang in detect_langs(text) if lang.lang == "en"), 0.0)
    except LangDetectException:
        return 0.0


def piece_counts(tokens: list[str], tokenizer: Any) -> list[int]:
    """Word pieces of each ASCII word in the tokenizer's vocabulary (1: a known word)."""
    return [len(tokenizer.tokenize(w.replace("'", ""))) for w in tokens if w.isascii()]


def stopword_share(tokens: list[str]) -> float:
    """The share of the words that are English function words (scikit-learn's English stop-word list)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return sum(w.split("'")[0] in ENGLISH_STOP_WORDS for w in tokens) / max(1, len(tokens))


def check_text(text: str, kind: str = "caption", references: Iterable[str] = (), tokenizer: Any = None) -> Flag | None:
    """Why `text` is not a `kind` ("caption" or "explanation"), or None when it passes every check (module doc);
    `references` are the texts it must not copy (the description, the caption explained), besides the prompt
    files; `tokenizer` (the judge encoder's) enables the `not_words` check."""
    if kind not in MAX_WORDS:
        raise ValueError(f"kind must be one of {tuple(MAX_WORDS)}, got {kind!r}")
    if not isinstance(text, str) or not any(c.isalpha() for c in text):
        return Flag("empty", "no letter in the text")
    if "\ufffd" in text or any(unicodedata.category(c) == "Cc" and c not in "\n\r\t" for c in text):
        return Flag("not_text", "control characters or undecodable bytes")
    if (share := _letter_share(text)) < MIN_LETTER_SHARE:
        return Flag("not_text", f"{share:.0%} of the characters are letters")
    tokens = words(text)
    if len(tokens) > MAX_WORDS[kind]:
        return Flag("too_long", f"{len(tokens)} words (a {kind} here has at most {MAX_WORDS[kind]})")
    counts = Counter(tokens)
    if (len(counts) == 1 and len(tokens) >= 4) or (len(tokens) >= 6 and len(counts) <= len(tokens) / 4):
        word, n = counts.most_common(1)[0]
        return Flag("repeated", f"{word!r} {n} times in {len(tokens)} words")
    if _latin_share(text) < 0.5:
        return Flag("other_language", "mostly a non-Latin script")
    pieces = piece_counts(tokens, tokenizer) if tokenizer is not None else []
    mean = sum(pieces) / len(pieces) if pieces else 1.0
    if len(pieces) >= 3 and mean >= MAX_PIECES_PER_WORD and sorted(pieces)[len(pieces) // 2] >= 2:
        return Flag("not_words", f"{mean:.2f} word pieces per word (real {kind}s: under {MAX_PIECES_PER_WORD})")
    common = stopword_share(tokens)
    if len(tokens) >= 4 and common < MAX_FOREIGN_STOPWORDS and (tokenizer is None or mean >= FOREIGN_PIECES_PER_WORD):
        p_en = english_probability(text)
        if p_en < MIN_ENGLISH_PROBABILITY:
            return Flag("other_language", f"P(English) {p_en:.2f}, {common:.0%} English function words, "
                                          f"{mean:.2f} word pieces per word")
    if len(tokens) >= 3 and _is_copy(tokens, [*references, *prompt_references()]):
        return Flag("copy", "repeats the prompt, the description or the caption")
    return None


def check_texts(texts: Sequence[str], kind: str = "caption", references: Sequence[Iterable[str]] | None = None,
                tokenizer: Any = None) -> list[Flag | None]:
    """`check_text` of each text (`references`: one list per text, or None)."""
    refs = references if references is not None else [()] * len(texts)
    if len(refs) != len(texts):
        raise ValueError(f"references has {len(refs)} entries, expected {len(texts)} (one per text)")
    seen: dict[tuple[str, tuple[str, ...]], Flag | None] = {}
    out = []
    for text, ref in zip(texts, refs, strict=True):
        key = (text, tuple(r for r in ref if isinstance(r, str)))
        if key not in seen:
            seen[key] = check_text(text, kind, key[1], tokenizer)
        out.append(seen[key])
    return out


def flag_summary(flagged: Sequence[dict[str, str]], n: int, max_examples: int = 5) -> dict[str, Any]:
    """What the record's `details` keep of a judge's flags (`{"reason", "detail", "text"|"caption"}` each) over `n`
    judged texts: how many were flagged, by reason, and a few examples."""
    return {"n_flagged": len(flagged), "n": n,
            "reasons": dict(sorted(Counter(f["reason"] for f in flagged).items())),
            "examples": [{k: str(v)[:200] for k, v in f.items()} for f in flagged[:max_examples]]}
