"""Pure reply parsers of every protocol; an unparseable reply gives the distinct value "ERROR"."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

ERROR = "ERROR"

_LETTER = re.compile(r"\b([AB])\b")
_EXPLANATION = re.compile(r"<explanation>(.*?)</explanation>", re.DOTALL)
_JUDGEMENT = re.compile(r"<judgement>(.*?)</judgement>", re.DOTALL)
_REASONING = re.compile(r"<reasoning>(.*?)</reasoning>", re.DOTALL)


def parse_last_letter(text: str) -> str:
    """Best Pick (and pairwise) answer: the last standalone capital A or B on the last non-empty line.

    >>> parse_last_letter("Group A's best: ...\\nGroup B's best: ...\\nThe funnier group is B")
    'B'
    >>> parse_last_letter("Reasoning...\\n**A**\\n\\n")
    'A'
    >>> parse_last_letter("A is good.\\nI cannot decide between them.")
    'ERROR'
    >>> parse_last_letter("")
    'ERROR'
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return ERROR
    letters = _LETTER.findall(lines[-1])
    return letters[-1] if letters else ERROR


def parse_explanation(text: str) -> str:
    """HumorBench explainer reply: the text inside the first ``<explanation>…</explanation>``, else the whole
    reply; stripped.

    >>> parse_explanation("Sure! <explanation> The octopus thinks the barista is a rival. </explanation>")
    'The octopus thinks the barista is a rival.'
    >>> parse_explanation("  No tags here.  ")
    'No tags here.'
    """
    match = _EXPLANATION.search(text)
    return (match.group(1) if match else text).strip()


def parse_judgement(text: str) -> str:
    """HumorBench autograder verdict: the text inside the first ``<judgement>…</judgement>`` (British spelling),
    stripped; exactly ``PASS`` or ``FAIL``, anything else ``ERROR``.

    >>> parse_judgement("<reasoning>Covers the pun.</reasoning>\\n<judgement> PASS </judgement>")
    'PASS'
    >>> parse_judgement("<judgement>FAIL</judgement>")
    'FAIL'
    >>> parse_judgement("<judgement>pass</judgement>")
    'ERROR'
    >>> parse_judgement("<judgment>PASS</judgment>")
    'ERROR'
    >>> parse_judgement("PASS")
    'ERROR'
    """
    match = _JUDGEMENT.search(text)
    if match is None:
        return ERROR
    verdict = match.group(1).strip()
    return verdict if verdict in ("PASS", "FAIL") else ERROR


def parse_reasoning(text: str) -> str | None:
    """The autograder's ``<reasoning>…</reasoning>`` text, stripped, or None.

    >>> parse_reasoning("<reasoning> It names the pun. </reasoning><judgement>PASS</judgement>")
    'It names the pun.'
    """
    match = _REASONING.search(text)
    return match.group(1).strip() if match else None


def answer_logprobs(
    top_logprobs: Iterable[tuple[str, float]] | None, exact: Mapping[str, float] | None = None
) -> tuple[float | None, float | None, tuple[str, ...]]:
    """log p("A"), log p("B") at the first answer position, and which of them were missing.

    ``exact`` (read from the logits by a local backend) wins. Otherwise each letter's value is the highest
    logprob among returned tokens equal to it after stripping whitespace (``"A"``, ``" A"``). A letter
    absent from ``top_logprobs`` gets the lowest returned logprob: its true value is at most that, so it is an
    upper bound, and the letter is listed as missing. Nothing returned: (None, None, ("A", "B")).

    >>> answer_logprobs([("A", -0.1), ("B", -2.5), ("The", -4.0)])
    (-0.1, -2.5, ())
    >>> answer_logprobs([("A", -0.01), ("Group", -5.0)])
    (-0.01, -5.0, ('B',))
    >>> answer_logprobs([("A", -3.0)], exact={"A": -0.2, "B": -1.7})
    (-0.2, -1.7, ())
    """
    if exact and "A" in exact and "B" in exact:
        return float(exact["A"]), float(exact["B"]), ()
    pairs = list(top_logprobs or [])
    if not pairs:
        return None, None, ("A", "B")
    floor = min(lp for _, lp in pairs)
    values: dict[str, float] = {}
    for token, logprob in pairs:
        letter = token.strip()
        if letter in ("A", "B") and logprob > values.get(letter, float("-inf")):
            values[letter] = logprob
    missing = tuple(letter for letter in ("A", "B") if letter not in values)
    return values.get("A", floor), values.get("B", floor), missing


def overall_delta(
    top_logprobs: Iterable[tuple[str, float]] | None, exact: Mapping[str, float] | None = None
) -> tuple[float | None, tuple[str, ...]]:
    """Overall protocol: Δ = log p("A") − log p("B") and the letters that were missing (see
    :func:`answer_logprobs`). Δ is None — an ERROR — when neither letter was returned: then it says
    nothing about the judge's preference.

    >>> overall_delta([("A", -0.5), ("B", -1.5)])
    (1.0, ())
    >>> overall_delta([("B", -0.25), ("A", -4.25)])
    (-4.0, ())
    >>> overall_delta([("Group", -0.1), ("The", -3.0)])
    (None, ('A', 'B'))
    """
    log_a, log_b, missing = answer_logprobs(top_logprobs, exact)
    if log_a is None or log_b is None or len(missing) == 2:
        return None, missing
    return log_a - log_b, missing
