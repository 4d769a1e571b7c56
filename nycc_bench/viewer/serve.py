"""The viewer's server: one page at `/` on 127.0.0.1, rebuilt from the run folders at each load (a run still
going shows what it has written); every other path is 404, so nothing but that page is served, and a request
naming another host (a DNS-rebinding page) is refused. The page's inline script and style carry a per-response
nonce and the content security policy allows nothing else."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from .page import REPLY_CUT, view_page
from .runs import find_item, load_runs

HOST = "127.0.0.1"


class _Handler(BaseHTTPRequestHandler):
    folders: Sequence[Path] = ()

    def do_GET(self) -> None:
        port = self.server.server_address[1]
        if self.headers.get("Host") not in (f"127.0.0.1:{port}", f"localhost:{port}"):  # DNS rebinding
            self.send_error(403, "the viewer answers only to 127.0.0.1 and localhost")
            return
        path, _, query = self.path.partition("?")
        if path == "/text":  # the whole text of a reply the page cut
            self._text(parse_qs(query))
            return
        if path != "/":
            self.send_error(404, "the viewer serves its page at / (and a cut reply's whole text at /text) only")
            return
        nonce = secrets.token_urlsafe(16)
        try:
            body = view_page(load_runs(list(self.folders)), nonce, cut=REPLY_CUT).encode("utf-8")
        except Exception as err:  # a folder that became unreadable: say so, as text
            self.send_error(500, str(err).splitlines()[0][:300])
            return
        self._send(body, "text/html", f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
                                      "base-uri 'none'; form-action 'none'")

    def _text(self, query: dict[str, list[str]]) -> None:
        """One item's whole reply as plain text (`run`: the run's position, `task`, `key`: the item's)."""
        run, task, key = (query.get(k, [""])[0] for k in ("run", "task", "key"))
        item = find_item(load_runs(list(self.folders)), int(run), task, key) if run.isdigit() else None
        if item is None or not isinstance(item.get("reply"), str):
            self.send_error(404, "no such item")
            return
        self._send(item["reply"].encode("utf-8"), "text/plain", "default-src 'none'")

    def _send(self, body: bytes, kind: str, policy: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", policy)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows the URL, not each request."""


def serve_view(folders: Sequence[str | Path], port: int = 0, block: bool = True) -> ThreadingHTTPServer:
    """Serve the page over `folders` on 127.0.0.1 (`port` 0: a free one; `server.server_address` says which).
    The folders are read once first, so a bad one is an error before anything listens."""
    load_runs(list(folders))
    handler = type("Handler", (_Handler,), {"folders": tuple(Path(f) for f in folders)})
    server = ThreadingHTTPServer((HOST, port), handler)
    server.daemon_threads = True
    if block:
        try:
            server.serve_forever()
        finally:
            server.server_close()
    else:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
