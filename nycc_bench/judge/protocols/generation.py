"""Plain chat generation through the judge engine, for systems under test (cached, concurrent, costed).

Entry points::

    generate_chats(conversations, config, *, samples=1, prompt_version="generation-v1") -> list[dict]
        # {"index", "sample", "text", "raw", "finish_reason", "prompt_version", "error"}
    build_generation_jobs(...same arguments...) -> list[Job]

``conversations[i]`` is a list of OpenAI chat messages. ``samples`` > 1 asks the same conversation several
times as distinct cache entries (``sample_index``), for sampled generation. ``prompt_version`` names the
caller's prompt so the cache and results can be traced to it. Temperature/max tokens: the config's, else
1.0 / 1024.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...llm.chat import ChatRequest, Completion, Message
from ...llm.config import LLMConfig
from ...llm.engine import Job, LLMEngine
from . import judge_config
from .base import runner

DEFAULT_TEMPERATURE = 1.0
DEFAULT_MAX_TOKENS = 1024


def _parse(completion: Completion) -> dict[str, Any]:
    return {"text": completion.text, "finish_reason": completion.finish_reason,
            **({"texts": list(completion.texts)} if completion.texts is not None else {})}


def build_generation_jobs(
    conversations: Sequence[Sequence[Message]],
    config: LLMConfig | LLMEngine,
    *,
    samples: int = 1,
    prompt_version: str = "generation-v1",
) -> list[Job]:
    """One job per conversation and sample."""
    cfg = judge_config(config)
    temperature = DEFAULT_TEMPERATURE if cfg.temperature is None else cfg.temperature
    max_tokens = DEFAULT_MAX_TOKENS if cfg.max_tokens is None else cfg.max_tokens
    return [
        Job(
            request=ChatRequest(
                messages=tuple(dict(m) for m in conversation),
                max_tokens=max_tokens,
                temperature=temperature,
                sample_index=sample,
            ),
            parse=_parse,
            prompt_version=prompt_version,
            meta={"index": i, "sample": sample},
            failure={"text": None, "finish_reason": None},
        )
        for i, conversation in enumerate(conversations)
        for sample in range(samples)
    ]


generate_chats = runner(build_generation_jobs, "generate")
"""Generate a reply to each conversation (``samples`` times each)."""
