"""Upstream files read defensively (CSV with the standard library, parquet shards): faults name file, row, fix."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import SourceError


def records_before(data: bytes, offset: int) -> int:
    """The 0-based record number (header = 0) that byte `offset` falls in, counting quoted newlines right."""
    text = data[:offset].decode("utf-8", errors="replace")
    return max(0, sum(1 for _ in csv.reader(io.StringIO(text, newline=""))) - 1)


def decode(path: Path, data: bytes) -> str:
    """UTF-8 text of a file (a BOM is dropped); another encoding is an error naming the row it breaks in."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as bad:
        raise SourceError(path, f"byte {bad.start} (0x{data[bad.start]:02x}) is not UTF-8 text (wrong encoding?)",
                          "re-save the file as UTF-8", row=records_before(data, bad.start)) from None


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or an error naming it (missing, unreadable)."""
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise SourceError(path, f"cannot read the file ({err.strerror})",
                          "check the path and its permissions") from None


def read_rows(path: Path) -> list[list[str]]:
    """Every record of a CSV file, header first; empty, undecodable, unclosed-quote and unparsable files fail."""
    data = read_bytes(path)
    if not data.strip():
        raise SourceError(path, "the file is empty", "restore the file from upstream", row=0)
    if data.count(b'"') % 2:
        raise SourceError(path, "a quoted field is never closed (the file looks truncated)",
                          "download the file again", row=records_before(data, data.rindex(b'"')))
    reader = csv.reader(io.StringIO(decode(path, data), newline=""), strict=True)
    try:
        return [row for row in reader if row]
    except csv.Error as bad:
        raise SourceError(path, f"the CSV cannot be parsed ({bad})", "download the file again",
                          row=max(0, reader.line_num - 1)) from None


def read_dicts(path: Path, columns: list[str]) -> list[dict[str, str]]:
    """Records as dicts keyed by the header, which must hold `columns`; a record of another width is an error."""
    rows = read_rows(path)
    header = rows[0]
    if missing := [c for c in columns if c not in header]:
        raise SourceError(path, f"missing column {', '.join(missing)}",
                          f"the header must hold {','.join(columns)}", row=0)
    for i, row in enumerate(rows[1:], start=1):
        if len(row) != len(header):
            raise SourceError(path, f"{len(row)} fields where the header has {len(header)} (the file looks "
                              "truncated, or a field holds an unquoted comma)",
                              "download the file again or quote the field", row=i)
    return [dict(zip(header, row, strict=True)) for row in rows[1:]]


def read_parquet(path: Path, columns: list[str] | None = None) -> pa.Table:
    """A parquet shard, or an error naming it when it is truncated, empty, not parquet at all or without a column.

    Read as one file (`ParquetFile`), not through `pq.read_table`, whose dataset layer imports pandas."""
    try:
        with pq.ParquetFile(path) as shard:
            if missing := [c for c in columns or () if c not in shard.schema_arrow.names]:
                raise SourceError(path, f"missing column {', '.join(missing)}",
                                  f"the shard must hold {', '.join(columns or ())}; download it again")
            return shard.read(columns=columns)
    except (pa.ArrowInvalid, OSError) as err:
        raise SourceError(path, f"not a readable parquet file ({str(err).split(': ', 1)[-1]})",
                          "download the shard again") from None
