"""The one place a (chat-)completions reply body is read: bytes in, a :class:`Completion` or a named reason out.

Every way a 200 reply can be unusable (not UTF-8, invalid or truncated JSON, not an object, ``choices``
missing/empty/``[null]``, no ``message`` or no ``content`` field, non-string ``content``, ``usage`` missing or
with a field that is not a non-negative integer, log-probabilities of the wrong shape or not finite) raises
:class:`MalformedReply` with a one-line reason; nothing else escapes. The only run-level verdict is a reply
with no log-probabilities at all to a request that asked for them (:class:`LogprobsUnavailableError`): that
endpoint cannot serve the protocol.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from ..chat import ChatRequest, Completion, clean_text, decode_utf8
from ..errors import LogprobsUnavailableError, MalformedReply

RAW_EXCERPT_CHARS = 300
"""How much of an unusable body a record keeps for diagnosis."""


def parse_chat_reply(
    body: bytes, request: ChatRequest, redact: Callable[[str], str], no_logprobs: Callable[[str], str]
) -> Completion:
    """The completion in a chat-completions reply ``body``, or :class:`MalformedReply` naming what is wrong.

    ``redact`` scrubs the API key from any excerpt kept; ``no_logprobs`` words the fatal missing-logprobs error.
    """
    raw = redact(body[:RAW_EXCERPT_CHARS].decode("utf-8", errors="replace"))
    replaced = 0
    try:
        text_body = body.decode("utf-8")
    except UnicodeDecodeError as exc:  # invalid bytes inside the JSON strings are replaced and counted
        not_utf8 = f"body is not UTF-8 ({exc.reason} at byte {exc.start})"
        text_body, replaced = decode_utf8(body)
    else:
        not_utf8 = None
    try:
        payload = json.loads(text_body)
    except json.JSONDecodeError as exc:
        reason = not_utf8 or f"invalid JSON ({exc.msg} at char {exc.pos} of {len(text_body)})"
        raise MalformedReply(reason, raw) from None
    if not isinstance(payload, dict):
        raise MalformedReply(f"body is JSON {type(payload).__name__}, not an object", raw)
    prompt_tokens, completion_tokens, usage_problem = _usage(payload.get("usage"))

    def malformed(reason: str) -> MalformedReply:
        return MalformedReply(reason, raw, prompt_tokens, completion_tokens)

    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices:
        raise malformed(f"choices is {_show(choices)}, not a non-empty list")
    if request.prompts:  # a completions reply: each choice's `text` read as a chat message's content
        choices = [{**c, "message": {"content": c.get("text")}} if isinstance(c, dict) and "text" in c else c
                   for c in choices]
    choice = choices[0]
    if not isinstance(choice, dict):
        raise malformed(f"choices[0] is {_show(choice)}, not an object")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise malformed(f"choices[0].message is {_show(message)}, not an object")
    if "content" not in message:
        raise malformed("choices[0].message has no content field")
    content = message["content"]
    if content is None:
        content = ""  # content null (a refusal or a tool call): empty text, the parser decides
    if not isinstance(content, str):
        raise malformed(f"choices[0].message.content is {_show(content)}, not a string")
    if usage_problem:
        raise malformed(usage_problem)
    finish = choice.get("finish_reason")
    try:
        top = _top_logprobs(choice.get("logprobs"), malformed, no_logprobs) if request.top_logprobs else None
    except LogprobsUnavailableError:
        if request.logprobs_required:
            raise
        top = None  # asked for as upstream asks, never read (Best Pick): a reply without them is still an answer
    content, lone = clean_text(content)  # a lone surrogate ("\ud800" in the JSON) cannot be written anywhere
    replaced += lone
    if top is not None:
        cleaned = [(clean_text(token), logprob) for token, logprob in top]
        replaced += sum(n for (_, n), _ in cleaned)
        top = tuple((token, logprob) for (token, _), logprob in cleaned)
    texts = _all_texts(choices, request.n, malformed) if request.n > 1 else None
    if texts is not None:
        cleaned_texts = [clean_text(t) for t in texts]
        replaced += sum(n for _, n in cleaned_texts[1:])
        texts = [t for t, _ in cleaned_texts]
        content = texts[0]
    return Completion(
        text=content,
        texts=None if texts is None else tuple(texts),
        replaced=replaced,
        top_logprobs=top,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        finish_reason=finish if isinstance(finish, str) else None,
        system_fingerprint=fingerprint if isinstance(fingerprint := payload.get("system_fingerprint"), str) else None,
    )


def _all_texts(choices: list[Any], n: int, malformed: Callable[[str], MalformedReply]) -> list[str]:
    """The texts of the `n` choices of a reply to a request with `n` > 1, in the order of their `index`."""
    if len(choices) != n:
        raise malformed(f"choices holds {len(choices)} generations, not the n={n} asked for")
    texts: dict[int, str] = {}
    for k, choice in enumerate(choices):
        message = choice.get("message") if isinstance(choice, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str | None):
            raise malformed(f"choices[{k}].message.content is {_show(content)}, not a string")
        index = choice.get("index", k) if isinstance(choice, dict) else k
        texts[index if isinstance(index, int) and not isinstance(index, bool) else k] = content or ""
    if sorted(texts) != list(range(n)):
        raise malformed(f"choices' indexes are {sorted(texts)}, not 0..{n - 1}")
    return [texts[k] for k in range(n)]


def parse_prompt_logprobs_reply(body: bytes, request: ChatRequest, redact: Callable[[str], str],
                                no_logprobs: Callable[[str], str]) -> Completion:
    """The log-probabilities of each scored prompt's last `request.scored[k]` tokens in a completions reply to
    `echo: true, logprobs` (one choice per prompt, by `index`), or :class:`MalformedReply`; a reply without
    prompt log-probabilities at all is :class:`LogprobsUnavailableError` (the endpoint cannot score)."""
    raw = redact(body[:RAW_EXCERPT_CHARS].decode("utf-8", errors="replace"))
    try:
        payload = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedReply(f"invalid JSON ({type(exc).__name__})", raw) from None
    if not isinstance(payload, dict):
        raise MalformedReply(f"body is JSON {type(payload).__name__}, not an object", raw)
    prompt_tokens, completion_tokens, _ = _usage(payload.get("usage"))
    choices = payload.get("choices")
    if not isinstance(choices, list) or len(choices) != len(request.prompts):
        raise MalformedReply(f"choices is {_show(choices)}, not one choice for each of the {len(request.prompts)} "
                             "prompts", raw, prompt_tokens, completion_tokens)
    found: dict[int, tuple[float, ...]] = {}
    for k, choice in enumerate(choices):
        index = choice.get("index", k) if isinstance(choice, dict) else k
        index = index if isinstance(index, int) and 0 <= index < len(request.prompts) else k
        logprobs = choice.get("logprobs") if isinstance(choice, dict) else None
        values = logprobs.get("token_logprobs") if isinstance(logprobs, dict) else None
        prompt = request.prompts[index]
        if not isinstance(values, list) or len(values) < len(prompt):
            have = "none" if not isinstance(values, list) else f"{len(values)} for a {len(prompt)}-token prompt"
            raise LogprobsUnavailableError(no_logprobs(f"choices[{k}].logprobs.token_logprobs: {have}"))
        tail = values[len(prompt) - request.scored[index]:len(prompt)]
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v <= 1e-6
                   for v in tail):
            raise MalformedReply(f"choices[{k}].logprobs.token_logprobs holds {_show(tail)}, not finite numbers "
                                 "≤ 0", raw, prompt_tokens, completion_tokens)
        found[index] = tuple(float(v) for v in tail)
    if len(found) != len(request.prompts):
        raise MalformedReply(f"choices' indexes are {sorted(found)}, not 0..{len(request.prompts) - 1}", raw,
                             prompt_tokens, completion_tokens)
    return Completion(text="", prompt_logprobs=tuple(found[k] for k in range(len(request.prompts))),
                      prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                      system_fingerprint=fp if isinstance(fp := payload.get("system_fingerprint"), str) else None)


def _usage(usage: Any) -> tuple[int, int, str | None]:
    """Prompt and completion tokens (0 where unreadable), and what is wrong with ``usage`` (None if nothing)."""
    if not isinstance(usage, dict):
        return 0, 0, f"usage is {_show(usage)}, not an object with token counts"
    counts: list[int] = []
    problem = None
    for name in ("prompt_tokens", "completion_tokens"):
        value = usage.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            counts.append(value)
        else:
            counts.append(0)
            problem = problem or f"usage.{name} is {_show(value)}, not a non-negative integer"
    return counts[0], counts[1], problem


def _top_logprobs(
    logprobs: Any, malformed: Callable[[str], MalformedReply], no_logprobs: Callable[[str], str]
) -> tuple[tuple[str, float], ...]:
    """The first position's (token, logprob) alternatives, the chosen token included."""
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if logprobs is None or content is None or content == []:
        raise LogprobsUnavailableError(no_logprobs("the response carries no logprobs.content"))
    if not isinstance(content, list):
        raise malformed(f"logprobs.content is {_show(content)}, not a list")
    first = content[0]
    if not isinstance(first, dict):
        raise malformed(f"logprobs.content[0] is {_show(first)}, not an object")
    chosen = _pair(first, "logprobs.content[0]", malformed)
    alternatives = first.get("top_logprobs") or []
    if not isinstance(alternatives, list):
        raise malformed(f"logprobs.content[0].top_logprobs is {_show(alternatives)}, not a list")
    pairs = [_pair(alt, f"logprobs.content[0].top_logprobs[{i}]", malformed) for i, alt in enumerate(alternatives)]
    if chosen[0] not in {token for token, _ in pairs}:
        pairs.append(chosen)
    return tuple(pairs)


def _pair(entry: Any, where: str, malformed: Callable[[str], MalformedReply]) -> tuple[str, float]:
    if not isinstance(entry, dict):
        raise malformed(f"{where} is {_show(entry)}, not an object")
    token, logprob = entry.get("token"), entry.get("logprob")
    if not isinstance(token, str):
        raise malformed(f"{where}.token is {_show(token)}, not a string")
    number = isinstance(logprob, int | float) and not isinstance(logprob, bool)
    if not number or not math.isfinite(logprob) or logprob > 1e-6:
        raise malformed(f"{where}.logprob is {_show(logprob)}, not a finite number ≤ 0")
    return token, float(logprob)


def _show(value: Any) -> str:
    """A short description of a bad value for a reason string."""
    if value is None:
        return "missing or null"
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= 40 else text[:37] + "..."
