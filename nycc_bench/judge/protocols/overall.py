"""Zhang et al. 2024 "Overall" group comparison: 5-shot text judge, answer read from first-token log-probs.

Prompt: appendix B.2 of the paper ("An example of Overall Comparison"), wording reproduced from the paper.
Where the paper is silent the authors' released code (``ranking/rank.py``) decides: shots 2–5 open with
"Another example," instead of "For example,"; captions of a group are numbered ``"1.\\n<caption>\\n2.\\n..."``;
the two groups are separated by a newline; the descriptions are joined as ``"<canny> and <uncanny>"`` with a
full stop added only when the uncanny description lacks one (the paper shows one, the code relies on the
description's own). The zero-shot variant (no shots given) drops the sentence announcing the examples.

The answer is never parsed from text: Δ = log p("A") − log p("B") at the first answer position
(``top_logprobs`` of an API; the logits of a local model). A letter missing from ``top_logprobs`` gets the
lowest returned logprob, an upper bound of its true value, and is listed in the record's
``logprob_missing``; with both letters missing the judgment is ERROR. The verdict stays None: the decision
(A iff Δ > 3.003349167, the paper's recalibration against A-bias) is ``nycc_bench.scoring.recalibrate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..chat import Completion, Message
from ..parsers import ERROR, overall_delta
from .zhang_format import Description, RankingExample, examples_phrase, format_descriptions, format_group

PROMPT_VERSION = "zhang2024-overall-v1"
KNOWN_VERSIONS: tuple[str, ...] = (PROMPT_VERSION,)
DEFAULT_TEMPERATURE = 0.0
DEFAULT_MAX_TOKENS = 1

SYSTEM = "You are a judge for the new yorker cartoon caption contest."
TASK = (
    "In this task, you will see two description for a cartoon. Then, you will see two captions that were "
    "written about the cartoon. Then you will choose which captions is funnier."
)
ANNOUNCE_SHOTS = " I am going to give you {examples} first and you answer the last example with either A or B."
SHOT_FIRST = "For example, the descriptions for the images are {descriptions} The two captions are A: {a} B: {b}"
SHOT_NEXT = "Another example, the descriptions for the images are {descriptions} The two captions are A: {a} B: {b}"
SHOT_ANSWER = "The caption that is funnier is {label}"
QUERY = (
    "The descriptions for the images are {descriptions} The two groups of captions are group A: {group_a}\n"
    "group B: {group_b}"
)
INSTRUCTION = "Choose the group of captions that is funnier. Answer with only one letter A or B, and nothing else."


def shot_messages(shots: Sequence[RankingExample]) -> list[Message]:
    """The system prompt, task statement and in-context examples shared by the text group prompts."""
    intro = TASK + (ANNOUNCE_SHOTS.format(examples=examples_phrase(len(shots))) if shots else "")
    messages: list[Message] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": intro}]
    for i, shot in enumerate(shots):
        template = SHOT_FIRST if i == 0 else SHOT_NEXT
        descriptions = format_descriptions((shot.description, shot.uncanny_description))
        messages.append(
            {"role": "user", "content": template.format(descriptions=descriptions, a=shot.caption_a, b=shot.caption_b)}
        )
        messages.append({"role": "assistant", "content": SHOT_ANSWER.format(label=shot.label)})
    return messages


def query_message(description: Description, group_a: Sequence[str], group_b: Sequence[str]) -> Message:
    """The message presenting the two caption groups."""
    text = QUERY.format(
        descriptions=format_descriptions(description), group_a=format_group(group_a), group_b=format_group(group_b)
    )
    return {"role": "user", "content": text}


def build_messages(
    description: Description,
    group_a: Sequence[str],
    group_b: Sequence[str],
    shots: Sequence[RankingExample] = (),
) -> tuple[Message, ...]:
    """The full Overall conversation for one ordered pair of groups."""
    return (
        *shot_messages(shots),
        query_message(description, group_a, group_b),
        {"role": "user", "content": INSTRUCTION},
    )


def parse(completion: Completion) -> dict[str, Any]:
    """Record fields: ``delta_logprob``, the returned ``top_logprobs`` and ``logprob_missing``; verdict None,
    or ERROR when neither letter came back."""
    delta, missing = overall_delta(completion.top_logprobs, completion.token_logprobs)
    top = [[token, logprob] for token, logprob in (completion.top_logprobs or ())]
    return {
        "verdict": ERROR if delta is None else None,
        "delta_logprob": delta,
        "logprob_missing": list(missing),
        "top_logprobs": top,
    }
