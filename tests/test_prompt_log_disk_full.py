"""Disk full loses nothing already written: the prompt log (`<file>.messages.jsonl.gz`, one gzip member per batch)
is appended whole or not at all, so after a write that fails on a full disk (a real small tmpfs when this runs as
root, and a torn member left by a killed writer everywhere) the earlier members and every later one are readable,
and each record written names only messages the store holds."""

from __future__ import annotations

import errno
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from small_disk import small_tmpfs

from nycc_bench.kinds.registry import Instance
from nycc_bench.predictions import attach_messages, messages_path, record_messages


def batch(k: int) -> tuple[list[Instance], list[dict]]:
    """One batch of two instances with incompressible prompts (a few kB of gzip each)."""
    instances = [Instance(instance_id=f"{k}-{j}", user=secrets.token_hex(1500), system="Answer A or B.")
                 for j in range(2)]
    return instances, [{"instance_id": i.instance_id} for i in instances]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 kB tmpfs (root only)."""
    with small_tmpfs(tmp_path, "64k") as folder:
        yield folder


def test_a_full_disk_tears_no_prompt_log(small_disk: Path) -> None:
    path = small_disk / "matching.jsonl"
    filler = small_disk / "filler"
    filler.write_bytes(b"\0" * 16384)  # what is freed after the failure
    written: list[dict] = []
    full = None
    for k in range(100):
        instances, records = batch(k)
        try:
            attach_messages(path, instances, records)
        except OSError as err:
            full = err
            break
        written += records  # the runner writes these records only now
    assert full is not None and full.errno == errno.ENOSPC and written
    filler.unlink()  # space again: the run resumes
    for k in range(100, 103):
        instances, records = batch(k)
        attach_messages(path, instances, records)
        written += records
    for record in written:
        messages = record_messages(path, record)
        assert messages is not None and len(messages) == 2


def test_a_torn_member_is_cut_off_before_the_next_one_is_appended(tmp_path: Path) -> None:
    path = tmp_path / "matching.jsonl"
    first, records = batch(0)
    attach_messages(path, first, records)
    store = messages_path(path)
    whole = store.read_bytes()
    with open(store, "ab") as f:  # a writer that died half-way through a member (or a failed write)
        f.write(whole[: len(whole) // 2])
    later, more = batch(1)
    attach_messages(path, later, more)
    assert store.read_bytes().startswith(whole)
    for record in records + more:
        assert len(record_messages(path, record) or []) == 2
