"""Cheap abuse of the public Space, bounded: every text field has a length cap, each visitor has a bounded number
of requests at work at once, forwarding headers (`X-Forwarded-For`) are believed only from the proxy the
operator names (`NYCC_LB_TRUSTED_PROXIES`; on a Space, the Space's own proxy), so a new header value is never a new
visitor, and no request body over `NYCC_LB_MAX_BODY_MB` is read (`BodyCap`).

A visitor is the client address as the server sees it: the connection's, or the one the configured proxy
forwarded. The search's own bounds (characters and terms, one pass over the names) live in `standings`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..standings import SEARCH_MAX_CHARS
from .store import Refused

MAX_CHARS = {"search": SEARCH_MAX_CHARS, "model": 200, "revision": 100}
"""The longest value each text field takes."""


class Busy(RuntimeError):
    """A visitor with as many requests at work as allowed; the message says to wait."""


def capped(value: Any, field: str) -> str:
    """A submitted text field within its cap, or `Refused` naming the field, its length and the cap."""
    text = str(value or "")
    if len(text) > MAX_CHARS[field]:
        raise Refused(f"{field}: {len(text):,} characters, more than the {MAX_CHARS[field]} allowed; shorten it")
    return text


def visitor(request: Any) -> str:
    """The visitor's key: the client address (the proxy-forwarded one only from a trusted proxy, see
    `trust_proxies`), or the session when there is no address."""
    client = getattr(request, "client", None)
    return str(getattr(client, "host", None) or getattr(request, "session_hash", None) or "unknown")


def trust_proxies(trusted: str) -> None:
    """Believe `X-Forwarded-For` only from these addresses or networks (comma-separated; empty: from none).
    Uvicorn, which serves the app, reads this when `launch` starts it (its own default trusts 127.0.0.1)."""
    os.environ["FORWARDED_ALLOW_IPS"] = trusted


class VisitorGate:
    """At most `limit` requests of one visitor at work at once; another is refused at once (never queued)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._busy: dict[str, int] = {}
        self._lock = threading.Lock()

    @contextmanager
    def slot(self, key: str) -> Iterator[None]:
        with self._lock:
            if self._busy.get(key, 0) >= self.limit:
                raise Busy(f"you have {self.limit} requests at work already; wait for them to finish")
            self._busy[key] = self._busy.get(key, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._busy[key] -= 1
                if not self._busy[key]:
                    del self._busy[key]


class BodyCap:
    """ASGI middleware: a request whose body is over `max_bytes` is answered 413 and never read whole (a declared
    `Content-Length` is refused before a byte is read; a body of unknown length is read up to the cap, then
    refused, or handed on as read). The server enforces a declared length, so it cannot be exceeded."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            if declared.isdigit() and int(declared) > self.max_bytes:
                await self._refuse(send)
                return
            await self.app(scope, receive, send)
            return
        messages, seen = [], 0
        while True:  # no declared length (chunked): read up to the cap before the app sees any of it
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                await self._refuse(send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Any:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Any) -> None:
        body = (f"request body over {self.max_bytes:,} bytes: not read (NYCC_LB_MAX_BODY_MB)").encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
