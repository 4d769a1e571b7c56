"""The publish secret scan reads parquet columns under any compression and flags URLs that carry a password."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nycc_bench.publish.files import scan_secrets

URL = "http://user:hunter2hunter2@10.0.0.5:8000/v1"


@pytest.mark.parametrize("compression", ["zstd", "snappy", "gzip", "brotli", "none"])
def test_a_url_with_a_password_in_a_compressed_parquet_column_is_found(tmp_path: Path, compression: str) -> None:
    table = pa.table({"id": ["1", "2"], "meta": [{"base_url": "http://10.0.0.5/v1"}, {"base_url": URL}],
                      "notes": [["fine"], ["also fine"]]})
    pq.write_table(table, tmp_path / "data.parquet", compression=compression)
    (finding,) = scan_secrets(tmp_path)
    assert "column meta, row group 0 row 1" in finding and "user and password" in finding
    assert "hunter2" not in finding  # the finding never repeats the value


def test_known_secrets_are_found_inside_compressed_parquet(tmp_path: Path) -> None:
    pq.write_table(pa.table({"text": ["a", "the key is sk-known-secret-value"]}), tmp_path / "d.parquet",
                   compression="zstd")
    assert any("secret from this environment" in f for f in scan_secrets(tmp_path, ["sk-known-secret-value"]))


def test_text_files_with_a_password_url_are_flagged_and_clean_ones_are_not(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(f"reproduce: nycc-bench evaluate --base-url {URL}\n")
    (tmp_path / "ok.md").write_text("reproduce: nycc-bench evaluate --base-url http://10.0.0.5:8000/v1\n")
    (finding,) = scan_secrets(tmp_path)
    assert finding.startswith(f"{tmp_path / 'README.md'}:1:") and "user and password" in finding
    pq.write_table(pa.table({"x": ["plain"]}), tmp_path / "clean.parquet", compression="zstd")
    assert len(scan_secrets(tmp_path)) == 1
