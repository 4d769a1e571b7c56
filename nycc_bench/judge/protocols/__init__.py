"""Judge protocols: job builders and entry points; their versioned prompt templates are files in ``..prompts``."""

from __future__ import annotations

from collections.abc import Sequence

from ...llm.chat import ChatRequest
from ...llm.config import LLMConfig
from ...llm.engine import LLMEngine

ENGINE_CAN_OMIT_MAX_TOKENS: bool = "None" in str(ChatRequest.__dataclass_fields__["max_tokens"].type)
"""Whether :class:`ChatRequest` accepts ``max_tokens=None`` (not sent, the API's default). Until the engine
does, protocols whose upstream leaves ``max_tokens`` unset send their fallback cap and say so in their
settings' deviations."""


def resolve_prompt_version(judge: LLMConfig | LLMEngine, known: Sequence[str]) -> str:
    """The prompt version to use: the config's pinned one (it must be in ``known``) or ``known[0]``."""
    config = judge.config if isinstance(judge, LLMEngine) else judge
    if config.prompt_version is None:
        return known[0]
    if config.prompt_version not in known:
        raise ValueError(
            f"prompt_version {config.prompt_version!r} is not one of this protocol's versions {list(known)}"
        )
    return config.prompt_version


def judge_config(judge: LLMConfig | LLMEngine) -> LLMConfig:
    """The config of a config or an engine."""
    return judge.config if isinstance(judge, LLMEngine) else judge


def unset_max_tokens(fallback: int) -> int | None:
    """``max_tokens`` for a protocol whose upstream sends none: None (left unset) where the engine can omit
    it, else ``fallback``."""
    return None if ENGINE_CAN_OMIT_MAX_TOKENS else fallback
