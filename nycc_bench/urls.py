"""One rule for showing an endpoint URL: user, password and token-like query parameters never leave the process."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

SECRET_PARAM = re.compile(r"(?i)(token|key|secret|password|passwd|pwd|auth|signature|sig|credential)")
"""Query parameter names whose values are dropped (``?api_key=…``, ``?access_token=…``, ``?sig=…``)."""

URL_WITH_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@:]*(?::[^/\s@]*)?@")
"""A URL's ``user:password@`` part anywhere in a text (for scanning logs, cards and files)."""


HUB_LINK = re.compile(r"https://huggingface\.co/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}(/[A-Za-z0-9_.][A-Za-z0-9_.-]{0,95})?")
"""A model's page on the Hub: ``https://huggingface.co/<org>/<name>`` and nothing else (no query, markup or quote)."""


def hub_link(url: object) -> str | None:
    """``url`` when it is an ``https://`` link to a page on the Hub, else None (it is then not shown).

    >>> hub_link("https://huggingface.co/org/model-1")
    'https://huggingface.co/org/model-1'
    >>> hub_link("https://huggingface.co/x) <img src=https://evil.example/a.png>") is None
    True
    >>> hub_link("javascript:alert(1)") is None
    True
    """
    return url if isinstance(url, str) and HUB_LINK.fullmatch(url) else None


def redact_url(url: str | None) -> str | None:
    """``scheme://host:port/path`` of ``url``: no user, no password, no secret query parameter, no fragment.

    >>> redact_url("http://user:secret@127.0.0.1:8000/v1/")
    'http://127.0.0.1:8000/v1/'
    >>> redact_url("https://api.example.com/v1?api_key=sk-123&region=eu")
    'https://api.example.com/v1?region=eu'
    >>> redact_url(None) is None
    True
    """
    if url is None:
        return None
    parts = urlsplit(url.strip())
    if not parts.scheme and not parts.netloc:
        return url.strip()
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port is not None else host
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if not SECRET_PARAM.search(k)])
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def redact_urls_in(text: str) -> str:
    """``text`` with the ``user:password@`` part of every URL in it removed.

    >>> redact_urls_in("--base-url http://u:pw@host:1/v1 and https://x.org")
    '--base-url http://host:1/v1 and https://x.org'
    """
    return URL_WITH_USERINFO.sub(r"\1", text)


def has_credentials(text: str) -> bool:
    """Whether ``text`` holds a URL with a ``user:password@`` part (the publish scan's test)."""
    return bool(URL_WITH_USERINFO.search(text))
