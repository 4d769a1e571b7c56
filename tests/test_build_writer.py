"""The writer's encodings: chosen per column for what they cost to write, read back as the same table."""

from __future__ import annotations

from pathlib import Path

import datasets
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from nycc_bench.builders.writer import BuiltConfig, ConfigSpec, encoding, write_config

FEATURES = datasets.Features({
    "contest": datasets.Value("int32"), "run_id": datasets.Value("string"), "rank": datasets.Value("int32"),
    "target_id": datasets.Value("int64"), "caption": datasets.Value("string"), "mean": datasets.Value("float64"),
    "votes": datasets.Value("int64"), "flag": datasets.Value("bool"), "duplicate_of": datasets.Value("int32"),
    "words": datasets.List(datasets.Value("string")), "image": datasets.Image(),
})


def _table(n: int) -> pa.Table:
    """Rows shaped like `caption_ratings` (repetitive numbers and ids, unique text, unique ranks), with nulls, a
    list and an image column beside them."""
    rng = np.random.default_rng(0)
    rows = [{"contest": 500 + i // 700, "run_id": f"repo/{500 + i // 700}_summary_KLUCB.csv", "rank": i % 700,
             "target_id": int(rng.integers(0, 10**6)), "caption": f"caption {i} {'x' * (i % 37)}\u00e9",
             "mean": float(rng.random() * 2 + 1), "votes": int(rng.integers(20, 60)), "flag": i % 9 == 0,
             "duplicate_of": None if i % 3 else 499, "words": ["a", str(i)] if i % 5 else None,
             "image": {"bytes": bytes([i % 256]) * 8, "path": f"{i}.png"} if i % 4 == 0 else None}
            for i in range(n)]
    return pa.Table.from_pylist(rows, schema=FEATURES.arrow_schema)


def test_the_encodings_read_back_as_the_same_table_and_bytes(tmp_path: Path) -> None:
    """Free text is snappy without statistics, repetitive whole numbers dictionary-encoded and the others
    delta-encoded, both uncompressed, the rest snappy; `load_dataset` and pyarrow read back exactly the table written
    (schema, features, rows, order, row groups), and the same table gives the same bytes."""
    spec = ConfigSpec("ratings", "zhang2024", FEATURES, "test")
    table = _table(1_500)  # (one shard: an image config has 2,000 rows a shard)
    for out in (tmp_path / "a", tmp_path / "b"):
        write_config(out, BuiltConfig(spec, {"train": table}))
    shard = tmp_path / "a" / "data" / "ratings" / "train-00000-of-00001.parquet"
    assert shard.read_bytes() == (tmp_path / "b" / "data" / "ratings" / shard.name).read_bytes()
    meta = pq.ParquetFile(shard).metadata
    columns = {meta.row_group(0).column(i).path_in_schema: meta.row_group(0).column(i)
               for i in range(meta.num_columns)}
    assert columns["caption"].compression == "SNAPPY" and not columns["caption"].is_stats_set
    for name in ("contest", "run_id", "votes", "duplicate_of"):
        assert "RLE_DICTIONARY" in columns[name].encodings, name
    for name in ("rank", "target_id"):
        assert "DELTA_BINARY_PACKED" in columns[name].encodings and "RLE_DICTIONARY" not in columns[name].encodings
    for name in ("contest", "rank", "target_id", "votes", "duplicate_of"):
        assert columns[name].compression == "UNCOMPRESSED" and columns[name].is_stats_set, name
    for name in ("run_id", "mean", "flag", "words.list.element", "image.bytes", "image.path"):
        assert columns[name].compression == "SNAPPY" and columns[name].is_stats_set, name
    assert pq.read_table(shard).equals(table)
    loaded = datasets.load_dataset("parquet", data_files=str(shard), split="train")
    assert loaded.features == FEATURES and loaded.data.table.equals(table)


def test_an_encoding_names_every_column_of_a_nested_schema() -> None:
    """Per-column settings name each parquet leaf (`image.bytes`), so a nested column is never left uncompressed
    by omission."""
    settings = encoding(_table(50))
    assert set(settings["compression"]) == {"contest", "run_id", "rank", "target_id", "caption", "mean", "votes",
                                            "flag", "duplicate_of", "words.list.element", "image.bytes",
                                            "image.path"}
