"""A rating summary saved twice under two names (byte-identical) is one rating run: read once and reported."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from nycc_bench.builders.nextml import unique_summaries
from nycc_bench.builders.sources import discover
from nycc_bench.builders.zhang2024 import read_runs
from nycc_bench.paths import SAMPLE_DIR

SUMMARIES = "nextml_caption_contest_data_api/contests/summaries"


def test_a_byte_identical_summary_under_another_name_is_read_once(tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    src = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, src)
    original = src / SUMMARIES / "536_summary_LilUCB.csv"
    copy = src / SUMMARIES / "536-round2_summary_LilUCB.csv"
    shutil.copyfile(original, copy)
    before = read_runs(discover(SAMPLE_DIR), progress=False)
    with caplog.at_level(logging.WARNING, logger="nycc_bench.build"):
        after = read_runs(discover(src), progress=False)
    assert len(after) == len(before)
    assert sum(r.table.num_rows for r in after) == sum(r.table.num_rows for r in before)
    assert [r.summary.path.name for r in after] == [r.summary.path.name for r in before]
    (message,) = [r.getMessage() for r in caplog.records if "byte-identical" in r.getMessage()]
    assert f"{copy} is byte-identical to {original}" in message

    kept, duplicates = unique_summaries(discover(src).summaries)
    assert copy.name not in [k.path.name for k in kept]
    assert [(d.path.name, o.path.name) for d, o in duplicates] == [(copy.name, original.name)]
    copy.write_bytes(original.read_bytes().replace(b"\n", b"\r\n", 1))  # one byte differs: another run
    assert unique_summaries(discover(src).summaries)[1] == []
