"""What a push may say about the machine it came from: nothing private. Local paths become names relative to the run
folder (or their last component when outside it); an endpoint whose host is not public becomes its kind (`local`
for this machine, `private` for a private network), host and port gone. `push`, `publish` and the cards read
records through `public_record`."""

from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

URL = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s'\"<>`]+")
"""A URL inside a text (up to the first space, quote or markup character)."""
LOCAL_PATH = re.compile(r"(?<![\w/.~-])~?/(?!/)[^\s'\",;()\[\]{}<>`|]+")
"""An absolute (or home-relative) local path inside a text, not the path of a URL."""
PRIVATE_SUFFIXES = (".local", ".internal", ".lan", ".home", ".corp", ".intranet", ".localdomain", ".home.arpa")


def host_kind(host: str | None) -> str | None:
    """`local` for this machine, `private` for a private network or a name only it resolves, None when public."""
    if not host:
        return None
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return "local"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return "private" if "." not in host or host.endswith(PRIVATE_SUFFIXES) else None
    if ip.is_loopback or ip.is_unspecified:
        return "local"
    return "private" if ip.is_private or ip.is_link_local or ip.is_reserved else None


def _url(match: re.Match[str]) -> str:
    text = match.group(0)
    try:
        kind = host_kind(urlsplit(text).hostname)
    except ValueError:
        return "private"
    return kind or text


def public_text(text: str, run_dir: str | Path | None = None) -> str:
    """`text` with private endpoints replaced by their kind and local paths by names relative to `run_dir`.

    >>> public_text("--base-url http://10.1.2.3:8000/v1 --dataset /home/ann/data/nycc --out /home/ann/runs/r1",
    ...             "/home/ann/runs/r1")
    '--base-url private --dataset nycc --out .'
    >>> public_text("judged at https://api.openai.com/v1 for org/model, hf:/home/ann/models/m1")
    'judged at https://api.openai.com/v1 for org/model, hf:m1'
    """
    text = URL.sub(_url, text)
    roots = []
    if run_dir is not None:
        roots = sorted({str(Path(run_dir)), str(Path(run_dir).expanduser().resolve())}, key=len, reverse=True)

    def path(match: re.Match[str]) -> str:
        found = match.group(0)
        for root in roots:
            if found == root or found.startswith(root.rstrip("/") + "/"):
                return found[len(root):].lstrip("/") or "."
        return Path(found.rstrip("/")).name or "."

    return LOCAL_PATH.sub(path, text)


def public_data(value: Any, run_dir: str | Path | None = None) -> Any:
    """Every string in a JSON-like value through `public_text` (keys too)."""
    if isinstance(value, str):
        return public_text(value, run_dir)
    if isinstance(value, dict):
        return {public_text(str(k), run_dir): public_data(v, run_dir) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [public_data(v, run_dir) for v in value]
    return value


def public_record(record: dict[str, Any], run_dir: str | Path | None = None) -> dict[str, Any]:
    """A results record as a push publishes it (a copy; the run folder keeps the original)."""
    return public_data(json.loads(json.dumps(record)), run_dir)
