"""Secrets never echo back: every key, token or password this process holds is scrubbed out of text before it is
written anywhere (replies, errors, predictions, the LLM cache, logs, results, request files, pages, stderr).

What the process holds: the values of the environment variables that carry keys (`OPENAI_API_KEY`,
`NYCC_JUDGE_API_KEY`, `HF_TOKEN`, ... and any variable whose name says key, token, secret or password), the
password and secret query parameters (`?api_key=`) of every endpoint URL it was given (environment, command line,
`LLMConfig`), and `--api-key` values. A server that echoes the key it was sent (in a 200 reply, an error, a
redirect) has it replaced by `[REDACTED]` at each write point, and URLs keep no `user:password@` nor secret
query values. One home: the write points call `scrub` / `scrub_data`; logs are scrubbed by `scrub_logs`.
"""

from __future__ import annotations

import base64
import logging
import os
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, TypeVar
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit

from .urls import SECRET_PARAM, redact_urls_in

KEY_ENV = ("OPENAI_API_KEY", "NYCC_JUDGE_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACEHUB_API_TOKEN")
"""Environment variables that always hold a secret."""
SECRET_ENV_NAME = re.compile(r"(?i)(api_?key|token|secret|password|passwd|credential)")
"""Other environment variables whose values are treated as secrets (`TOGETHER_API_KEY`, `MY_SERVICE_TOKEN`)."""
MIN_LENGTH = 8
"""Shorter values are never scrubbed (`TOKENIZERS_PARALLELISM=false` is no secret)."""
REDACTED = "[REDACTED]"
_QUERY_SECRET = re.compile(r"(?i)([?&][a-z0-9_.-]*(?:token|key|secret|password|passwd|pwd|signature|sig|credential)"
                           r"[a-z0-9_.-]*=)[^&#\s\"'<>]+")
_held: set[str] = set()
T = TypeVar("T")


def hold(*values: str | None) -> None:
    """Remember secrets this process was given other than through the environment (an `--api-key` value)."""
    _held.update(v.strip() for v in values if isinstance(v, str) and len(v.strip()) >= MIN_LENGTH)


def url_secrets(url: str | None) -> list[str]:
    """The password and secret query values of a URL (`http://u:PW@host/v1?api_key=KEY`), and the Basic
    `Authorization` value HTTP clients make of its `u:PW` (which a server may echo)."""
    if not url or "://" not in url:
        return []
    try:
        parts = urlsplit(url.strip())
        found = [parts.password] if parts.password else []
        if parts.password is not None:
            found.append(base64.b64encode(f"{unquote(parts.username or '')}:{unquote(parts.password)}".encode())
                         .decode())
    except ValueError:
        return []
    return found + [v for k, v in parse_qsl(parts.query, keep_blank_values=False) if SECRET_PARAM.search(k)]


def hold_url(url: str | None) -> None:
    """Remember the password and secret query values of an endpoint URL."""
    hold(*url_secrets(url))


def hold_argv(argv: Iterable[str]) -> None:
    """Remember the secrets of a command line: `--api-key VALUE` (or `=VALUE`) and every URL's."""
    words = list(argv)
    for k, word in enumerate(words):
        if word == "--api-key" and k + 1 < len(words):
            hold(words[k + 1])
        elif word.startswith("--api-key="):
            hold(word.split("=", 1)[1])
        hold_url(word.split("=", 1)[1] if word.startswith("--") and "=" in word else word)


def held() -> tuple[str, ...]:
    """Every secret value this process holds now, longest first (so a secret containing another goes whole);
    worked out again only when the environment or the held values change."""
    return _held_now(hash(tuple(os.environ.items())), frozenset(_held))


@lru_cache(maxsize=4)
def _held_now(_environment: int, extra: frozenset[str]) -> tuple[str, ...]:
    values = set(extra)
    for name, value in os.environ.items():
        if name in KEY_ENV or SECRET_ENV_NAME.search(name):
            values.add(value.strip())
        if "://" in value:
            values.update(url_secrets(value))
    values = {v for v in values if len(v) >= MIN_LENGTH}
    forms = values | {quote(v, safe="") for v in values} | {quote_plus(v) for v in values}
    return tuple(sorted(forms, key=lambda v: (-len(v), v)))


@lru_cache(maxsize=8)
def _pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(map(re.escape, values))) if values else None


def _clean(text: str, pattern: re.Pattern[str] | None) -> str:
    if pattern is not None:
        text = pattern.sub(REDACTED, text)
    if "://" in text or "=" in text:
        text = _QUERY_SECRET.sub(lambda m: m.group(1) + REDACTED, redact_urls_in(text))
    return text


def scrub(text: str) -> str:
    """`text` without any secret this process holds, URL password or secret query value.

    >>> os.environ["NYCC_DOCTEST_TOKEN"] = "tok-0123456789"
    >>> scrub("Bearer tok-0123456789 at http://u:pw@h/v1?api_key=abc&x=1")
    'Bearer [REDACTED] at http://h/v1?api_key=[REDACTED]&x=1'
    >>> del os.environ["NYCC_DOCTEST_TOKEN"]
    """
    if not isinstance(text, str) or not text:
        return text
    return _clean(text, _pattern(held()))


def scrub_data(data: T) -> T:
    """`data` (JSON-like: dicts, lists, strings) with every string scrubbed, keys included."""
    pattern = _pattern(held())

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return _clean(value, pattern) if value else value
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(walk(v) for v in value)
        return value

    return walk(data)


class _Scrubbed(logging.Filter):
    """A handler filter: the record's message (arguments filled in) and traceback scrubbed."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: leave it to the handler to report
            return True
        record.msg, record.args = scrub(message), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrub(record.exc_text)
        return True


_FILTER = _Scrubbed()
_factory_installed = False


def scrub_logs() -> None:
    """Scrub every log record this process makes (any logger, third-party ones included) before a handler
    formats it; idempotent."""
    global _factory_installed
    if _factory_installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _FILTER.filter(record)
        return record

    logging.setLogRecordFactory(factory)
    _factory_installed = True
