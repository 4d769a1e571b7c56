"""Zhang et al. 2024 "Best Pick" group comparison: pick each group's funniest caption, then the funnier group.

Two forms, both from appendix B.2 and the authors' released code (github.com/yguooo/cartoon-caption-generation,
Apache-2.0; prompts reproduced as facts of the protocol):

* vision (``image_url`` given, the paper's Best Pick judge, GPT-4o with the cartoon, ``ranking/rank_more.py``):
  system "...Your job is to find the funniest caption.", 5 shots with their cartoons, each shot one user
  message (task text on the first, image, captions) and shots 2–5 opening with "Another example,". Version
  ``zhang2024-best-pick-v2`` writes a shot's captions as the code does, "A: <a>, B: <b>. The answer is" (the
  paper prints no comma; ``zhang2024-best-pick-v1`` can be pinned for that).
* text (descriptions only, ``ranking/rank.py``'s description setting): the Overall conversation of
  :mod:`.overall` with its last message replaced by the Best Pick instruction.

How a reply is read (``rule=``; :func:`default_rule` picks upstream's rule for each form):

* ``exact_letter`` (vision default): the whole reply, unstripped, must be "A" or "B" (upstream compares the
  reply with the label, ``content == label``, so ``" B\n"`` is a non-letter reply); any other reply is a
  non-letter reply.
* ``last_char`` (text default): the reply's last character, if A or B (upstream's ``content[-1]``).
* ``last_letter`` (this project's former rule): the last standalone A/B on the last line, else ERROR.

Under the two upstream rules a non-letter reply is never a win and stays in the denominator, as in upstream's
``compute_accuracy``: its record has ``answer`` None, ``nonletter`` True and ``verdict`` = the letter of the
other group (scored as a loss for the group at ``model_position``). Under ``last_letter`` it is an ERROR
(retried, then left out of the denominator).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...llm.chat import Completion, Message
from ..parsers import ERROR, parse_exact_letter, parse_last_char, parse_last_letter
from ..prompts import read_prompt
from . import overall
from .zhang_format import Description, RankingExample, examples_phrase, format_group

PROMPT_VERSION = "zhang2024-best-pick-v2"
KNOWN_VERSIONS: tuple[str, ...] = (PROMPT_VERSION, "zhang2024-best-pick-v1")
PAPER_MODEL = "gpt-4o"  # rank_more.py: the paper's Best Pick evaluator, with the cartoon image
TOP_LOGPROBS = 2  # rank_more.py L443-444 sends logprobs=True, top_logprobs=2 (and reads the reply's text only)
DEFAULT_TEMPERATURE = 0.0
DEFAULT_MAX_TOKENS = None  # upstream sends none (rank_more.py L360-445); the provider's default cap applies
RULES: tuple[str, ...] = ("exact_letter", "last_char", "last_letter")
EXPECTED_OUTPUT_TOKENS = 300

INSTRUCTION = read_prompt("zhang2024-best-pick.text-instruction")
VISION_SYSTEM = read_prompt("zhang2024-best-pick.vision-system")
VISION_TASK = read_prompt("zhang2024-best-pick.vision-task")
VISION_ANNOUNCE_SHOTS = read_prompt("zhang2024-best-pick.vision-announce-shots")
VISION_SHOT_FIRST = read_prompt("zhang2024-best-pick-v2.vision-shot-first")
VISION_SHOT_NEXT = read_prompt("zhang2024-best-pick-v2.vision-shot-next")
VISION_SHOT_FIRST_V1 = read_prompt("zhang2024-best-pick-v1.vision-shot-first")  # the paper's text
VISION_SHOT_NEXT_V1 = read_prompt("zhang2024-best-pick-v1.vision-shot-next")
VISION_QUERY = read_prompt("zhang2024-best-pick.vision-query")  # the instruction, then the two groups


def prompt_files(version: str, vision: bool = True) -> dict[str, str]:
    """The prompt files Best Pick sends, by template: the vision form's, or the text form's (Overall's
    conversation with the Best Pick instruction)."""
    if not vision:
        return overall.text_prompt_files(version, "zhang2024-best-pick.text-instruction")
    shots = "zhang2024-best-pick-v1" if version == "zhang2024-best-pick-v1" else "zhang2024-best-pick-v2"
    return {
        "system": "zhang2024-best-pick.vision-system", "task": "zhang2024-best-pick.vision-task",
        "announce_shots": "zhang2024-best-pick.vision-announce-shots",
        "shot_first": f"{shots}.vision-shot-first", "shot_next": f"{shots}.vision-shot-next",
        "query": "zhang2024-best-pick.vision-query",
    }


def build_messages(
    description: Description | None,
    group_a: Sequence[str],
    group_b: Sequence[str],
    shots: Sequence[RankingExample] = (),
    image_url: str | None = None,
    version: str = PROMPT_VERSION,
) -> tuple[Message, ...]:
    """The Best Pick conversation: vision form when ``image_url`` is given, else the text form."""
    if image_url is None:
        if description is None:
            raise ValueError("Best Pick needs a description or an image")
        text_version = "zhang2024-overall-v1" if version == "zhang2024-best-pick-v1" else overall.PROMPT_VERSION
        return (
            *overall.shot_messages(shots, text_version),
            overall.query_message(description, group_a, group_b),
            {"role": "user", "content": INSTRUCTION},
        )
    messages: list[Message] = [{"role": "system", "content": VISION_SYSTEM}]
    task = VISION_TASK
    if shots:
        cartoons = examples_phrase(len(shots)).replace("example", "cartoon")
        task += VISION_ANNOUNCE_SHOTS.format(cartoons=cartoons)
    else:
        task += " Answer with only one letter A or B, and nothing else."
    for i, shot in enumerate(shots):
        if shot.image_url is None:
            raise ValueError(f"vision Best Pick needs an image for every shot (contest {shot.contest_number})")
        if version == "zhang2024-best-pick-v1":
            template = VISION_SHOT_FIRST_V1 if i == 0 else VISION_SHOT_NEXT_V1
        else:
            template = VISION_SHOT_FIRST if i == 0 else VISION_SHOT_NEXT
        parts: list[dict[str, Any]] = [{"type": "text", "text": task}] if i == 0 else []
        parts.append(_image_part(shot.image_url))
        parts.append({"type": "text", "text": template.format(a=shot.caption_a, b=shot.caption_b)})
        messages.append({"role": "user", "content": parts})
        messages.append({"role": "assistant", "content": shot.label})
    query: list[dict[str, Any]] = [] if shots else [{"type": "text", "text": task}]
    query.append(_image_part(image_url))
    query.append(
        {"type": "text", "text": VISION_QUERY.format(group_a=format_group(group_a), group_b=format_group(group_b))}
    )
    messages.append({"role": "user", "content": query})
    return tuple(messages)


def _image_part(url: str) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": url, "detail": "high"}}


def default_rule(vision: bool) -> str:
    """Upstream's reading of a reply for each form: the whole reply (vision), its last character (text)."""
    return "exact_letter" if vision else "last_char"


def check_rule(rule: str | None, vision: bool) -> str:
    """The rule to use: ``rule`` or the form's default; an unknown name is an error naming the known ones."""
    if rule is None:
        return default_rule(vision)
    if rule not in RULES:
        raise ValueError(f"best_pick rule: expected one of {', '.join(RULES)}, got {rule!r}")
    return rule


def read_answer(text: str, rule: str) -> str | None:
    """The letter a reply gives under ``rule``, or None for a non-letter reply.

    >>> read_answer("A", "exact_letter"), read_answer("Funnier: A", "exact_letter")
    ('A', None)
    >>> read_answer("Funnier: A", "last_char"), read_answer("Funnier: **A**", "last_letter")
    ('A', 'A')
    """
    if rule == "exact_letter":
        return parse_exact_letter(text)
    if rule == "last_char":
        return parse_last_char(text)
    letter = parse_last_letter(text)
    return None if letter == ERROR else letter


def parse(completion: Completion, rule: str = "exact_letter", model_position: str = "A") -> dict[str, Any]:
    """Record fields: ``verdict`` (the letter scored), ``answer`` (the reply's letter or None), ``nonletter``,
    ``rule``, and the ``top_logprobs`` the request asked for as upstream did (``logprobs=True, top_logprobs=2``),
    kept but never read: the verdict comes from the reply's text alone, as upstream's. A non-letter reply scores
    as the other group's letter under the upstream rules and is ERROR under ``last_letter`` (see the module
    docstring).

    >>> parse(Completion(text="B"), "exact_letter", "A")["verdict"]
    'B'
    >>> r = parse(Completion(text="Group A is funnier."), "exact_letter", "A")
    >>> r["verdict"], r["answer"], r["nonletter"]
    ('B', None, True)
    >>> parse(Completion(text="Both are funny."), "last_letter", "A")["verdict"]
    'ERROR'
    """
    answer = read_answer(completion.text, rule)
    if answer is not None:
        verdict = answer
    elif rule == "last_letter":
        verdict = ERROR
    else:
        verdict = "B" if model_position == "A" else "A"
    return {"verdict": verdict, "answer": answer, "nonletter": answer is None, "delta_logprob": None, "rule": rule,
            "top_logprobs": [[token, logprob] for token, logprob in (completion.top_logprobs or ())]}
