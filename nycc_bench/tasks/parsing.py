"""Pure parsers of system outputs, by name; an unparseable output is None, recorded and counted, never a default."""

from __future__ import annotations

import re

_ANSWER = re.compile(r"answer\s*(?:is|:)?\s*[:\-]?\s*\**\(?([A-Z])\b\)?", re.IGNORECASE)
_LEADING = re.compile(r"^\s*\**\(?([A-Z])\)?\**\s*(?:[).:\-]|$)")
_NUMBERED = re.compile(r"^\s*(?:\d{1,2}\s*[.):]|[-*•])\s*(.+)$")
_QUOTED = re.compile(r"^[\"“](.+?)[\"”]")


def parse_choice(text: str | None, letters: str) -> str | None:
    """The letter a reply chose, or None when it names none of `letters` unambiguously.

    >>> parse_choice("Answer: C", "ABCDE")
    'C'
    >>> parse_choice("I think the answer is (b).", "AB")
    'B'
    >>> parse_choice("C) Honey, the goldfish wants a word.", "ABCDE")
    'C'
    >>> parse_choice(" D ", "ABCDE")
    'D'
    >>> parse_choice("Answer: F", "ABCDE") is None
    True
    >>> parse_choice("Both captions are funny.", "AB") is None
    True
    """
    if not text:
        return None
    matches = [m.upper() for m in _ANSWER.findall(text)]
    if matches:
        return matches[-1] if matches[-1] in letters else None
    for line in text.strip().splitlines()[:1]:
        if (m := _LEADING.match(line)) and m.group(1) in letters:
            return m.group(1)
    return None


def parse_captions(text: str | None, n: int = 10) -> list[str]:
    """Up to `n` captions from a numbered or bulleted list, without their explanations.

    Each item's caption is its quoted text when it starts with a quote, else the text before an
    "Explanation" marker or a " - " separator.

    >>> parse_captions('1. "I said decaf." - The barista is a bear.\\n2. Not again. Explanation: it is Monday.')
    ['I said decaf.', 'Not again.']
    >>> parse_captions("no list here")
    []
    """
    out: list[str] = []
    for line in (text or "").splitlines():
        m = _NUMBERED.match(line)
        if not m:
            continue
        item = m.group(1).strip().replace("**", "")
        item = re.sub(r"^(?:caption\s*\d*\s*:)\s*", "", item, flags=re.IGNORECASE)
        if q := _QUOTED.match(item):
            caption = q.group(1)
        else:
            caption = re.split(r"\s*(?:\(?explanation\b|\s-\s|\s—\s)", item, maxsplit=1, flags=re.IGNORECASE)[0]
        caption = caption.strip().strip('"“”')
        if caption and not caption.lower().startswith("explanation"):
            out.append(caption)
        if len(out) == n:
            break
    return out


def parse_text(text: str | None) -> str | None:
    """A free-text answer, stripped; None when empty."""
    return str(text).strip() or None if text is not None else None


def _explanation(text: str | None) -> str | None:
    """HumorBench's explainer reply as upstream grades it (see `judge.parsers.parse_explanation`)."""
    from ..judge.parsers import parse_explanation

    return (parse_explanation(text) or None) if text is not None else None


# name (a task file's `parser:`) -> function of (raw text, the instance's letters)
PARSERS = {
    "choice": lambda raw, letters: parse_choice(raw, letters),
    "captions": lambda raw, letters: parse_captions(raw) or None,
    "text": lambda raw, letters: parse_text(raw),
    "explanation": lambda raw, letters: _explanation(raw),
}
