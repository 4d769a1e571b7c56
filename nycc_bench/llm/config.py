"""Judge configuration as data: backend, model, sampling, cache, concurrency and prices."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..paths import cache_dir
from ..secrets import hold_url

BACKENDS: tuple[str, ...] = ("openai", "transformers")

DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    # USD per 1M (input, output) tokens, OpenAI list prices; check the provider's page before a big run.
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-2024-08-06": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "o3": (2.00, 8.00),
}
BATCH_DISCOUNT = 0.5
"""The OpenAI Batch API bills half the synchronous price (input and output)."""


NO_CACHE_ENV = "NYCC_BENCH_NO_CACHE"
"""Set (to anything but empty or 0) by `--no-cache`: no LLM call reads the cache in this process or its children."""


def no_cache_reads() -> bool:
    """Whether `--no-cache` (NYCC_BENCH_NO_CACHE) is in force."""
    return os.environ.get(NO_CACHE_ENV, "") not in ("", "0")


def default_cache_dir() -> Path:
    """Where the judge cache lives unless the config names a folder.

    ``$NYCC_BENCH_CACHE/judge`` if that variable is set, else ``$XDG_CACHE_HOME/nycc_bench/judge``, else
    ``~/.cache/nycc_bench/judge``: always outside the installed package.
    """
    return cache_dir("judge")


@dataclass(frozen=True)
class LLMConfig:
    """Everything that defines a judge, as plain data (it holds no API key and can be written next to results).

    ``temperature`` and ``max_tokens`` left as None take each protocol's default (Overall: 0 and 1 token;
    Best Pick: 0; autograder: 0; explainer: 1.0, as in the HumorBench paper). ``prompt_version`` None means
    each protocol's current version; a pinned version a protocol does not know is an error.
    ``api_key_env`` names an extra environment variable to read the key from (e.g. ``TOGETHER_API_KEY``);
    the key itself is never a field.

    Time limits: ``timeout_s`` bounds one call from connect to last byte (a server that hangs or drips its
    reply slower than that is cut off and the call retried). Transient failures (timeouts, connection
    errors, truncated bodies, 408/409/429/5xx) are retried ``retries`` times with jittered exponential backoff
    starting at ``retry_backoff_s``; a ``retry-after`` the server sends is honoured, but never beyond
    ``max_retry_wait_s``: a longer one is waited out to that cap and the call retried then (so a 429 asking
    for an hour neither stalls the run for an hour nor ends the item without a retry). ``deadline_s`` bounds a whole
    run (one ``LLMEngine.run``; None: no bound): no request starts after it and no retry wait (a ``retry-after``
    included) reaches past it; a call it stops is an ERROR saying so (never cached), and the next run resumes from
    the cache.

    ``batch`` sends the calls not in the cache through the OpenAI Batch API (:mod:`nycc_bench.llm.batch`: one
    JSONL upload, polled first after 2 s, then at growing intervals up to ``batch_poll_s``, with an ETA from the
    answers seen; answers joined back through the cache) at the batch rate
    (``BATCH_DISCOUNT`` of the price, which ``price()`` then returns). The ids of pending batches are kept in
    ``batch_dir`` (the run folder; default the cache folder), so a stopped run collects them when resumed;
    ``batch_wait_s`` bounds the wait (None: until every batch ends), after which the run stops with
    :class:`~nycc_bench.llm.batch.BatchPending`.
    """

    backend: str = "openai"
    model: str = "gpt-4o"
    base_url: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    top_logprobs: int = 20
    prompt_version: str | None = None
    cache_dir: str | None = None
    use_cache: bool = True
    read_cache: bool = field(default_factory=lambda: not no_cache_reads())  # False: ask again, still store
    max_concurrency: int = 16
    retries: int = 6
    parse_retries: int = 2
    timeout_s: float = 120.0
    max_retry_wait_s: float = 300.0
    deadline_s: float | None = 3600.0
    retry_backoff_s: float = 0.5
    prices: Mapping[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    api_key_env: str | None = None
    device: str | None = None
    progress: bool = True
    batch: bool = False
    batch_dir: str | None = None
    batch_poll_s: float = 30.0
    batch_wait_s: float | None = None

    def __post_init__(self) -> None:
        hold_url(self.base_url)  # its password and query keys are scrubbed from whatever this process writes
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        if self.max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        if self.retries < 0 or self.parse_retries < 0:
            raise ValueError("retries and parse_retries must be non-negative")
        for name in ("timeout_s", "max_retry_wait_s"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 < value < float("inf")):
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        if self.deadline_s is not None and not (isinstance(self.deadline_s, int | float) and self.deadline_s > 0):
            raise ValueError(f"deadline_s must be a positive number of seconds or None, got {self.deadline_s!r}")
        if not (isinstance(self.retry_backoff_s, int | float) and 0 <= self.retry_backoff_s < float("inf")):
            raise ValueError(f"retry_backoff_s must be a non-negative number of seconds, got {self.retry_backoff_s!r}")
        if self.batch and self.backend != "openai":
            raise ValueError(f"batch: the Batch API is OpenAI's; the {self.backend} backend runs its calls itself")
        if not (isinstance(self.batch_poll_s, int | float) and 0 < self.batch_poll_s < float("inf")):
            raise ValueError(f"batch_poll_s must be a positive number of seconds, got {self.batch_poll_s!r}")
        wait = self.batch_wait_s
        if wait is not None and not (isinstance(wait, int | float) and wait >= 0):
            raise ValueError(f"batch_wait_s must be a non-negative number of seconds or None, got {wait!r}")
        if not 0 <= self.top_logprobs <= 20:
            raise ValueError("top_logprobs must be between 0 and 20 (the OpenAI limit)")

    def resolved_cache_dir(self) -> Path:
        """The cache folder this config uses."""
        return Path(self.cache_dir).expanduser() if self.cache_dir else default_cache_dir()

    def price(self) -> tuple[float, float] | None:
        """USD per 1M (input, output) tokens for this model (at the Batch API's rate with ``batch``); 0 for a local
        model; None if unknown."""
        if self.backend == "transformers":
            return (0.0, 0.0)
        value = self.prices.get(self.model)
        rate = BATCH_DISCOUNT if self.batch else 1.0
        return None if value is None else (float(value[0]) * rate, float(value[1]) * rate)

    def batch_folder(self) -> Path:
        """Where the ids of this config's pending batches are kept: ``batch_dir``, else the cache folder."""
        return Path(self.batch_dir).expanduser() if self.batch_dir else self.resolved_cache_dir()

    def replace(self, **changes: Any) -> LLMConfig:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a results file (JSON-serialisable)."""
        data = dataclasses.asdict(self)
        data["prices"] = {k: list(v) for k, v in self.prices.items()}
        data["extra_body"] = dict(self.extra_body)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LLMConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming the known ones."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown LLMConfig fields {sorted(unknown)}; known: {sorted(known)}")
        values = dict(data)
        if "prices" in values:
            values["prices"] = {k: (float(v[0]), float(v[1])) for k, v in values["prices"].items()}
        return cls(**values)
