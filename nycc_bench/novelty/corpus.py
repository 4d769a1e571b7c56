"""The human captions a generated caption is checked against: every caption of `caption_ratings`, one row per
contest and normalised text, with its rank and reference group, plus the published groups of
`caption_generation`; and the fingerprint of the files they come from."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import NyccBenchError
from ..groups import HUMAN_GROUPS
from ..splits import config_data_files
from .text import normalise, normalise_array

RATINGS, GENERATION = "caption_ratings", "caption_generation"
GROUPS = HUMAN_GROUPS
OTHER = "other"
# Where each fixed group starts in a contest sorted by mean rating (SPEC §3); the median group starts at n//2-5.
GROUP_STARTS = {"human_top10": 0, "human_200": 200, "human_1000": 1000}
GROUP_SIZE = 10
SCHEMA = pa.schema([("contest_number", pa.int32()), ("caption", pa.string()), ("norm", pa.string()),
                    ("rank", pa.int32()), ("group", pa.string()), ("run_id", pa.string())])


def config_files(dataset: str | Path) -> dict[str, list[Path]]:
    """The local parquet files of `caption_ratings` (required) and `caption_generation` (if built), per config."""
    root = Path(dataset)
    if not root.is_dir():
        raise NyccBenchError(f"dataset: {dataset} is not a folder; pass the folder written by `nycc-bench build` "
                             "(download a Hub copy first with `huggingface-cli download --repo-type dataset`)")
    out: dict[str, list[Path]] = {}
    for config in (RATINGS, GENERATION):
        try:
            data_files = config_data_files(root, config)  # the files `load_dataset_builder` lists, no `datasets`
        except (ValueError, FileNotFoundError) as e:
            if config == GENERATION:
                continue
            from ..building import build_command

            raise NyccBenchError(f"dataset: {root} has no {config} config ({str(e).splitlines()[0]}); add it with "
                                 f"`{build_command(root, config)}`") from None
        out[config] = sorted(Path(f) for files in data_files.values() for f in files)
    return out


def fingerprint(files: dict[str, list[Path]]) -> str:
    """sha256 over each file's name and the sha256 of its content: same captions, same index, whatever mtimes."""
    outer = hashlib.sha256()
    for config in sorted(files):
        for path in files[config]:
            inner = hashlib.sha256()
            with open(path, "rb") as f:
                while block := f.read(1 << 20):
                    inner.update(block)
            outer.update(f"{config}/{path.name}:{inner.hexdigest()}\n".encode())
    return outer.hexdigest()


def _read(paths: list[Path], columns: list[str], config: str) -> pa.Table:
    """The named columns of a config's files, concatenated; a missing column is a one-line error."""
    tables = []
    for path in paths:
        names = pq.read_schema(path).names
        if missing := [c for c in columns if c not in names]:
            raise NyccBenchError(f"dataset: {path} ({config}) lacks column(s) {', '.join(missing)}; rebuild the "
                                 "dataset with this version of nycc-bench")
        tables.append(pq.read_table(path, columns=columns))
    return pa.concat_tables(tables) if tables else pa.table({c: [] for c in columns})


def rule_groups(rank: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The reference group a 0-based rank falls in for a run of n captions (SPEC §3), else "other"."""
    out = np.full(rank.shape, OTHER, dtype=object)
    median = n // 2 - 5
    out[(rank >= median) & (rank < median + GROUP_SIZE) & (median >= 0)] = "human_median"
    for group, start in sorted(GROUP_STARTS.items(), key=lambda kv: kv[1], reverse=True):
        out[(rank >= start) & (rank < start + GROUP_SIZE) & (n >= start + GROUP_SIZE)] = group
    return out


def published_groups(paths: list[Path]) -> dict[int, dict[str, str]]:
    """contest → normalised caption → its group in `caption_generation` (the first group listing it wins)."""
    if not paths:
        return {}
    rows = _read(paths, ["contest_number", *GROUPS], GENERATION).to_pylist()
    out: dict[int, dict[str, str]] = {}
    for row in rows:
        lookup = out.setdefault(row["contest_number"], {})
        for group in GROUPS:
            for caption in row[group] or []:
                lookup.setdefault(normalise(caption), group)
    return out


def _published_rows(paths: list[Path]) -> pa.Table:
    """The captions of the published groups as corpus rows, ranked by their group position where it is fixed."""
    rows = []
    for row in _read(paths, ["contest_number", *GROUPS], GENERATION).to_pylist() if paths else []:
        for group in GROUPS:
            for i, caption in enumerate(row[group] or []):
                rank = GROUP_STARTS[group] + i if group in GROUP_STARTS else None
                rows.append({"contest_number": row["contest_number"], "caption": caption,
                             "norm": normalise(caption), "rank": rank, "group": group, "run_id": GENERATION,
                             "primary": 2})  # after every caption_ratings row of the same text
    return pa.Table.from_pylist(rows, schema=SCHEMA.append(pa.field("primary", pa.int8())))


NORMALISE_ROWS = 1 << 16  # captions normalised at a time: bounds the string kernels' temporary copies


def _normalised(captions: pa.ChunkedArray) -> pa.ChunkedArray:
    """`normalise_array` over slices of the captions (the kernels copy their input a few times)."""
    return pa.chunked_array([normalise_array(captions.slice(start, NORMALISE_ROWS))
                             for start in range(0, len(captions), NORMALISE_ROWS)], pa.string())


def build_corpus(files: dict[str, list[Path]]) -> tuple[pa.Table, int]:
    """One row per (contest, normalised caption), sorted by contest; and the number of source rows read.

    A text present in several runs of a contest keeps its primary run's rank (then the best rank); the
    published `caption_generation` groups label their contests' captions, so for those contests a caption
    is `other` unless a published group lists it; other contests get the group their rank falls in. The kept
    rows are taken column by column, each source column released once taken (peak memory: the source and one
    column, not three copies of the table).
    """
    ratings = _read(files[RATINGS], ["contest_number", "caption", "rank", "run_id", "is_primary"], RATINGS)
    if ratings["caption"].null_count:
        ratings = ratings.filter(pc.is_valid(ratings["caption"]))
    n_source = ratings.num_rows
    counts = ratings.group_by("run_id").aggregate([("run_id", "count")])
    run_size = pc.take(counts["run_id_count"], pc.index_in(ratings["run_id"], value_set=counts["run_id"]))
    contests = ratings["contest_number"].to_numpy()
    norms = _normalised(ratings["caption"])
    groups = rule_groups(ratings["rank"].to_numpy(zero_copy_only=False), run_size.to_numpy())
    del run_size
    published = published_groups(files.get(GENERATION, []))
    for i in np.flatnonzero(np.isin(contests, list(published))):
        groups[i] = published[int(contests[i])].get(norms[int(i)].as_py(), OTHER)
    del contests
    table = pa.table({
        "contest_number": ratings["contest_number"].cast(pa.int32()), "caption": ratings["caption"],
        "norm": norms, "rank": ratings["rank"].cast(pa.int32()),
        "group": pa.array(groups.tolist(), pa.string()), "run_id": ratings["run_id"],
        "primary": pc.if_else(ratings["is_primary"], 0, 1).cast(pa.int8()),
    })
    del ratings, norms, groups
    pool = pa.default_memory_pool()
    pool.release_unused()
    table = pa.concat_tables([table, _published_rows(files.get(GENERATION, []))])
    order = pc.sort_indices(table, [("contest_number", "ascending"), ("norm", "ascending"),
                                    ("primary", "ascending"), ("rank", "ascending")])
    contest, norm = table["contest_number"].take(order), table["norm"].take(order)
    first = np.ones(table.num_rows, dtype=bool)
    if table.num_rows > 1:
        same = pc.and_(pc.equal(contest[1:], contest[:-1]), pc.equal(norm[1:], norm[:-1]))
        first[1:] = ~same.to_numpy(zero_copy_only=False)
    keep = order.filter(pa.array(first))
    del contest, norm, order, first
    columns = {name: table[name] for name in SCHEMA.names}
    del table
    kept = {}
    for name in SCHEMA.names:
        pool.release_unused()  # what the last step freed goes back to the system before the next column is taken
        kept[name] = columns.pop(name).take(keep).combine_chunks().cast(SCHEMA.field(name).type)
    return pa.table(kept, schema=SCHEMA), n_source
