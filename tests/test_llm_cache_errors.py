"""A damaged judge cache and a full disk end the run with one line naming the cache file and the fix."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer, Reply

from nycc_bench.llm.cache import CACHE_FILE, LLMCache
from nycc_bench.llm.chat import Completion
from nycc_bench.llm.errors import CacheError

ROOT = Path(__file__).resolve().parents[1]


def test_a_damaged_cache_file_is_one_line_naming_the_file_to_delete(tmp_path: Path, sample_dataset: str) -> None:
    cache = tmp_path / "cache" / "judge"
    cache.mkdir(parents=True)
    (cache / CACHE_FILE).write_bytes(b"this is not a database" * 200)
    with FakeChatServer(lambda body, attempt: Reply(text="A")) as server:
        done = subprocess.run([sys.executable, "-m", "nycc_bench.cli", "evaluate", "--system", "openai:fake",
                               "--base-url", server.base_url, "--tasks", "matching", "--dataset", sample_dataset,
                               "--quiet", "--out", str(tmp_path / "run")], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test",
                                   "NYCC_BENCH_CACHE": str(tmp_path / "cache")}, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert f"judge cache: {cache / CACHE_FILE} is damaged" in lines[0] and "to start a new cache" in lines[0]
    assert f"delete {cache / CACHE_FILE}" in lines[0]


class FullDisk:
    """A connection whose writes fail as SQLite's do when the disk is full."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith("INSERT"):
            raise sqlite3.OperationalError("database or disk is full")
        return self.db.execute(sql, *args)

    @property
    def in_transaction(self) -> bool:
        return self.db.in_transaction

    def close(self) -> None:
        self.db.close()


def test_a_full_disk_is_one_line_and_nothing_is_written_half(tmp_path: Path) -> None:
    cache = LLMCache(tmp_path)
    cache.put("k1", Completion(text="kept"), "m", "v1")
    cache._db = FullDisk(cache._db)  # type: ignore[assignment]
    with pytest.raises(CacheError, match=rf"^judge cache: cannot write {tmp_path / CACHE_FILE}: the disk is full; "
                                         r"free space on .* and run again; nothing was written half$"):
        cache.put("k2", Completion(text="lost"), "m", "v1")
    cache._db = cache._db.db  # type: ignore[attr-defined]
    assert cache.get("k1") == Completion(text="kept") and cache.get("k2") is None and len(cache) == 1
    cache.close()


def test_a_damaged_row_names_the_file(tmp_path: Path) -> None:
    with LLMCache(tmp_path) as cache:
        cache._db.execute("INSERT INTO completions VALUES ('k', '{not json', 'm', 'v', 0, NULL)")
        with pytest.raises(CacheError, match=rf"{tmp_path / CACHE_FILE} is damaged .*delete"):
            cache.get("k")
