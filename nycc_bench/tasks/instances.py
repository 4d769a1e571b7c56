"""Turn a task's dataset rows into prompts (instances) any system can answer: the shared half (reading a split,
calling the task file's `instances:` builder, checking its ids); the builders themselves live in each family's
`kinds.py`, never a branch on a task's name."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import NyccBenchError
from .definition import Task
from .kinds import BUILDERS, Built, Instance, stable_seed
from .registry import config_name

log = logging.getLogger("nycc_bench")
DEFAULT_DATASET = os.environ.get("NYCC_DATASET", "nycc-bench/newyorker-caption-contest")
__all__ = [
    "DEFAULT_DATASET",
    "LEADERBOARD_SPLIT",
    "SOURCE_BYTES",
    "Built",
    "Instance",
    "build",
    "build_instances",
    "leaderboard_config",
    "load_split",
    "row_description",
    "source_images",
    "stable_seed",
    "subset",
]


def load_split(dataset: str, config: str, split: str) -> Any:
    """One split of one config, from a local folder or a Hub repo, with a clear error for a missing split;
    `a+b` (the `datasets` split syntax) is split `a`'s rows followed by split `b`'s.

    A local folder's parquet files are read by absolute path (the `parquet` loader keys its cache on the files'
    paths and modification times), so a dataset rebuilt in place, or two folders of the same name, never give
    stale rows from the cache.
    """
    import datasets

    if "+" in split:
        return datasets.concatenate_datasets([load_split(dataset, config, part) for part in split.split("+")])
    root = Path(dataset)
    if root.is_dir() and (root / "data").is_dir():
        folder = root / "data" / config
        files = sorted(str(f.resolve()) for f in folder.glob(f"{split}-*.parquet"))
        if not files:
            have = sorted({f.name.split("-")[0] for f in folder.glob("*.parquet")})
            if not have:
                from ..building import build_command

                raise NyccBenchError(f"dataset: {dataset} has no config {config!r}; add it with "
                                     f"`{build_command(dataset, config)}`")
            raise NyccBenchError(f"split: config {config!r} has no split {split!r}; it has {', '.join(have)}")
        return datasets.load_dataset("parquet", data_files={split: files}, split=split)
    try:
        splits = datasets.load_dataset(dataset, config)
    except (FileNotFoundError, ValueError, ConnectionError) as err:
        reason = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
        raise NyccBenchError(f"dataset: cannot load config {config!r} from {dataset!r} ({reason}); build it with "
                             f"`nycc-bench build --source upstream --out DIR --configs {config}` and pass --dataset DIR"
                             ) from None
    if split not in splits:
        raise NyccBenchError(f"split: config {config!r} has no split {split!r}; it has {', '.join(splits)}")
    return splits[split]


SOURCE_BYTES = "nycc_bench_source_bytes"  # PIL `info` key: the image file's bytes as the dataset stores them


def source_images(rows: Any, column: str = "image") -> list[Any]:
    """The decoded images of a column, each carrying its file's stored bytes in `info[SOURCE_BYTES]`, so a system
    or judge can send the original file (upstream sends the cartoon's JPEG bytes) instead of a re-encoding."""
    import datasets

    if not isinstance(rows, datasets.Dataset):  # plain rows (a list of mappings): their images as they are
        return [row.get(column) for row in rows]
    if column not in rows.column_names:
        return [None] * len(rows)
    stored = list(rows.select_columns([column]).cast_column(column, datasets.Image(decode=False))[column])
    images = list(rows.select_columns([column])[column])  # a list: a datasets Column decodes anew on each access
    for image, raw in zip(images, stored, strict=True):
        if image is not None and raw and raw.get("bytes"):
            image.info[SOURCE_BYTES] = raw["bytes"]
    return images


LEADERBOARD_SPLIT = "leaderboard"


def leaderboard_config(task: Task, fold: int = 0) -> str:
    """The config of a task's Hessel leaderboard set (`--split leaderboard`): images and captions, no labels, no
    descriptions, as upstream ships it; only the from-pixels matching and ranking tasks can be prompted from it."""
    base = task.config.removesuffix("_from_pixels")
    if task.instances != "hessel" or base not in ("matching", "ranking") or fold:
        raise NyccBenchError(f"split: leaderboard sets exist for matching and ranking (fold 0), not {task.name}")
    if not task.from_pixels:
        raise NyccBenchError(f"split: the leaderboard sets give the cartoon image and captions only (no description, "
                             f"as upstream ships them); run {base}_from_pixels instead of {task.name}")
    return f"{base}_leaderboard"


def row_description(row: Mapping[str, Any]) -> str:
    """The richest text description a row has (Hessel annotations, else the nextml sentence)."""
    parts = [row.get("image_location"), row.get("image_description"), row.get("image_uncanny_description")]
    text = " ".join(p for p in parts if p)
    return text or row.get("description") or ""


def build(task: Task, dataset: str = DEFAULT_DATASET, split: str | None = None, fold: int = 0,
          options: Mapping[str, Any] | None = None) -> Built:
    """Every instance of a task's split and fold, prompts included, with the task's options applied, and the rows
    that cannot be prompted (the scorer records them as a deviation)."""
    split = split or task.split
    config = config_name(task, fold)
    if split == LEADERBOARD_SPLIT:  # Hessel's hidden-label sets: their own configs, one split
        config, split = leaderboard_config(task, fold), "test"
    values = task.options_for("", task.option_values(options))  # unset options: the task's single setting
    rows = load_split(dataset, config, split)
    built = BUILDERS[task.instances](task, rows, lambda s: load_split(dataset, config, s), values)
    if built.skipped:
        log.info("%s: %d of %d rows cannot be prompted (no description): %s", task.name, len(built.skipped),
                 len(rows), ", ".join(map(str, built.skipped[:10])) + (" ..." if len(built.skipped) > 10 else ""))
    if not built.instances:
        raise NyccBenchError(f"dataset: no {task.name} instance in split {split!r} of {dataset} can be prompted")
    seen: set[str] = set()
    for inst in built.instances:
        if inst.instance_id in seen:
            raise NyccBenchError(f"dataset: instance id {inst.instance_id!r} occurs twice in {config}/{split} of "
                                 f"{dataset}; each {task.name} row needs its own id (rebuild the dataset)")
        seen.add(inst.instance_id)
    return built


def subset(instances: list[Instance], limit: int | None) -> list[Instance]:
    """The first `limit` instances in the builder's fixed order (all with None); `limit` must be ≥ 1."""
    if limit is None:
        return instances
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise NyccBenchError(f"limit: expected a whole number ≥ 1, got {limit!r}; leave it out to run everything")
    return instances[:limit]


def build_instances(task: Task, dataset: str = DEFAULT_DATASET, split: str | None = None, fold: int = 0,
                    options: Mapping[str, Any] | None = None) -> list[Instance]:
    """The instances of `build` (for callers that need no skipped rows)."""
    return build(task, dataset, split, fold, options).instances
