"""The one writer every family shares: deterministic parquet shards and their info for the card (no `datasets`)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..dataset_info import ConfigInfo
from ..feature_types import Features, arrow_schema, has_image

MAX_ROWS_PER_SHARD = 500_000
IMAGE_ROWS_PER_SHARD = 2_000  # image configs: keeps shards near the Hub's few-hundred-MB sweet spot
# The Hub's dataset viewer reads one row group at a time and refuses groups over ~100 MB: text rows are a few
# hundred bytes (100,000 rows ~ 10-30 MB), a cartoon is up to ~1 MB (100 rows stay far below the limit).
TEXT_ROWS_PER_GROUP = 100_000
IMAGE_ROWS_PER_GROUP = 100


@dataclass(frozen=True)
class ConfigSpec:
    """What a config is: its name, the family that builds it, its features (JSON form, `feature_types.py`; a
    `datasets.Features` is taken as its `to_dict()`) and a paragraph for the card."""

    name: str
    family: str
    features: Features
    description: str

    def __post_init__(self) -> None:
        """Keep the features in their JSON form, whatever form they came in."""
        features: Any = self.features
        object.__setattr__(self, "features", features.to_dict() if hasattr(features, "to_dict") else dict(features))

    @property
    def arrow_schema(self) -> pa.Schema:
        """The config's Arrow schema, with the features as `huggingface` metadata (`Features.arrow_schema`)."""
        return arrow_schema(self.features)


@dataclass
class BuiltConfig:
    """A config's spec, its splits as Arrow tables and its license (None: the family's), ready for the writer."""

    spec: ConfigSpec
    splits: dict[str, pa.Table]
    license: str | None = None
    upstream_files: dict[str, list[str]] = field(default_factory=dict)  # split -> upstream files, in read order


def _rows_per_shard(features: Features) -> int:
    """Image rows are large, so shard them more finely than text rows."""
    return IMAGE_ROWS_PER_SHARD if has_image(features) else MAX_ROWS_PER_SHARD


def rows_per_group(features: Features) -> int:
    """Parquet row-group size: small enough for the Hub's viewer (<= 100 MB per group)."""
    return IMAGE_ROWS_PER_GROUP if has_image(features) else TEXT_ROWS_PER_GROUP


def _dictionary_columns(table: pa.Table) -> list[str]:
    """Dictionary-encode only repetitive columns (run ids, algorithms, contest numbers, vote counts), not unique free
    text; floats never (their few repeats do not pay for a dictionary)."""
    sample = table.slice(0, 10_000)
    return [f.name for f in table.schema if (pa.types.is_string(f.type) or pa.types.is_integer(f.type))
            and sample.num_rows and pc.count_distinct(sample[f.name]).as_py() <= sample.num_rows // 10]


def _leaf_columns(schema: pa.Schema) -> list[str]:
    """The parquet column paths of a schema (`image.bytes` for a struct's field), which per-column settings name."""
    sink = pa.BufferOutputStream()
    pq.write_table(schema.empty_table(), sink)
    columns = pq.ParquetFile(pa.BufferReader(sink.getvalue())).schema
    return [columns.column(i).path for i in range(len(columns))]


def encoding(table: pa.Table) -> dict:
    """How a shard's columns are encoded: what `pq.write_table` is given besides the row-group size.

    Chosen for what it costs to write: writing is a third of the 2.2M-caption `caption_ratings` build's CPU
    (`benchmarks/build.py --synthetic 2.2M`, which writes the same rows in the previous encoding beside it: all
    snappy with plain whole numbers, 185.5 MB, against about 160 MB now). Each choice is a standard parquet
    encoding every reader of parquet-format 2 reads (LZ4_RAW, 0.1 s of CPU faster on 2.2M captions at the same
    size, was measured and left out: it needs parquet-format 2.9 readers), and pyarrow and `datasets` read the
    files back as the same table (`tests/test_build_writer.py`):
    - free text (a string column that does not repeat) is snappy-compressed without min/max statistics (nobody
      filters on a caption's alphabetical range; comparing every caption for them cost 0.03 s);
    - a whole-number column is dictionary-encoded where it repeats (contest numbers, vote counts: bit-packed
      indices) and DELTA_BINARY_PACKED where it does not (ranks, target ids), and left uncompressed: smaller than
      snappy over plain 64-bit values, without compressing them;
    - everything else (floats, flags, repetitive text, images, lists) stays snappy-compressed as before.
    The choices depend only on the table, so the same rows give the same bytes.
    """
    leaves = _leaf_columns(table.schema)
    dictionary = _dictionary_columns(table)
    top = {f.name: f.type for f in table.schema}
    text = [c for c in leaves if c in top and pa.types.is_string(top[c]) and c not in dictionary]
    whole = [c for c in leaves if c in top and pa.types.is_integer(top[c])]
    return {
        "compression": {c: "none" if c in whole else "snappy" for c in leaves},
        "use_dictionary": dictionary,
        "column_encoding": {c: "DELTA_BINARY_PACKED" for c in whole if c not in dictionary} or None,
        "write_statistics": [c for c in leaves if c not in text],
    }


def data_path(config: str, split: str) -> str:
    """The glob a config's split is published under, relative to the dataset root."""
    return f"data/{config}/{split}-*"


def _in_schema(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """The table's columns in the schema's order, types and metadata: a table already of those types (a build's
    own rows) only takes the metadata, without a cast call per chunk and column (365 runs x 20 at 2.2M)."""
    table = table.select(schema.names)
    same = table.schema.remove_metadata().equals(schema.remove_metadata(), check_metadata=True)  # (fields' too)
    return table.replace_schema_metadata(schema.metadata) if same else table.cast(schema)


def write_config(out_dir: Path, built: BuiltConfig) -> ConfigInfo:
    """Write each split as `data/<config>/<split>-NNNNN-of-NNNNN.parquet` and return the config's info.

    The schema carries the `datasets` features, so an image column decodes as an image on load; the same
    tables give byte-identical files (no timestamps, fixed row-group size).
    """
    spec = built.spec
    schema = spec.arrow_schema
    per_shard = _rows_per_shard(spec.features)
    folder = Path(out_dir) / "data" / spec.name
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.parquet"):
        stale.unlink()
    tables = {split: _in_schema(table, schema) for split, table in built.splits.items()}
    jobs = []
    for split, table in tables.items():
        n_shards = max(1, -(-table.num_rows // per_shard))
        jobs += [(table.slice(i * per_shard, per_shard), folder / f"{split}-{i:05d}-of-{n_shards:05d}.parquet")
                 for i in range(n_shards)]
    # Arrow encodes without the GIL: shards are written in parallel, each to its own fixed name, the largest first
    # (so that the small ones fill the last gaps instead of one large shard running alone at the end).
    jobs.sort(key=lambda job: -job[0].num_rows)
    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        list(pool.map(lambda job: pq.write_table(
            job[0], job[1], row_group_size=rows_per_group(spec.features), **encoding(job[0])), jobs))
    splits = {split: (t.nbytes, t.num_rows) for split, t in tables.items()}  # (nbytes walks every chunk: once)
    download = sum(p.stat().st_size for p in folder.glob("*.parquet"))
    return ConfigInfo(spec.name, spec.features, splits, download, sum(size for size, _ in splits.values()))
