"""The dataset card and shards as the Hub reads them: a default config, honest source_datasets, viewer-sized groups."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import yaml
from datasets import load_dataset

from nycc_bench.builders import build_dataset
from nycc_bench.builders.writer import IMAGE_ROWS_PER_GROUP, TEXT_ROWS_PER_GROUP
from nycc_bench.paths import SAMPLE_DIR


def _front_matter(out: Path) -> dict:
    """The card's YAML header."""
    return yaml.safe_load((out / "README.md").read_text().split("---\n")[1])


def test_default_config_and_sources_follow_what_was_built(tmp_path: Path) -> None:
    """Exactly one config is the default (load_dataset(dir) needs no name); Hessel is a source only when built."""
    build_dataset(SAMPLE_DIR, tmp_path / "all", progress=False)
    meta = _front_matter(tmp_path / "all")
    assert [c["config_name"] for c in meta["configs"] if c.get("default")] == ["matching"]
    assert meta["source_datasets"] == ["original", "extended|jmhessel/newyorker_caption_contest"]
    assert set(load_dataset(str(tmp_path / "all"))) == {"train", "validation", "test"}

    build_dataset(SAMPLE_DIR, tmp_path / "hb", ["humorbench", "humorbench_hard"], progress=False)
    meta = _front_matter(tmp_path / "hb")
    assert [c["config_name"] for c in meta["configs"] if c.get("default")] == ["humorbench"]
    assert meta["source_datasets"] == ["original"] and meta["license"] == ["mit"]


def test_row_groups_fit_the_hub_viewer(tmp_path: Path) -> None:
    """Image configs use small row groups (<= 100 rows), text configs up to 100,000 rows, each far under 100 MB."""
    build_dataset(SAMPLE_DIR, tmp_path, ["matching", "caption_ratings"], progress=False)
    for config, limit in (("matching", IMAGE_ROWS_PER_GROUP), ("caption_ratings", TEXT_ROWS_PER_GROUP)):
        for shard in (tmp_path / "data" / config).glob("*.parquet"):
            meta = pq.ParquetFile(shard).metadata
            for i in range(meta.num_row_groups):
                group = meta.row_group(i)
                assert group.num_rows <= limit and group.total_byte_size < 100 * 2**20, (shard, i)
    assert IMAGE_ROWS_PER_GROUP == 100


def test_image_rows_are_grouped_by_100(tmp_path: Path) -> None:
    """250 image rows are written as row groups of 100, 100 and 50; the same input gives the same bytes."""
    import datasets
    import pyarrow as pa

    from nycc_bench.builders.writer import BuiltConfig, ConfigSpec, write_config

    spec = ConfigSpec("pictures", "zhang2024", datasets.Features({"n": datasets.Value("int32"),
                                                                 "image": datasets.Image()}), "test")
    table = pa.Table.from_pylist([{"n": i, "image": {"bytes": bytes([i % 256]) * 64, "path": f"{i}.png"}}
                                  for i in range(250)], schema=spec.arrow_schema)
    for out in (tmp_path / "a", tmp_path / "b"):
        write_config(out, BuiltConfig(spec, {"train": table}))
    shard = tmp_path / "a" / "data" / "pictures" / "train-00000-of-00001.parquet"
    meta = pq.ParquetFile(shard).metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [100, 100, 50]
    assert shard.read_bytes() == (tmp_path / "b" / "data" / "pictures" / shard.name).read_bytes()
