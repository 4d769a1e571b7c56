"""Shared pieces of Zhang et al.'s group-comparison prompts: ranking shots, descriptions, caption groups."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Description = str | tuple[str, str]
"""A cartoon's description: ``(canny, uncanny)`` as in Hessel et al.'s data, or one text."""

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True)
class RankingExample:
    """One in-context example: a cartoon, two captions, the funnier one's letter (Hessel ranking data)."""

    contest_number: int
    description: str
    uncanny_description: str
    caption_a: str
    caption_b: str
    label: str
    image_url: str | None = None

    def __post_init__(self) -> None:
        if self.label not in ("A", "B"):
            raise ValueError(f"label must be 'A' or 'B', got {self.label!r}")

    @classmethod
    def from_hessel_row(cls, row: Mapping[str, Any], image_url: str | None = None) -> RankingExample:
        """From a row of the Hessel ``ranking`` config (``caption_choices`` = [A, B], ``label`` a letter)."""
        choices = list(row["caption_choices"])
        if len(choices) != 2:
            raise ValueError(f"a ranking row has 2 caption choices, got {len(choices)}")
        return cls(
            contest_number=int(row["contest_number"]),
            description=str(row["image_description"]),
            uncanny_description=str(row["image_uncanny_description"]),
            caption_a=str(choices[0]),
            caption_b=str(choices[1]),
            label=str(row["label"]).strip(),
            image_url=image_url,
        )


def format_descriptions(description: Description) -> str:
    """``"<canny> and <uncanny>"`` (or the one text) exactly as upstream concatenates them, nothing stripped or
    added (``ranking/rank_more.py`` L257-267: ``"... are " + d + " and " + dud + " The two ..."``).

    >>> format_descriptions(("Two men ride horses.", "Businessmen follow soldiers."))
    'Two men ride horses. and Businessmen follow soldiers.'
    >>> format_descriptions(("A shark in a pool ", "no period"))
    'A shark in a pool  and no period'
    >>> format_descriptions("A shark in a pool")
    'A shark in a pool'
    """
    if isinstance(description, str):
        return description
    canny, uncanny = description
    return canny + " and " + uncanny


def format_group(captions: Sequence[str]) -> str:
    """A caption group as the released code writes it: ``"1.\\n<c1>\\n2.\\n<c2>..."``.

    >>> format_group(["Hi.", "Bye."])
    '1.\\nHi.\\n2.\\nBye.'
    """
    return "\n".join(f"{i}.\n{caption}" for i, caption in enumerate(captions, start=1))


def examples_phrase(n: int) -> str:
    """``"five examples"``, ``"one example"``."""
    word = NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)
    return f"{word} example" if n == 1 else f"{word} examples"
