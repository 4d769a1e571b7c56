"""A fake OpenAI Batch API on 127.0.0.1 (stdlib only), beside `fake_openai.py`'s chat server (not shipped).

    with FakeBatchServer(lambda body, attempt: Reply(text="A")) as server:
        config = LLMConfig(base_url=server.base_url, model="fake", batch=True, batch_poll_s=0.01)
        ...
        server.batches          # id -> {"status", "lines", "polls", ...}
        server.hold = True      # batches stay in_progress until released
        server.hold_new = True  # batches created from now on stay in_progress (server.held: their ids)

Routes: ``POST /v1/files`` (multipart upload, ``purpose=batch``), ``GET /v1/files/{id}/content``, ``POST
/v1/batches``, ``GET /v1/batches/{id}``, and ``POST /v1/chat/completions`` (counted apart: a batch run must send
none). A batch stays ``in_progress`` for ``polls_to_finish`` polls (or while ``hold``), then is ``completed``
with one output line per input line, answered by the same ``responder`` as `FakeChatServer` (a non-200 reply
becomes an error line); ``fail_batches`` makes it end ``failed``. Unknown batch or file ids are 404s.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fake_openai import Reply, Responder, _completion_payload


class FakeBatchServer:
    """Files and batches endpoints over an in-memory store; batch lines are answered by ``responder``."""

    def __init__(self, responder: Responder | None = None, polls_to_finish: int = 2) -> None:
        self.responder: Responder = responder or (lambda body, attempt: Reply())
        self.polls_to_finish = polls_to_finish
        self.hold = False
        self.hold_new = False
        self.held: set[str] = set()
        self.fail_batches = False
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.chat_requests = 0
        self.uploads: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("server not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeBatchServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_GET(self) -> None:
                owner._route(self, "GET", b"")

            def do_POST(self) -> None:
                owner._route(self, "POST", self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def send(self, status: int, payload: Mapping[str, Any] | bytes) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if status != 200 or not isinstance(
                    payload, bytes) else "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

        self._server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeBatchServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _route(self, handler: Any, method: str, raw: bytes) -> None:
        parts = handler.path.split("?")[0].strip("/").split("/")[1:]  # drop "v1"
        with self._lock:
            if method == "POST" and parts == ["files"]:
                return handler.send(200, self._upload(handler.headers.get("Content-Type", ""), raw))
            if method == "GET" and len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
                data = self.files.get(parts[1])
                return handler.send(200, data) if data is not None else handler.send(404, _error("no such file"))
            if method == "POST" and parts == ["batches"]:
                return handler.send(200, self._create(json.loads(raw)))
            if method == "GET" and len(parts) == 2 and parts[0] == "batches":
                batch = self.batches.get(parts[1])
                return handler.send(200, self._poll(batch)) if batch else handler.send(404, _error("no such batch"))
            if method == "POST" and parts == ["chat", "completions"]:
                self.chat_requests += 1
                body = json.loads(raw)
                return handler.send(200, _completion_payload(body, self.responder(body, 1)))
        handler.send(404, _error(f"no route {method} {handler.path}"))

    def _upload(self, content_type: str, raw: bytes) -> dict[str, Any]:
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
        fields = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = fields["file"].get_payload(decode=True)
        purpose = fields["purpose"].get_payload(decode=True).decode()
        self.uploads.append({"id": file_id, "purpose": purpose})
        return {"id": file_id, "object": "file", "bytes": len(self.files[file_id]), "created_at": int(time.time()),
                "filename": fields["file"].get_filename(), "purpose": purpose, "status": "processed"}

    def _create(self, body: Mapping[str, Any]) -> dict[str, Any]:
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].decode().splitlines() if line]
        batch_id = f"batch_{next(self._ids)}"
        if self.hold_new:
            self.held.add(batch_id)
        self.batches[batch_id] = {"request": dict(body), "lines": lines, "polls": 0, "status": "validating",
                                  "output_file_id": None, "error_file_id": None}
        return self._object(batch_id)

    def _poll(self, batch: dict[str, Any]) -> dict[str, Any]:
        batch["polls"] += 1
        if batch["status"] not in ("completed", "failed"):
            batch["status"] = "in_progress"
            held = self.hold or next(k for k, v in self.batches.items() if v is batch) in self.held
            if not held and batch["polls"] >= self.polls_to_finish:
                self._finish(batch)
        return self._object(next(k for k, v in self.batches.items() if v is batch))

    def _finish(self, batch: dict[str, Any]) -> None:
        if self.fail_batches:
            batch["status"] = "failed"
            return
        out, errors = [], []
        for i, line in enumerate(batch["lines"]):
            reply = self.responder(line["body"], 1)
            if reply.status == 200:
                response = {"status_code": 200, "request_id": f"req_{i}",
                            "body": _completion_payload(line["body"], reply)}
                out.append({"id": f"batch_req_{i}", "custom_id": line["custom_id"], "response": response,
                            "error": None})
            else:
                response = {"status_code": reply.status, "request_id": f"req_{i}",
                            "body": _error(reply.error_message)}
                errors.append({"id": f"batch_req_{i}", "custom_id": line["custom_id"], "response": response,
                               "error": None})
        for name, rows in (("output_file_id", out), ("error_file_id", errors)):
            if rows:
                file_id = f"file-{next(self._ids)}"
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                batch[name] = file_id
        batch["status"] = "completed"

    def _object(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        total = len(batch["lines"])
        done = total if batch["status"] == "completed" else min(total, batch["polls"] // 2)
        errors = {"object": "list", "data": [{"code": "invalid", "message": "scripted batch failure"}]} \
            if batch["status"] == "failed" else None
        return {"id": batch_id, "object": "batch", "endpoint": batch["request"]["endpoint"],
                "input_file_id": batch["request"]["input_file_id"],
                "completion_window": batch["request"]["completion_window"], "status": batch["status"],
                "created_at": int(time.time()), "output_file_id": batch["output_file_id"],
                "error_file_id": batch["error_file_id"], "errors": errors,
                "request_counts": {"total": total, "completed": done, "failed": 0},
                "metadata": batch["request"].get("metadata")}


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "scripted", "code": None}}
