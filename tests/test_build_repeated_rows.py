"""A nextml caption row repeated in its file (the same caption with the same ratings) is flagged like the other
upstream duplicates: `is_repeated_row` on every later copy in `caption_ratings`, and its count in the card; the
build names the repeated rows by their file lines."""

from __future__ import annotations

import logging
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_build_corrupt import API_HEADER, SUMMARY, _write

from nycc_bench.builders import build_dataset


def test_a_repeated_caption_row_is_flagged_and_counted_in_the_card(tmp_path: Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    rows = [API_HEADER, "1,5,3,2,10,2.3,0.2,510,Same row", "2,5,3,2,10,2.3,0.2,510,Same row",
            "3,4,4,2,10,2.2,0.2,510,Same text other ratings", "4,2,3,5,10,1.7,0.2,510,Same text other ratings",
            "5,2,3,5,10,1.6,0.2,510,Another", "6,5,3,2,10,2.3,0.2,510,Same row"]
    _write(tmp_path, SUMMARY, "\n".join(rows) + "\n")
    with caplog.at_level(logging.WARNING, logger="nycc_bench.build"):
        build_dataset(tmp_path / "src", tmp_path / "out", ["caption_ratings"], progress=False)
    (note,) = [r.getMessage() for r in caplog.records if "is_repeated_row" in r.getMessage()]
    assert note.startswith(str(tmp_path / "src")) and "lines 3, 7 repeat an earlier row of the file exactly" in note
    table = pq.read_table(next((tmp_path / "out" / "data" / "caption_ratings").glob("train-*.parquet")))
    got = table.select(["caption", "is_repeated_row", "is_duplicate_text"]).to_pylist()
    assert [(r["caption"], r["is_repeated_row"], r["is_duplicate_text"]) for r in got] == [
        ("Same row", False, False), ("Same row", True, True), ("Same row", True, True),
        ("Same text other ratings", False, False), ("Same text other ratings", False, True),
        ("Another", False, False)]
    card = (tmp_path / "out" / "README.md").read_text()
    assert "2 rows repeat an earlier row of their file exactly" in card and "`is_repeated_row`" in card
    assert "3 captions repeat a text rated higher in their run (`is_duplicate_text`)" in card
