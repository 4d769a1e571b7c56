"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, TGI, Ollama…) through the official async client."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from ..chat import ChatRequest, Completion
from ..config import JudgeConfig
from ..credentials import LOCAL_PLACEHOLDER_KEY, redact, resolve_api_key
from ..errors import FatalJudgeError, LogprobsUnavailableError
from . import RequestFailed

OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIBackend:
    """Chat completions over HTTP. The key is read from the environment when a session opens and lives only
    inside that session's client; HTTP retries (429 honouring ``retry-after``, 408/409, 5xx, timeouts,
    connection errors; exponential backoff with jitter) are the openai client's own, ``config.retries``.

    Requests go through ``AsyncOpenAI.post("/chat/completions", ...)``, the client's documented route for raw
    requests: same auth, retries, timeouts and error types as ``chat.completions.create``, minus its per-call
    parameter transform and response-model construction (about 2 ms of CPU a call, which capped a 32-way run
    near 300 calls/s); the reply is read as plain JSON, which also tolerates servers' extra fields.
    ``extra_body`` fields are added to every request body (never overriding model, messages or sampling)."""

    def __init__(self, config: JudgeConfig) -> None:
        self._config = config
        self._base_url = (config.base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL).rstrip("/")

    def identity(self) -> dict[str, Any]:
        return {
            "backend": "openai",
            "model": self._config.model,
            "base_url": self._base_url,
            "extra_body": dict(self._config.extra_body),
        }

    @asynccontextmanager
    async def session(self) -> AsyncIterator[_OpenAISession]:
        from openai import AsyncOpenAI

        secret = resolve_api_key(self._config.api_key_env)
        client = AsyncOpenAI(
            api_key=secret or LOCAL_PLACEHOLDER_KEY,
            base_url=self._base_url,
            max_retries=self._config.retries,
            timeout=self._config.timeout_s,
        )
        try:
            yield _OpenAISession(self._config, self._base_url, client, secret)
        finally:
            await client.close()

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self._config.model!r}, base_url={self._base_url!r})"


class _OpenAISession:
    def __init__(self, config: JudgeConfig, base_url: str, client: Any, secret: str | None) -> None:
        self._config = config
        self._base_url = base_url
        self._client = client
        self._secret = secret

    def __repr__(self) -> str:
        return f"_OpenAISession(model={self._config.model!r}, base_url={self._base_url!r})"

    async def complete(self, request: ChatRequest) -> Completion:
        import openai

        kwargs: dict[str, Any] = {
            "model": self._config.model,
            "messages": list(request.messages),
            "max_tokens": request.max_tokens,
        }
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.top_logprobs:
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = request.top_logprobs
        for name, value in self._config.extra_body.items():
            kwargs.setdefault(name, value)
        failure: Exception | None = None
        try:
            response = await self._client.post("/chat/completions", body=kwargs, cast_to=dict)
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
            failure = FatalJudgeError(self._describe(exc))
        except openai.BadRequestError as exc:
            message = self._describe(exc)
            if request.top_logprobs and "logprob" in message.lower():
                failure = LogprobsUnavailableError(self._no_logprobs(message))
            else:
                failure = RequestFailed(message)
        except openai.OpenAIError as exc:
            failure = RequestFailed(self._describe(exc))
        if failure is not None:
            # Raised outside the except block so no exception context (which may echo the key) is chained.
            raise failure
        return self._to_completion(response, request)

    def _to_completion(self, response: Any, request: ChatRequest) -> Completion:
        choices = response.get("choices") if isinstance(response, dict) else None
        if not choices:
            raise RequestFailed(f"{self._base_url}: response has no choices")
        choice = choices[0]
        text = (choice.get("message") or {}).get("content") or ""
        top: tuple[tuple[str, float], ...] | None = None
        if request.top_logprobs:
            content = (choice.get("logprobs") or {}).get("content")
            if not content:
                raise LogprobsUnavailableError(self._no_logprobs("the response carries no logprobs.content"))
            first = content[0]
            pairs = [(alt["token"], float(alt["logprob"])) for alt in first.get("top_logprobs") or []]
            if first["token"] not in {token for token, _ in pairs}:
                pairs.append((first["token"], float(first["logprob"])))
            top = tuple(pairs)
        usage = response.get("usage") or {}
        return Completion(
            text=text,
            top_logprobs=top,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            finish_reason=choice.get("finish_reason"),
        )

    def _describe(self, exc: Exception) -> str:
        status = getattr(exc, "status_code", None)
        prefix = f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "")
        return redact(f"{prefix} from {self._base_url}, model {self._config.model}: {exc}", self._secret)

    def _no_logprobs(self, detail: str) -> str:
        return (
            f"The endpoint {self._base_url} (model {self._config.model}) did not return log-probabilities "
            f"although the request asked for logprobs=True, top_logprobs>0 ({detail}). This protocol reads "
            "its answer from them and will not guess: use an endpoint that returns chat logprobs "
            "(OpenAI chat models, vLLM, TGI), the transformers backend, or the best_pick protocol."
        )
