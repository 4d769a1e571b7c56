"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, TGI, Ollama…) through the official async client.

One call here is one HTTP attempt: the client's own retries are off (``max_retries=0``) and every failure is
typed for the engine, which retries with tenacity (see :mod:`nycc_bench.llm.engine`):

* 401/403 → :class:`FatalJudgeError`, one line naming the key variables and the fix (never the key), unless
  this session already had a 200 from the endpoint (then the key works and the refusal is retried);
* 404 → :class:`FatalJudgeError` (unknown model or wrong base URL); 400 → :class:`RequestFailed`, or
  :class:`LogprobsUnavailableError` when it is about log-probabilities;
* 408/409/429/5xx, timeouts, truncated bodies, connection errors after a first reply → :class:`TransientError`
  (with the server's ``retry-after``/``retry-after-ms`` in seconds);
* no key for api.openai.com → :class:`FatalJudgeError` before the first request, naming the variable;
* a connection that fails before any reply (refused, unknown host) → :class:`Unreachable` once (the engine
  retries it quickly), then :class:`FatalJudgeError` naming the host: a dead endpoint costs seconds, not minutes;
* a 200 whose body cannot be used → :class:`MalformedReply` (see :mod:`.openai_reply`).

``timeout_s`` bounds a whole attempt, connect to last byte, so a reply that drips in byte by byte is cut off
too (the HTTP client's own timeout only bounds each read). The ``openai`` package is imported, and the client
opened, on the first call that actually goes out: a fully cached run never imports it.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from ...urls import redact_url, redact_urls_in
from ..cache import endpoint_identity, served_identity
from ..chat import ChatRequest, Completion
from ..config import LLMConfig
from ..credentials import KEY_ENV_VARS, LOCAL_PLACEHOLDER_KEY, redact, resolve_api_key
from ..errors import FatalJudgeError, LogprobsUnavailableError, RequestFailed, TransientError, Unreachable
from .openai_reply import parse_chat_reply, parse_prompt_logprobs_reply

OPENAI_BASE_URL = "https://api.openai.com/v1"
KEYED_HOSTS = frozenset({"api.openai.com"})
"""Hosts that refuse every request without a key; local servers accept any token, so only these are checked."""
UNREACHABLE_ATTEMPTS = 2
"""Connection failures before any reply after which the endpoint is declared unreachable."""
MODELS_TIMEOUT_S = 5.0
"""How long the one `/models` question (what is served under the model name) may take."""
RETRYABLE_STATUS = frozenset({408, 409, 429})
SERVER_MESSAGE_CHARS = 200
"""How much of a server's error message goes into an error (on one line, key-redacted)."""


def resolve_base_url(base_url: str | None) -> str:
    """The endpoint a call goes to: the one given, else OPENAI_BASE_URL, else OpenAI's."""
    return (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL).rstrip("/")


class OpenAIBackend:
    """Chat completions over HTTP. The key is read from the environment when a session opens and lives only
    inside that session's client.

    Requests go through ``AsyncOpenAI.post("/chat/completions", cast_to=bytes)``, the client's documented route
    for raw requests: same auth, URL handling and error types as ``chat.completions.create``, minus its
    per-call parameter transform and response-model construction (about 2 ms of CPU a call); the body comes
    back as bytes and is read by :func:`parse_chat_reply`, the one reply-parsing layer.
    ``extra_body`` fields are added to every request body (never overriding model, messages or sampling)."""

    def __init__(self, config: LLMConfig) -> None:
        self._config = config
        self._base_url = resolve_base_url(config.base_url)

    def identity(self) -> dict[str, Any]:
        return {
            "backend": "openai",
            "model": self._config.model,
            "endpoint": endpoint_identity(self._base_url),
            "extra_body": dict(self._config.extra_body),
        }

    async def served_model(self) -> dict[str, Any] | None:
        """What the endpoint says it serves under this model name (its ``/models`` entry: id, root, created,
        fingerprint fields; see :func:`~nycc_bench.llm.cache.served_identity`), None when it does not say (no such
        route, an error, no entry of that name). One quick GET, never retried; never fails the run."""
        import httpx

        secret = resolve_api_key(self._config.api_key_env)
        headers = {"Authorization": f"Bearer {secret}"} if secret else {}
        try:
            async with httpx.AsyncClient(timeout=MODELS_TIMEOUT_S) as client:
                reply = await client.get(f"{self._base_url}/models", headers=headers)
            listing = reply.json() if reply.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            return None
        entries = listing.get("data") if isinstance(listing, dict) else None
        entry = next((e for e in entries or [] if isinstance(e, dict) and e.get("id") == self._config.model), None)
        return served_identity(entry) if entry is not None else None

    @asynccontextmanager
    async def session(self) -> AsyncIterator[_OpenAISession]:
        session = _OpenAISession(self._config, self._base_url)
        try:
            yield session
        finally:
            await session.aclose()

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self._config.model!r}, base_url={redact_url(self._base_url)!r})"


def missing_key(config: LLMConfig) -> str | None:
    """Why calls to this config's endpoint cannot start (no API key for an endpoint that needs one), in one line
    with the fix; None when they can. The session refuses on it, and the preflight asks it before a run."""
    base_url = resolve_base_url(config.base_url)
    if resolve_api_key(config.api_key_env) is not None or urlsplit(base_url).hostname not in KEYED_HOSTS:
        return None
    names = ((config.api_key_env,) if config.api_key_env else ()) + KEY_ENV_VARS
    variables = " or ".join(dict.fromkeys(reversed(names)))
    return (f"{variables} is not set: {redact_url(base_url)} needs an API key for model {config.model}; export "
            "OPENAI_API_KEY=... (or pass --base-url for a local OpenAI-compatible server) and run again")


class _OpenAISession:
    """One run's HTTP client, opened on the first call (so a fully cached run never imports ``openai``)."""

    def __init__(self, config: LLMConfig, base_url: str) -> None:
        self._config = config
        self._base_url = base_url
        self._shown = redact_url(base_url)  # what messages name: never the URL's user or password
        self._secret = resolve_api_key(config.api_key_env)
        self._client: Any = None
        self._answered = False  # a 200 arrived: the key works, so a later 401 is the server's hiccup
        self._unreachable = 0  # connection failures before any reply

    def __repr__(self) -> str:
        return f"_OpenAISession(model={self._config.model!r}, base_url={redact_url(self._base_url)!r})"

    def _open(self) -> Any:
        if self._client is None:
            if problem := missing_key(self._config):
                raise FatalJudgeError(problem)
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(
                api_key=self._secret or LOCAL_PLACEHOLDER_KEY,
                base_url=self._base_url,
                max_retries=0,  # the engine retries (tenacity), honouring retry-after up to a cap
                timeout=self._config.timeout_s,
            )
        return self._client

    async def aclose(self) -> None:
        """Close the client if one was opened."""
        if self._client is not None:
            await self._client.close()
            self._client = None

    def client(self) -> Any:
        """The session's ``AsyncOpenAI`` client (opened now; a missing key for api.openai.com is fatal here)."""
        return self._open()

    def read_reply(self, body: bytes, request: ChatRequest) -> Completion:
        """A chat-completions reply body read as one call's (:func:`parse_chat_reply`, the key redacted)."""
        return parse_chat_reply(body, request, self._redact, self._no_logprobs)

    def failure(self, exc: Exception, doing: str) -> FatalJudgeError:
        """An error of the Batch API's file and batch calls as one fatal line (key and URL password redacted)."""
        return FatalJudgeError(self._one_line(f"{doing}: {self._describe(exc)}"))

    def body(self, request: ChatRequest) -> dict[str, Any]:
        """The request body sent for ``request`` (the Batch API's JSONL lines carry the same)."""
        return self._body(request)

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        if request.prompts:
            return completions_body(self._config.model, request, self._config.extra_body)
        body: dict[str, Any] = {
            "model": self._config.model,
            "messages": list(request.messages),
        }
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.top_logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = request.top_logprobs
        if request.n != 1:
            body["n"] = request.n
        for name, value in self._config.extra_body.items():
            body.setdefault(name, value)
        return body

    async def complete(self, request: ChatRequest) -> Completion:
        """One HTTP attempt; raises the typed errors of the module docstring."""
        client = self._open()
        import openai

        failure: Exception | None = None
        started = time.monotonic()
        try:
            async with asyncio.timeout(self._config.timeout_s):
                route = "/completions" if request.prompts else "/chat/completions"
                body = await client.post(route, body=self._body(request), cast_to=bytes)
        except TimeoutError:
            failure = TransientError(
                f"timed out after {time.monotonic() - started:.1f} s (timeout_s={self._config.timeout_s:g}) "
                f"waiting for {self._shown}"
            )
        except openai.APITimeoutError:
            failure = TransientError(f"timed out (timeout_s={self._config.timeout_s:g}) waiting for {self._shown}")
        except openai.APIConnectionError as exc:
            cause = exc.__cause__
            detail = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
            failure = self._connection_failure(detail)
        except openai.APIStatusError as exc:
            failure = self._status_failure(exc, request)
        except openai.OpenAIError as exc:
            failure = RequestFailed(self._describe(exc))
        if failure is not None:
            # Raised outside the except block so no exception context (which may echo the key) is chained.
            raise failure
        self._answered = True
        if request.scored:
            return parse_prompt_logprobs_reply(body, request, self._redact, self._no_prompt_logprobs)
        return parse_chat_reply(body, request, self._redact, self._no_logprobs)

    def _connection_failure(self, detail: str) -> Exception:
        """Transient after a first reply; before one, `Unreachable`, then fatal naming the host."""
        if self._answered:
            return TransientError(self._one_line(f"connection error from {self._shown}: {detail}"))
        self._unreachable += 1
        if self._unreachable < UNREACHABLE_ATTEMPTS:
            return Unreachable(self._one_line(f"cannot connect to {redact_url(self._base_url)}: {detail}"))
        parts = urlsplit(self._base_url)
        host = f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname
        return FatalJudgeError(self._one_line(
            f"cannot connect to {host} ({detail}; {self._unreachable} attempts to {redact_url(self._base_url)}); "
            "check the network, or --base-url / OPENAI_BASE_URL for a local server"))

    def _status_failure(self, exc: Any, request: ChatRequest) -> Exception:
        status = int(exc.status_code)
        if status in (401, 403):
            if self._answered:
                return TransientError(self._describe(exc) + " (after earlier successful calls with this key)")
            return FatalJudgeError(self._auth_message(status, exc))
        if status == 404 and request.scored:
            return LogprobsUnavailableError(self._no_prompt_logprobs(f"no completions route: {self._describe(exc)}"))
        if status == 404:
            return FatalJudgeError(
                self._describe(exc) + f"; check the model name {self._config.model!r} and the base URL"
            )
        if status == 400:
            message = self._describe(exc)
            if request.scored and any(word in message.lower() for word in ("logprob", "echo")):
                return LogprobsUnavailableError(self._no_prompt_logprobs(message))
            if request.top_logprobs and "logprob" in message.lower():
                return LogprobsUnavailableError(self._no_logprobs(message))
            return RequestFailed(message)
        if status in RETRYABLE_STATUS or status >= 500:
            return TransientError(self._describe(exc), retry_after=retry_after_s(exc.response.headers))
        return RequestFailed(self._describe(exc))

    def _auth_message(self, status: int, exc: Any) -> str:
        names = ((self._config.api_key_env,) if self._config.api_key_env else ()) + KEY_ENV_VARS
        variables = " or ".join(dict.fromkeys(names))
        said = self._server_says(exc)
        problem = "the API key was refused" if self._secret else f"no API key is set (looked in {variables})"
        return (
            f"judge endpoint {self._shown} answered HTTP {status} for model {self._config.model}: {problem}"
            f"{f' ({said})' if said else ''}; set {variables} to a valid key for this endpoint and run again"
        )

    def _server_says(self, exc: Any) -> str:
        body = getattr(exc, "body", None)
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, str):
            message = getattr(exc, "message", "") or ""
        return self._one_line(message)[:SERVER_MESSAGE_CHARS]

    def _describe(self, exc: Exception) -> str:
        status = getattr(exc, "status_code", None)
        prefix = f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "")
        return self._one_line(f"{prefix} from {self._shown}, model {self._config.model}: {exc}")

    def _one_line(self, text: str) -> str:
        return " ".join(redact_urls_in(self._redact(text)).split())

    def _redact(self, text: str) -> str:
        return redact(text, self._secret)

    def _no_prompt_logprobs(self, detail: str) -> str:
        return self._one_line(
            f"system: {self._shown} (model {self._config.model}) cannot return prompt log-probabilities (completions "
            f"with echo and logprobs: {detail}); multiple choice by log-likelihood needs a server that does (vLLM, "
            "SGLang, llama-cpp-python's server), or --system-option mc_mode=generate")

    def _no_logprobs(self, detail: str) -> str:
        return (
            f"The endpoint {self._shown} (model {self._config.model}) did not return log-probabilities "
            f"although the request asked for logprobs=True, top_logprobs>0 ({detail}). This protocol reads "
            "its answer from them and will not guess: use an endpoint that returns chat logprobs "
            "(OpenAI chat models, vLLM, TGI), the transformers backend, or the best_pick protocol."
        )


def completions_body(model: str, request: ChatRequest, extra_body: dict[str, Any]) -> dict[str, Any]:
    """A completions request for token-id prompts. Scoring (`request.scored`): each prompt echoed with its tokens'
    log-probabilities (`echo`, `logprobs`), greedy, one token generated (servers that refuse max_tokens=0 accept it;
    it is not read). Generation: the one prompt, `n` samples, the request's settings and `extra_body`'s."""
    if request.scored:
        return {"model": model, "prompt": [list(p) for p in request.prompts], "echo": True, "logprobs": 1,
                "max_tokens": 1, "temperature": 0.0}
    body: dict[str, Any] = {"model": model, "prompt": list(request.prompts[0])}
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.n != 1:
        body["n"] = request.n
    for name, value in extra_body.items():
        body.setdefault(name, value)
    return body


def retry_after_s(headers: Any) -> float | None:
    """The wait a reply asks for, in seconds: ``retry-after-ms``, else ``retry-after`` (seconds or HTTP date).

    >>> retry_after_s({"retry-after": "7"}), retry_after_s({"retry-after-ms": "250"}), retry_after_s({})
    (7.0, 0.25, None)
    """
    def number(value: Any) -> float | None:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            return None
        return seconds if seconds >= 0 and seconds != float("inf") else None

    ms = number(headers.get("retry-after-ms"))
    if ms is not None:
        return ms / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = number(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())
