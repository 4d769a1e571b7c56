"""Zhang et al. 2024 "Best Pick" group comparison: pick each group's funniest caption, then the funnier group.

Two forms, both from appendix B.2:

* vision (``image_url`` given, the paper's Best Pick judge, GPT-4o with the cartoon): the paper's Best Pick
  prompt, system "...Your job is to find the funniest caption.", 5 shots with their cartoons. As in the
  released code each shot is one user message (task text on the first, image, captions) and shots 2–5 open
  with "Another example," where the paper says only "repeat".
* text (descriptions only, as the released code's description setting): the Overall conversation of
  :mod:`.overall` with its last message replaced by the Best Pick instruction.

The answer is the last A/B on the last line of the reply (:func:`nycc_bench.judge.parsers.parse_last_letter`),
else ERROR.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..chat import Completion, Message
from ..parsers import parse_last_letter
from . import overall
from .zhang_format import Description, RankingExample, examples_phrase, format_group

PROMPT_VERSION = "zhang2024-best-pick-v1"
KNOWN_VERSIONS: tuple[str, ...] = (PROMPT_VERSION,)
DEFAULT_TEMPERATURE = 0.0
DEFAULT_MAX_TOKENS = 1024
EXPECTED_OUTPUT_TOKENS = 300

INSTRUCTION = (
    "Find the funniest caption for each group. Then choose the funnier group based on these funniest "
    "captions. Think step by step but finish the last line of your answer with only one letter A or B, and "
    "nothing else."
)
VISION_SYSTEM = "You are a judge for the new yorker cartoon caption contest. Your job is to find the funniest caption."
VISION_TASK = (
    "In this task, you will see a cartoon first and two captions that were written about it then. The task is "
    "to choose which caption is funnier."
)
VISION_ANNOUNCE_SHOTS = (
    " I am going to show you {cartoons}, corresponding captions and their answers first. In the end, for the "
    "last cartoon, answer with only one letter A or B, and nothing else."
)
VISION_SHOT_FIRST = "For this example, the two captions are A: {a} B: {b}. The answer is"
VISION_SHOT_NEXT = "Another example, the two captions are A: {a} B: {b}. The answer is"
VISION_QUERY = INSTRUCTION + " A: {group_a} or B: {group_b}"


def build_messages(
    description: Description | None,
    group_a: Sequence[str],
    group_b: Sequence[str],
    shots: Sequence[RankingExample] = (),
    image_url: str | None = None,
) -> tuple[Message, ...]:
    """The Best Pick conversation: vision form when ``image_url`` is given, else the text form."""
    if image_url is None:
        if description is None:
            raise ValueError("Best Pick needs a description or an image")
        return (
            *overall.shot_messages(shots),
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


def parse(completion: Completion) -> dict[str, Any]:
    """Record fields: ``verdict`` = the picked group's letter (or ERROR); no log-probabilities."""
    return {"verdict": parse_last_letter(completion.text), "delta_logprob": None}
