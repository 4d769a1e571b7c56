"""The two values every backend speaks: a chat request and its completion."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]
UNSET_MAX_TOKENS = 1024  # what a local backend generates, and a dry run budgets, when a request leaves it unset
"""An OpenAI chat message: ``{"role": ..., "content": str | list of content parts}``."""


@dataclass(frozen=True)
class ChatRequest:
    """One chat call. ``top_logprobs`` > 0 asks for the first positions' alternatives.

    ``logprob_tokens`` are strings whose log-probability at the first answer position a backend that can
    read logits (transformers) reports exactly; an API backend reports what ``top_logprobs`` returns.
    ``max_tokens`` None is left out of the request (a local backend caps it at ``UNSET_MAX_TOKENS``).
    ``sample_index`` distinguishes repeated samples of the same prompt in the cache; it is not sent.
    """

    messages: tuple[Message, ...]
    max_tokens: int | None  # None: not sent, the API's default (upstream sends none for some protocols)
    temperature: float | None
    top_logprobs: int = 0
    logprob_tokens: tuple[str, ...] = ()
    sample_index: int = 0
    logprobs_required: bool = True  # False: asked for (as upstream asks) but not read; a reply without them is kept
    n: int = 1  # generations of the prompt in this one call (the API's `n`); the reply's texts are `Completion.texts`
    prompts: tuple[tuple[int, ...], ...] = ()  # token-id prompts to score instead of messages: the completions
    # endpoint with echo and logprobs, one choice per prompt (`Completion.prompt_logprobs`)
    scored: tuple[int, ...] = ()  # with `prompts`: how many of each prompt's last tokens are read (the continuation)

    def key_data(self) -> dict[str, Any]:
        """Everything about the request that changes the answer (the cache key's request part)."""
        return {
            "messages": list(self.messages),
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "top_logprobs": self.top_logprobs,
            "logprob_tokens": list(self.logprob_tokens),
            "sample_index": self.sample_index,
            **({"n": self.n} if self.n != 1 else {}),  # keys of requests without them stay as they were
            **({"prompts": [list(p) for p in self.prompts], "scored": list(self.scored)} if self.prompts else {}),
        }

    def text_length(self) -> int:
        """Characters of text in the messages (images are not counted)."""
        total = 0
        for message in self.messages:
            content = message.get("content")
            if isinstance(content, str):
                total += len(content)
            elif isinstance(content, list):
                total += sum(len(part.get("text", "")) for part in content if isinstance(part, dict))
        return total


@dataclass(frozen=True)
class Completion:
    """What came back: the text, the first position's top log-probabilities, token counts."""

    text: str
    top_logprobs: tuple[tuple[str, float], ...] | None = None
    token_logprobs: dict[str, float] | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None
    replaced: int = 0  # characters that could not be encoded (invalid UTF-8, lone surrogates), now U+FFFD
    system_fingerprint: str | None = None  # the served configuration, where the server reports one
    texts: tuple[str, ...] | None = None  # every generation of a request with n > 1 (`text` is the first)
    prompt_logprobs: tuple[tuple[float, ...], ...] | None = None  # per scored prompt, its last tokens' log-probs

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form stored in the cache."""
        return {
            "text": self.text,
            "top_logprobs": None if self.top_logprobs is None else [list(t) for t in self.top_logprobs],
            "token_logprobs": self.token_logprobs,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "finish_reason": self.finish_reason,
            "replaced": self.replaced,
            "system_fingerprint": self.system_fingerprint,
            **({"texts": list(self.texts)} if self.texts is not None else {}),
            **({"prompt_logprobs": [list(p) for p in self.prompt_logprobs]} if self.prompt_logprobs is not None
               else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Completion:
        """Inverse of :meth:`to_dict`."""
        top = data.get("top_logprobs")
        return cls(
            text=data["text"],
            top_logprobs=None if top is None else tuple((str(t), float(lp)) for t, lp in top),
            token_logprobs=data.get("token_logprobs"),
            prompt_tokens=int(data.get("prompt_tokens") or 0),
            completion_tokens=int(data.get("completion_tokens") or 0),
            finish_reason=data.get("finish_reason"),
            replaced=int(data.get("replaced") or 0),
            system_fingerprint=data.get("system_fingerprint"),
            texts=None if data.get("texts") is None else tuple(str(t) for t in data["texts"]),
            prompt_logprobs=None if data.get("prompt_logprobs") is None
            else tuple(tuple(float(x) for x in p) for p in data["prompt_logprobs"]),
        )


LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def clean_text(text: str) -> tuple[str, int]:
    r"""``text`` with every lone surrogate (which no UTF-8 file or SQLite text can hold) replaced by U+FFFD, and
    how many were replaced.

    >>> clean_text("ok\ud800!")
    ('ok\ufffd!', 1)
    """
    return LONE_SURROGATE.subn(REPLACEMENT, text)


def decode_utf8(data: bytes) -> tuple[str, int]:
    r"""``data`` decoded as UTF-8 with each invalid byte sequence replaced by U+FFFD, and how many were.

    >>> decode_utf8(b"caf\xc3\xa9 \xff!")
    ('café \ufffd!', 1)
    """
    parts: list[str] = []
    count = start = 0
    while True:
        try:
            parts.append(data[start:].decode("utf-8"))
            return "".join(parts), count
        except UnicodeDecodeError as err:
            parts.append(data[start:start + err.start].decode("utf-8") + REPLACEMENT)
            count += 1
            start += err.end
