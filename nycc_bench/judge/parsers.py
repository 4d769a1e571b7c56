"""Pure reply parsers of every protocol; an unparseable reply gives the distinct value "ERROR"."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

ERROR = "ERROR"

_LETTER = re.compile(r"\b([AB])\b")
_EXPLANATION = re.compile(r"<explanation>(.*?)</explanation>", re.DOTALL)
_JUDGEMENT = re.compile(r"<judgement>(.*?)</judgement>", re.DOTALL)
_REASONING = re.compile(r"<reasoning>(.*?)</reasoning>", re.DOTALL)
_REASONING_BLOCK = re.compile(r"<reasoning>.*?</reasoning>", re.DOTALL)


def parse_last_letter(text: str) -> str:
    """The last standalone capital A or B on the last non-empty line (the explanation pairwise judge, and
    Best Pick's ``last_letter`` rule, this project's former lenient reading).

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
    """HumorBench explainer reply -> the explanation that is graded, as upstream's ``ExplainerClient.parse_response``
    does for a text reply (Humor-Bench ``explainer.py``, cc99276): every ``<reasoning>…</reasoning>`` block is
    removed first, then the text inside the FIRST ``<explanation>…</explanation>`` is kept, else the whole
    (reasoning-free) reply; stripped. Nothing is truncated.

    >>> parse_explanation("Sure! <explanation> The octopus thinks the barista is a rival. </explanation>")
    'The octopus thinks the barista is a rival.'
    >>> parse_explanation("  No tags here.  ")
    'No tags here.'
    >>> parse_explanation("<explanation>first</explanation> and <explanation>second</explanation>")
    'first'
    >>> parse_explanation("<reasoning><explanation>draft</explanation></reasoning><explanation>final</explanation>")
    'final'
    >>> parse_explanation("<reasoning>thinking...</reasoning>\\nThe pun is on 'bark'. ")
    "The pun is on 'bark'."
    >>> parse_explanation("<explanation>never closed")
    '<explanation>never closed'
    """
    text = _REASONING_BLOCK.sub("", text)
    match = _EXPLANATION.search(text)
    return (match.group(1) if match else text).strip()


def parse_exact_letter(text: str) -> str | None:
    """Zhang Best Pick (vision form, ``ranking/rank_more.py`` L449 with ``rank.py`` ``compute_accuracy`` L17):
    the reply counts only when the whole reply, nothing stripped, is one letter A or B (upstream compares
    ``content == label``); any other reply (reasoning, "**A**", "A.", " B\\n") is None, a non-letter reply.

    >>> parse_exact_letter("A"), parse_exact_letter("B")
    ('A', 'B')
    >>> parse_exact_letter(" B\\n") is None
    True
    >>> parse_exact_letter("Group A's best caption is funnier.\\nA") is None
    True
    >>> parse_exact_letter("A.") is None, parse_exact_letter("a") is None, parse_exact_letter("") is None
    (True, True, True)
    """
    return text if text in ("A", "B") else None


def parse_last_char(text: str) -> str | None:
    """Zhang Best Pick, text form (``ranking/rank.py`` with descriptions): the reply's last character when it
    is A or B (nothing stripped, as upstream reads ``content[-1]``), else None.

    >>> parse_last_char("Step by step... so the answer is\\nB")
    'B'
    >>> parse_last_char("The answer is A.") is None, parse_last_char("A\\n") is None, parse_last_char("") is None
    (True, True, True)
    """
    return text[-1] if text and text[-1] in ("A", "B") else None


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


def zhang_top2_delta(top_logprobs: Sequence[tuple[str, float]] | None) -> float | None:
    """Zhang Overall: Δ = log p(A) − log p(B) exactly as upstream's ``recalibrate`` reads the first output
    token's two top log-probs (``ranking/rank.py``, ``top_logprobs=2``), in the order the API returned them.

    If the first entry's token is exactly ``"A"``, Δ = logprob[0] − logprob[1], whatever the second token is;
    otherwise the second entry is taken as A and the first as B: Δ = logprob[1] − logprob[0], whatever the
    tokens are (so B first, another token first, or " A" first all give Δ ≤ 0). Entries past the second are
    ignored. Fewer than two entries: None (upstream would crash; here an ERROR judgment). The verdict is then
    "A" iff Δ > 3.003349167 (``nycc_bench.scoring.recalibrate``).

    >>> zhang_top2_delta([("A", -0.5), ("B", -1.5)])
    1.0
    >>> zhang_top2_delta([("B", -0.25), ("A", -4.25)])
    -4.0
    >>> zhang_top2_delta([("A", -0.25), ("Group", -5.25)])   # B absent: the second token stands in for B
    5.0
    >>> zhang_top2_delta([("B", -0.25), ("Group", -2.25)])     # A absent: the second token stands in for A
    -2.0
    >>> zhang_top2_delta([("Group", -0.5), ("B", -1.0)])     # neither first: Δ ≤ 0, a B verdict
    -0.5
    >>> zhang_top2_delta([("A", -0.7), ("B", -0.7)])
    0.0
    >>> zhang_top2_delta([("A", -0.1)]) is None
    True
    """
    pairs = list(top_logprobs or [])
    if len(pairs) < 2:
        return None
    (first, first_lp), (_, second_lp) = pairs[0], pairs[1]
    log_a, log_b = (first_lp, second_lp) if first == "A" else (second_lp, first_lp)
    return float(log_a) - float(log_b)


PARSERS: dict[str, Callable[..., Any]] = {
    "zhang_top2": zhang_top2_delta,
    "letters_topk": overall_delta,
    "exact_letter": parse_exact_letter,
    "last_char": parse_last_char,
    "last_letter": parse_last_letter,
    "judgement_pass_fail": parse_judgement,
    "first_explanation_block": parse_explanation,
}
"""The named reply parsers: a protocol lists the names it reads replies with, a judge configuration picks one."""
