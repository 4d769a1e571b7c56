"""Judge backends: an OpenAI-compatible HTTP endpoint, or a local transformers causal LM."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from ..chat import ChatRequest, Completion
from ..config import LLMConfig
from ..errors import RequestFailed


class Session(Protocol):
    """A backend opened on the running event loop (cheaply: a client is opened on the first call)."""

    async def complete(self, request: ChatRequest) -> Completion:
        """One attempt at a chat completion, no retries of its own.

        Raises TransientError (retried by the engine), RequestFailed (item-level), MalformedReply (a reply
        that arrived but is unusable) or FatalJudgeError (run-level); see :mod:`nycc_bench.llm.errors`.
        """
        ...


class Backend(Protocol):
    """What the engine needs from a backend: its identity, and sessions (one per run, so runs on several
    threads or event loops never share an HTTP client)."""

    def identity(self) -> dict[str, Any]:
        """Backend, model, base URL and extra request fields: the cache key's model part (no secrets)."""
        ...

    def session(self) -> AbstractAsyncContextManager[Session]:
        """``async with backend.session() as session:`` opens it on the running loop."""
        ...


def make_backend(config: LLMConfig) -> Backend:
    """The backend ``config.backend`` names."""
    if config.backend == "openai":
        from .openai_backend import OpenAIBackend

        return OpenAIBackend(config)
    from .transformers_backend import TransformersBackend

    return TransformersBackend(config)


__all__ = ["Backend", "RequestFailed", "Session", "make_backend"]
