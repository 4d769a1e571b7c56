"""The one home of reading a dataset's splits: which parquet files a local folder holds for a config and split
(`local_files`, `config_data_files`; a missing one is one line with the fix), a split as `Rows` over its Arrow table
(`read_rows`: what builders, baselines and scoring read; pyarrow alone for a local folder, so a run on a built
dataset imports neither `datasets` nor pandas) and as a `datasets.Dataset` (`load_split`: for callers that use
its API). A Hub repo is always read through `datasets` (`load_dataset` stays the public path for users).

Imports nothing heavy at import time: the novelty index and the preflight list files through it too."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import NyccBenchError

if TYPE_CHECKING:
    from .kinds.rows import Rows


def missing_split(dataset: str, config: str, split: str) -> str | None:
    """Why a local dataset folder cannot give this config's split (one line with the fix), or None when it can
    or when the dataset is not a local folder (a Hub repo is asked when it loads). Reads no rows: the preflight
    asks it of every config a run will read before anything runs."""
    root = Path(dataset)
    if not (root.is_dir() and (root / "data").is_dir()):
        return None
    folder = root / "data" / config
    for part in split.split("+"):
        if not any(folder.glob(f"{part}-*.parquet")):
            have = sorted({f.name.split("-")[0] for f in folder.glob("*.parquet")})
            if not have:
                from .building import build_command

                return f"dataset: {dataset} has no config {config!r}; add it with `{build_command(dataset, config)}`"
            return f"split: config {config!r} has no split {part!r}; it has {', '.join(have)}"
    return None


def local_files(dataset: str, config: str, split: str) -> list[str] | None:
    """The parquet files of one split of a local dataset folder, by absolute path, or None when the dataset is not
    a local folder (a Hub repo); a split the folder lacks is one line with the fix."""
    root = Path(dataset)
    if not (root.is_dir() and (root / "data").is_dir()):
        return None
    if problem := missing_split(dataset, config, split):
        raise NyccBenchError(problem)
    return sorted(str(f.resolve()) for f in (root / "data" / config).glob(f"{split}-*.parquet"))


def config_data_files(dataset: str | Path, config: str) -> dict[str, list[str]]:
    """Every split's parquet files of one config of a local dataset folder (`data/CONFIG/SPLIT-*.parquet`, the
    layout `nycc-bench build` writes and its card declares), by absolute path, as `datasets`'
    `load_dataset_builder(folder, config).config.data_files` lists them; FileNotFoundError when it has none."""
    out: dict[str, list[str]] = {}
    for file in sorted((Path(dataset) / "data" / config).glob("*-*.parquet")):
        out.setdefault(file.name.split("-")[0], []).append(str(file.resolve()))
    if not out:
        raise FileNotFoundError(f"no parquet files under {Path(dataset) / 'data' / config}")
    return out


def load_split(dataset: str, config: str, split: str) -> Any:
    """One split of one config as a `datasets.Dataset`, from a local folder or a Hub repo, with a clear error for a
    missing split; `a+b` (the `datasets` split syntax) is split `a`'s rows followed by split `b`'s.

    A local folder's parquet files are read by absolute path (the `parquet` loader keys its cache on the files'
    paths and modification times), so a dataset rebuilt in place, or two folders of the same name, never give
    stale rows from the cache. Building and scoring instances read `read_rows` instead (no `datasets` import).
    """
    import datasets

    if "+" in split:
        return datasets.concatenate_datasets([load_split(dataset, config, part) for part in split.split("+")])
    if (files := local_files(dataset, config, split)) is not None:
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


def read_rows(dataset: str, config: str, split: str) -> Rows:
    """One split of one config as `Rows` (what builders and baselines read): a local folder's parquet files through
    pyarrow alone, so a run on a built dataset imports neither `datasets` nor pandas; a Hub repo through
    `load_split` (the rows `datasets` downloaded, as an Arrow table). `a+b` as in `load_split`."""
    from .kinds.rows import Rows, image_columns

    files = [local_files(dataset, config, part) for part in split.split("+")]
    if any(f is None for f in files):
        loaded = load_split(dataset, config, split)
        images = [n for n, f in loaded.features.items() if type(f).__name__ == "Image"]
        return Rows(loaded.with_format("arrow")[:], images)
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = [pq.ParquetFile(f).read() for part in files for f in part or ()]  # read_table would import pandas
    table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    return Rows(table, image_columns(tables[0].schema))
