"""Replies holding text no file can hold (a lone surrogate escaped in the JSON, invalid UTF-8 bytes) are
replaced by U+FFFD and counted; the run writes its predictions and goes on."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply

from nycc_bench.llm import ChatRequest
from nycc_bench.llm.backends.openai_reply import parse_chat_reply
from nycc_bench.runner import run_task

USAGE = '"usage": {"prompt_tokens": 3, "completion_tokens": 2}'


def body(content_json: bytes) -> bytes:
    return b'{"choices": [{"message": {"content": ' + content_json + b'}, "finish_reason": "stop"}], ' + \
        USAGE.encode() + b"}"


def test_the_reply_reader_replaces_and_counts() -> None:
    request = ChatRequest(messages=({"role": "user", "content": "hi"},), max_tokens=5, temperature=0)
    completion = parse_chat_reply(body(b'"A\\ud800 caf\xc3\xa9 \xff\xfe!"'), request, str, str)
    assert completion.text == "A\ufffd caf\u00e9 \ufffd\ufffd!" and completion.replaced == 3
    completion.text.encode("utf-8")  # writable


def test_a_run_whose_replies_cannot_be_encoded_goes_on(tmp_path: Path, sample_dataset: str,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    def reply(request: dict, attempt: int) -> Reply:
        return Reply(body=body(b'"A \\udc80\xff"'))

    with FakeChatServer(reply) as server, caplog.at_level(logging.WARNING):
        out = tmp_path / "matching.jsonl"
        summary = run_task("matching", "openai:fake", out, dataset=sample_dataset, base_url=server.base_url,
                           progress=False, system_options={"cache_dir": str(tmp_path / "cache")})
    assert summary.failed == 0 and summary.total == 4
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 4 and all(r["raw"] == "A \ufffd\ufffd" for r in lines)
    counted = [r.getMessage() for r in caplog.records if "cannot be encoded" in r.getMessage()]
    assert counted == ["a reply held 2 characters that cannot be encoded; replaced by U+FFFD"] * 4
