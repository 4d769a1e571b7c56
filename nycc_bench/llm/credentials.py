"""API key lookup from the environment, and redaction of that key from any text."""

from __future__ import annotations

import os

KEY_ENV_VARS: tuple[str, ...] = ("NYCC_JUDGE_API_KEY", "OPENAI_API_KEY")
"""Environment variables read for the key, first set one wins (after ``LLMConfig.api_key_env``)."""

LOCAL_PLACEHOLDER_KEY = "no-key-local-server"
"""Sent when no key is set: local servers (vLLM, Ollama, TGI) accept any bearer token."""


def resolve_api_key(api_key_env: str | None = None) -> str | None:
    """Return the key from ``api_key_env`` (if named) or the default variables, or None.

    The key is read at call time and handed straight to the HTTP client; nothing stores it.
    """
    names = ((api_key_env,) if api_key_env else ()) + KEY_ENV_VARS
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def redact(text: str, secret: str | None) -> str:
    """Replace every occurrence of ``secret`` in ``text`` (a too-short secret is left alone).

    >>> redact("Incorrect API key provided: sk-abc123456789.", "sk-abc123456789")
    'Incorrect API key provided: [REDACTED].'
    >>> redact("nothing to hide", None)
    'nothing to hide'
    """
    if not secret or len(secret) < 8:
        return text
    return text.replace(secret, "[REDACTED]")
