"""Exceptions of the judge engine; their messages never carry an API key.

Three levels, so no code has to match error text: :class:`FatalJudgeError` stops the run (bad key, unknown
model, no log-probabilities); :class:`RequestFailed` ends one item as an ERROR record (:class:`TransientError`
first goes through the engine's retries); :class:`MalformedReply` is a reply that arrived (and may be billed)
but cannot be used, which the engine asks again like an unparseable verdict.
"""

from __future__ import annotations

from ..errors import NyccBenchError


class JudgeError(Exception):
    """Base class of every error the judge engine raises."""


class FatalJudgeError(JudgeError, NyccBenchError):
    """An error that makes every further call pointless (bad key, unknown model, bad URL): the run stops."""


class LogprobsUnavailableError(FatalJudgeError):
    """The endpoint returned no log-probabilities although the protocol needs them."""


class RequestFailed(JudgeError):
    """One call failed for good (e.g. HTTP 400); the engine records the item as ERROR and moves on."""


class TransientError(RequestFailed):
    """A failure worth retrying (timeout, connection, truncated body, 408/409/429/5xx).

    ``retry_after`` is the wait the server asked for, in seconds (None when it named none).
    """

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Unreachable(TransientError):
    """The endpoint could not be connected to before it ever answered (refused, unknown host): retried once,
    quickly, then the run stops with :class:`FatalJudgeError` naming the host (only 429/5xx wait long)."""


class MalformedReply(JudgeError):
    """A 200 reply whose body cannot be used (invalid JSON, ``choices: [null]``, bad ``usage``…).

    It was received, so it counts as a call made (and possibly paid); ``prompt_tokens``/``completion_tokens``
    are its usage when that part was readable, else 0. ``raw`` is the start of the body (key-redacted).
    """

    def __init__(self, reason: str, raw: str = "", prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


class CacheError(FatalJudgeError):
    """The judge cache cannot be used (a damaged file, a full disk); the message names the file and the fix."""
