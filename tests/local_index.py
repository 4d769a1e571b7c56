"""A local stand-in for a package index's simple API (stdlib only): `/simple/<project>/` as PEP 691 JSON when the
client asks for it, else as a PEP 503 HTML page, listing the files it is given; a project it does not hold is 404.

    with LocalIndex({"nycc-bench": ["nycc_bench-0.2.0-py3-none-any.whl"]}) as index:
        index.url          # http://127.0.0.1:PORT/simple
        index.requests     # the paths asked for
"""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LocalIndex:
    """The server; use as a context manager. `json=False` serves HTML even to clients that ask for JSON."""

    def __init__(self, projects: dict[str, list[str]], json: bool = True) -> None:
        self.projects, self.json, self.requests = projects, json, []
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.requests.append(self.path)
                parts = [p for p in self.path.split("?")[0].split("/") if p]
                if len(parts) != 2 or parts[0] != "simple" or parts[1] not in index.projects:
                    self.send_error(404)
                    return
                files = index.projects[parts[1]]
                if index.json and "application/vnd.pypi.simple.v1+json" in self.headers.get("Accept", ""):
                    body = _json({"meta": {"api-version": "1.0"}, "name": parts[1],
                                  "files": [{"filename": f, "url": f"../../files/{f}", "hashes": {}} for f in files]})
                    kind = "application/vnd.pypi.simple.v1+json"
                else:
                    links = "".join(f'<a href="../../files/{html.escape(f)}#sha256=00">{html.escape(f)}</a><br>\n'
                                    for f in files)
                    body = f"<!DOCTYPE html><html><body><h1>Links for {parts[1]}</h1>\n{links}</body></html>".encode()
                    kind = "text/html"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/simple"

    def __enter__(self) -> LocalIndex:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _json(data: object) -> bytes:
    return json.dumps(data).encode()


@contextmanager
def released(version: str) -> Iterator[str]:
    """A local index holding `version`'s wheel and sdist, as PyPI does once they are uploaded; yields its URL."""
    files = [f"nycc_bench-{version}-py3-none-any.whl", f"nycc_bench-{version}.tar.gz"]
    with LocalIndex({"nycc-bench": files}) as index:
        yield index.url
