"""Zhang et al. 2024 "Overall" group comparison: 5-shot text judge, answer read from first-token log-probs.

Prompt: appendix B.2 of the paper ("An example of Overall Comparison"). Where the paper and the authors'
released code (``ranking/rank.py``, ``ranking/rank_more.py``, github.com/yguooo/cartoon-caption-generation)
differ in a character, the code wins, since it produced the published numbers (version
``zhang2024-overall-v2``): the task statement ends "...with either A or B" with no full stop; shots 2–5 open
with "Another example,"; captions of a group are numbered ``"1.\\n<caption>\\n2.\\n..."``; the two groups
are separated by a newline; the descriptions are joined raw as ``"<canny> and <uncanny>"`` (nothing stripped
or added, ``rank_more.py`` L257-267). ``zhang2024-overall-v1`` (the paper's full stop) can be pinned.
The zero-shot variant (no shots given) drops the sentence announcing the examples. Prompts reproduced from
the paper and the code as facts of the protocol (the released code is Apache-2.0).

The answer is never parsed from text. Rules (``rule=``):

* ``zhang_top2`` (default, upstream): ask ``top_logprobs=2`` at temperature 0 and read Δ from the first
  output token's two top log-probs as upstream's ``recalibrate`` does
  (:func:`nycc_bench.judge.parsers.zhang_top2_delta`); never an ERROR unless fewer than two came back.
* ``letters_topk`` (this project's former rule): ask ``config.top_logprobs`` (20) and take each letter's own
  log-prob, the lowest returned one standing in for a missing letter
  (:func:`nycc_bench.judge.parsers.overall_delta`); both letters missing is an ERROR.

The verdict stays None: the decision (A iff Δ > 3.003349167, the paper's recalibration against A-bias) is
``nycc_bench.scoring.recalibrate``, applied to the 2N order-flipped judgments alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...llm.chat import Completion, Message
from ..parsers import ERROR, overall_delta, zhang_top2_delta
from ..prompts import read_prompt
from .zhang_format import Description, RankingExample, examples_phrase, format_descriptions, format_group

PROMPT_VERSION = "zhang2024-overall-v2"
KNOWN_VERSIONS: tuple[str, ...] = (PROMPT_VERSION, "zhang2024-overall-v1")
PAPER_MODEL = "gpt-4-turbo"  # rank_more.py; the paper's Table 2/3 Overall evaluator
DEFAULT_TEMPERATURE = 0.0
DEFAULT_MAX_TOKENS = 1  # upstream leaves it unset; only the first token's log-probs are read, which it cannot change
RULES: tuple[str, ...] = ("zhang_top2", "letters_topk")
DEFAULT_RULE = "zhang_top2"
UPSTREAM_TOP_LOGPROBS = 2

TEXT_PROMPT_FILES = {
    "system": "zhang2024-overall.system", "task": "zhang2024-overall.task",
    "announce_shots": "zhang2024-overall-v2.announce-shots", "shot_first": "zhang2024-overall.shot-first",
    "shot_next": "zhang2024-overall.shot-next", "shot_answer": "zhang2024-overall.shot-answer",
    "query": "zhang2024-overall.query",
}
"""The prompt files of Zhang's text conversation (Overall, and Best Pick's text form), by template."""

SYSTEM = read_prompt("zhang2024-overall.system")
TASK = read_prompt("zhang2024-overall.task")
ANNOUNCE_SHOTS = read_prompt("zhang2024-overall-v2.announce-shots")
ANNOUNCE_SHOTS_V1 = read_prompt("zhang2024-overall-v1.announce-shots")  # the paper's text: a full stop added
SHOT_FIRST = read_prompt("zhang2024-overall.shot-first")
SHOT_NEXT = read_prompt("zhang2024-overall.shot-next")
SHOT_ANSWER = read_prompt("zhang2024-overall.shot-answer")
QUERY = read_prompt("zhang2024-overall.query")
INSTRUCTION = read_prompt("zhang2024-overall.instruction")


def text_prompt_files(version: str, instruction: str) -> dict[str, str]:
    """The text conversation's prompt files for ``version`` (a ``-v1`` version announces the shots with the
    paper's full stop), ending with ``instruction``."""
    announce = {"announce_shots": "zhang2024-overall-v1.announce-shots"} if version.endswith("-v1") else {}
    return {**TEXT_PROMPT_FILES, **announce, "instruction": instruction}


def prompt_files(version: str, vision: bool = True) -> dict[str, str]:
    """The prompt files Overall sends, by template (it is a text judge: ``vision`` changes nothing)."""
    return text_prompt_files(version, "zhang2024-overall.instruction")


def shot_messages(shots: Sequence[RankingExample], version: str = PROMPT_VERSION) -> list[Message]:
    """The system prompt, task statement and in-context examples shared by the text group prompts."""
    announce = ANNOUNCE_SHOTS_V1 if version == "zhang2024-overall-v1" else ANNOUNCE_SHOTS
    intro = TASK + (announce.format(examples=examples_phrase(len(shots))) if shots else "")
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
    version: str = PROMPT_VERSION,
) -> tuple[Message, ...]:
    """The full Overall conversation for one ordered pair of groups."""
    return (
        *shot_messages(shots, version),
        query_message(description, group_a, group_b),
        {"role": "user", "content": INSTRUCTION},
    )


def check_rule(rule: str | None) -> str:
    """The rule to use: ``rule`` or the default; an unknown name is an error naming the known ones."""
    if rule is None:
        return DEFAULT_RULE
    if rule not in RULES:
        raise ValueError(f"overall rule: expected one of {', '.join(RULES)}, got {rule!r}")
    return rule


def request_top_logprobs(rule: str, configured: int) -> int:
    """How many alternatives to ask for: upstream's 2, or the config's (at least 1) for ``letters_topk``."""
    return UPSTREAM_TOP_LOGPROBS if rule == "zhang_top2" else max(configured, 1)


def parse(completion: Completion, rule: str = DEFAULT_RULE) -> dict[str, Any]:
    """Record fields: ``delta_logprob`` by ``rule``, the returned ``top_logprobs``, ``logprob_missing`` and
    ``rule``; verdict None (recalibrated by the scorer), or ERROR when the rule cannot read a Δ."""
    top = [[token, logprob] for token, logprob in (completion.top_logprobs or ())]
    if rule == "zhang_top2":
        delta = zhang_top2_delta(completion.top_logprobs)
        letters = {str(token) for token, _ in top[:2]}
        missing: tuple[str, ...] = tuple(letter for letter in ("A", "B") if letter not in letters)
    else:
        delta, missing = overall_delta(completion.top_logprobs, completion.token_logprobs)
    return {
        "verdict": ERROR if delta is None else None,
        "delta_logprob": delta,
        "logprob_missing": list(missing),
        "top_logprobs": top,
        "rule": rule,
    }
