"""The judge prompt templates, one ``.txt`` file each (see README.md here for each file's protocol and source).

A judge is configuration + prompt file + parser: the protocol modules read their templates with
:func:`read_prompt`, so a prompt can be read, diffed and hashed as a file. The text comes back byte for byte
(UTF-8, no stripping, no newline translation), so each template's ``prompt_sha256`` is its file's sha256.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ...errors import NyccBenchError

PROMPTS_DIR = Path(__file__).resolve().parent


def prompt_names() -> list[str]:
    """The names :func:`read_prompt` accepts (the ``.txt`` files here, without the suffix), sorted."""
    return sorted(path.stem for path in PROMPTS_DIR.glob("*.txt"))


@cache
def read_prompt(name: str) -> str:
    """The template ``<name>.txt`` exactly as stored (cached); an unknown name is an error listing the known ones.

    >>> read_prompt("zhang2024-overall.shot-answer")
    'The caption that is funnier is {label}'
    """
    path = PROMPTS_DIR / f"{name}.txt"
    if "/" in name or "\\" in name or not path.is_file():
        raise NyccBenchError(
            f"judge prompt {name!r}: no file {path.name} in {PROMPTS_DIR}; known: {', '.join(prompt_names())}"
        )
    return path.read_bytes().decode("utf-8")
