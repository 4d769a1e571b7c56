"""A scripted OpenAI-compatible chat server on 127.0.0.1 (stdlib only), for tests and benchmarks (not shipped).

    def responder(body: dict, attempt: int) -> Reply:      # attempt: 1 for the first time this body is seen
        return Reply(text="A", top_logprobs=[("A", -0.1), ("B", -2.4)])

    with FakeChatServer(responder) as server:
        config = LLMConfig(base_url=server.base_url, model="fake")
        ...
        server.requests                                    # every request: body, status, time, attempt

Replies can be delayed, fail with any status and headers (429 + ``retry-after``, 500…), omit log-probabilities
(``top_logprobs=None``) or carry any text; for fault injection a reply can also replace the whole body with raw
bytes (invalid JSON, ``choices: [null]``…), promise more bytes than it sends and hang up (a truncated body), or
drip its body out over some seconds. The ``Authorization`` header is kept only as a SHA-256 digest. With
``models=[{"id": ..., "root": ...}]`` it answers ``GET /v1/models`` (counted in ``model_requests``), and with
``system_fingerprint`` it reports one in every completion: two servers can serve "different checkpoints".
With ``completions=responder`` it also answers ``POST /v1/completions`` (the legacy completions API, whose replies
a test scripts as ``Reply(body=...)``, e.g. :func:`echo_payload`); without it that route is 404 (a chat-only server).
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """What the server answers to one request."""

    text: str = "A"
    top_logprobs: Sequence[tuple[str, float]] | None = (("A", -0.1), ("B", -2.4))
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    error_message: str = "scripted failure"
    prompt_tokens: int = 10
    completion_tokens: int = 5
    body: bytes | None = None  # sent verbatim instead of the JSON completion (status 200 only)
    truncate_to: int | None = None  # send only this many body bytes, then close (Content-Length stays whole)
    drip_s: float = 0.0  # spread the body over this many seconds, a few bytes at a time


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it."""

    body: dict[str, Any]
    attempt: int
    status: int
    received: float
    auth_sha256: str | None


Responder = Callable[[dict[str, Any], int], Reply]


def body_digest(body: Mapping[str, Any]) -> str:
    """Identity of a request body (attempts are counted per identical body)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def last_user_text(body: Mapping[str, Any]) -> str:
    """The text of the last user message of a request body (content parts joined)."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


class FakeChatServer:
    """``POST /v1/chat/completions`` answered by ``responder``; everything else is 404."""

    def __init__(self, responder: Responder | None = None, delay_s: float = 0.0,
                 models: Sequence[Mapping[str, Any]] | None = None, system_fingerprint: str | None = None,
                 completions: Responder | None = None) -> None:
        self.responder: Responder = responder or (lambda body, attempt: Reply())
        self.completions = completions  # POST /v1/completions (None: no such route)
        self.delay_s = delay_s
        self.models = list(models) if models is not None else None  # GET /v1/models entries (None: no such route)
        self.system_fingerprint = system_fingerprint  # sent in every completion when set
        self.model_requests = 0  # GET /v1/models requests received
        self.connections = 0  # TCP connections accepted (counted in the accepting thread, in arrival order)
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)  # notified as each request is recorded
        self._requests: list[RecordedRequest] = []
        self._attempts: dict[str, int] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("server not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def count(self, status: int | None = None) -> int:
        """Number of requests received (with that reply status)."""
        with self._lock:
            return sum(1 for r in self._requests if status is None or r.status == status)

    def wait_for_count(self, n: int, limit_s: float = 120) -> int:
        """The number of requests received, once it is at least `n` (or `limit_s` has passed: a guard, not a
        speed test). A client may give up on a request (its timeout) before a loaded server's thread has read
        it; the server records it later."""
        with self._arrived:
            self._arrived.wait_for(lambda: len(self._requests) >= n, timeout=limit_s)
            return len(self._requests)

    def connections_so_far(self) -> int:
        """Connections accepted before this call's own probe connection: exact, as the listen queue is FIFO.

        Every connection a client opened before the call (even one whose client has died since) is counted,
        so a later rise of :attr:`connections` means someone connected after the call.
        """
        assert self._server is not None
        with socket.create_connection(("127.0.0.1", self._server.server_address[1])) as probe:
            probe.sendall(b"GET /probe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            while probe.recv(4096):
                pass
        with self._lock:
            return self.connections

    def reset(self) -> None:
        """Forget recorded requests and attempt counters."""
        with self._lock:
            self._requests.clear()
            self._attempts.clear()

    def start(self) -> FakeChatServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # else headers and body wait on delayed ACKs (~40 ms a reply)

            def log_message(self, format: str, *args: Any) -> None:  # silence the default stderr log
                return None

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models") and owner.models is not None:
                    with owner._lock:
                        owner.model_requests += 1
                    self._send(200, {"object": "list", "data": owner.models}, {})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                legacy = self.path.rstrip("/").endswith("/v1/completions") and owner.completions is not None
                if not (legacy or self.path.rstrip("/").endswith("/chat/completions")):
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                    return
                body = json.loads(raw or b"{}")
                owner._handle(self, body, owner.completions if legacy else owner.responder)

            def _send(
                self,
                status: int,
                payload: dict[str, Any] | bytes,
                headers: Mapping[str, str],
                reply: Reply | None = None,
            ) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    if reply is not None and reply.truncate_to is not None:
                        self.wfile.write(data[: reply.truncate_to])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                    elif reply is not None and reply.drip_s > 0:
                        chunks = [data[i : i + 16] for i in range(0, len(data), 16)]
                        for chunk in chunks:
                            time.sleep(reply.drip_s / len(chunks))
                            self.wfile.write(chunk)
                            self.wfile.flush()
                    else:
                        self.wfile.write(data)
                except OSError:  # the client gave up (timeout): nothing to tell it
                    self.close_connection = True

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 256

            def handle_error(self, request: Any, client_address: Any) -> None:  # a client that hung up
                return None

            def process_request(self, request: Any, client_address: Any) -> None:
                with owner._lock:
                    owner.connections += 1
                super().process_request(request, client_address)

        self._server = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handle(self, handler: Any, body: dict[str, Any], responder: Responder) -> None:
        digest = body_digest(body)
        with self._lock:
            attempt = self._attempts.get(digest, 0) + 1
            self._attempts[digest] = attempt
        reply = responder(body, attempt)
        auth = handler.headers.get("Authorization")
        with self._lock:
            self._requests.append(
                RecordedRequest(
                    body=body,
                    attempt=attempt,
                    status=reply.status,
                    received=time.monotonic(),
                    auth_sha256=hashlib.sha256(auth.encode()).hexdigest() if auth else None,
                )
            )
            self._arrived.notify_all()
        delay = reply.delay_s + self.delay_s
        if delay:
            time.sleep(delay)
        if reply.status != 200:
            error = {"error": {"message": reply.error_message, "type": "scripted", "code": str(reply.status)}}
            handler._send(reply.status, error, reply.headers)
            return
        payload = reply.body if reply.body is not None else _completion_payload(body, reply, self.system_fingerprint)
        handler._send(200, payload, reply.headers, reply)


def _completion_payload(body: Mapping[str, Any], reply: Reply, fingerprint: str | None = None) -> dict[str, Any]:
    logprobs = None
    if body.get("logprobs") and reply.top_logprobs is not None:
        k = int(body.get("top_logprobs") or 0)
        top = list(reply.top_logprobs)[: max(k, 1)]
        first_token, first_logprob = top[0]
        logprobs = {
            "content": [
                {
                    "token": first_token,
                    "logprob": first_logprob,
                    "bytes": None,
                    "top_logprobs": [{"token": t, "logprob": lp, "bytes": None} for t, lp in top[:k]],
                }
            ],
            "refusal": None,
        }
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        **({"system_fingerprint": fingerprint} if fingerprint else {}),
        "choices": [  # `n` choices when the request asks for n generations
            {
                "index": k,
                "message": {"role": "assistant", "content": reply.text},
                "finish_reason": "stop",
                "logprobs": logprobs,
            }
            for k in range(int(body.get("n") or 1))
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


def echo_payload(prompts: Sequence[Sequence[int]], logprobs: Callable[[Sequence[int]], Sequence[float | None]] | None,
                 texts: Sequence[str] | None = None) -> bytes:
    """A completions reply body: one choice per token-id prompt, with each prompt token's log-probability (vLLM's
    `echo` + `logprobs` shape: None for the first token) when `logprobs` gives them, else no logprobs at all;
    `texts` (one per choice) for a generation reply."""
    choices = []
    for k, prompt in enumerate(prompts):
        values = None if logprobs is None else [None, *list(logprobs(prompt))[1:]]
        choices.append({"index": k, "text": texts[k] if texts else "x", "finish_reason": "length",
                        "logprobs": None if values is None else {
                            "tokens": [f"t{t}" for t in prompt], "token_logprobs": values,
                            "top_logprobs": None, "text_offset": list(range(len(prompt)))}})
    tokens = sum(map(len, prompts))
    return json.dumps({"id": "cmpl-fake", "object": "text_completion", "created": int(time.time()), "model": "fake",
                       "choices": choices, "usage": {"prompt_tokens": tokens, "completion_tokens": len(prompts),
                                                     "total_tokens": tokens + len(prompts)}}).encode()


def main(argv: Sequence[str] | None = None) -> None:
    """``python tests/fake_openai.py --delay 0.1 --text "..."``: serve one fixed reply until killed;
    the first line printed is the base URL."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--text", default="A", help="reply text")
    args = parser.parse_args(argv)
    reply = Reply(text=args.text, delay_s=args.delay)
    server = FakeChatServer(lambda body, attempt: reply).start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
