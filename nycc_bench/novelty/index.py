"""The on-disk novelty index of a dataset's human captions: built once per caption source and settings, cached
under a key that names both, and memory-mapped on later use."""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.feather as feather

from ..errors import NyccBenchError
from ..paths import cache_dir
from ..progress import stages
from .corpus import build_corpus, config_files, fingerprint
from .lsh import SCHEME, SEED, BandIndex, lsh_params, minhash
from .mapped import read_table, release
from .shingling import ShingleSets, build_shingle_sets
from .streaming import write_arrays
from .text import NORMALISATION

INDEX_VERSION = 2  # 2: each caption's shingle ids are stored (vectorised verification)


@dataclass(frozen=True)
class Settings:
    """What decides a match: the similarity threshold, the shingles, the MinHash and its LSH banding."""

    threshold: float = 0.5
    shingle_size: int = 4
    num_perm: int = 128
    # datasketch weighs false positives against false negatives when it picks (bands, rows); candidates are
    # verified exactly, so a false positive costs only time and a false negative is a missed copy.
    lsh_weights: tuple[float, float] = (0.1, 0.9)
    bands: int = field(init=False)
    rows: int = field(init=False)

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise NyccBenchError(f"threshold: {self.threshold} is not in (0, 1]; pass a Jaccard similarity such "
                                 "as 0.5")
        if self.shingle_size < 1 or self.num_perm < 2:
            raise NyccBenchError(f"shingle_size/num_perm: {self.shingle_size}/{self.num_perm}; pass a shingle "
                                 "size >= 1 and num_perm >= 2")
        bands, rows = lsh_params(self.threshold, self.num_perm, self.lsh_weights)
        object.__setattr__(self, "bands", bands)
        object.__setattr__(self, "rows", rows)

    def describe(self) -> dict:
        """The settings as JSON-able data for a report or results record."""
        return {**asdict(self), "lsh_weights": list(self.lsh_weights), "minhash_seed": SEED,
                "minhash_scheme": SCHEME, "normalisation": NORMALISATION,
                "similarity": f"exact Jaccard of the sets of character {self.shingle_size}-grams of the normalised "
                              "caption padded with one space at each end, verified on every LSH candidate"}

    def index_key(self, source_fingerprint: str) -> str:
        """The cache key: the caption source's fingerprint and everything that shapes the index."""
        parts = [INDEX_VERSION, source_fingerprint, self.shingle_size, self.num_perm, self.bands, self.rows, SEED,
                 SCHEME, NORMALISATION]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:24]


@dataclass
class NoveltyIndex:
    """The human captions (Arrow table sorted by contest), their shingle sets and LSH bands, with how they were
    obtained."""

    folder: Path
    table: pa.Table
    bands: BandIndex
    shingles: ShingleSets
    meta: dict
    built: bool = False
    seconds: float = 0.0
    _contests: np.ndarray | None = None
    table_mapping: mmap.mmap | None = None  # under `table` (see `release_table`)

    def contest_slice(self, contest: int) -> tuple[int, int]:
        """The [start, end) rows of one contest (the table is sorted by contest)."""
        if self._contests is None:
            self._contests = self.table["contest_number"].to_numpy()
        info = np.iinfo(self._contests.dtype)
        if not info.min <= contest <= info.max:
            return 0, 0
        key = self._contests.dtype.type(contest)  # a Python int would make NumPy cast the whole column per call
        return (int(np.searchsorted(self._contests, key, "left")),
                int(np.searchsorted(self._contests, key, "right")))

    def release_table(self) -> None:
        """Unmap the caption table's pages this process has read (after a scan of a whole column)."""
        release(self.table_mapping)

    def describe(self) -> dict:
        """Where the index lives and what it holds, for the report."""
        return {"path": str(self.folder), "built_now": self.built, "seconds": round(self.seconds, 3),
                **{k: self.meta.get(k) for k in ("fingerprint", "fingerprint_method", "n_captions", "n_ratings_rows")}}


def default_cache_dir() -> Path:
    """`$NYCC_BENCH_CACHE/novelty`, else `$XDG_CACHE_HOME/nycc_bench/novelty`, else `~/.cache/nycc_bench/novelty`."""
    return cache_dir("novelty")


def write_arrays_whole(norms: list[str], settings: Settings, folder: Path, progress: bool = False) -> None:
    """The index's arrays computed over the whole corpus at once (every shingle occurrence, the full signature
    matrix and every band in memory): the reference `streaming.write_arrays` equals byte for byte, and the path for
    alphabets the streaming build refuses."""
    sets, hashes = build_shingle_sets(norms, settings.shingle_size, progress=progress)
    sig = minhash(hashes[sets.ids], sets.indptr, settings.num_perm, progress=progress, desc="novelty index: MinHash")
    del hashes
    bands = BandIndex.build(sig.T, settings.bands, settings.rows, progress=progress)
    del sig
    bands.save(folder)
    sets.save(folder)


def write_index(table: pa.Table, settings: Settings, folder: Path, meta: dict, progress: bool = False) -> None:
    """Compute the shingle sets, signatures and bands of a corpus table and write the index into `folder`
    (atomically), chunk by chunk (`streaming.write_arrays`)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        if not write_arrays(table["norm"], settings.shingle_size, settings.num_perm, settings.bands, settings.rows,
                            tmp, progress=progress):
            write_arrays_whole(table["norm"].to_pylist(), settings, tmp, progress=progress)
        feather.write_feather(table, tmp / "captions.arrow", compression="uncompressed")
        (tmp / "meta.json").write_text(json.dumps({**meta, "settings": settings.describe()}, indent=2))
        os.replace(tmp, folder)
    except BaseException as error:
        shutil.rmtree(tmp, ignore_errors=True)
        # another process may have won the race (the folder exists): theirs is as good
        if not isinstance(error, OSError) or not (folder / "meta.json").exists():
            raise


def read_index(folder: Path, settings: Settings) -> NoveltyIndex:
    """Memory-map a finished index folder."""
    meta = json.loads((folder / "meta.json").read_text())
    table, mapping = read_table(folder / "captions.arrow")
    return NoveltyIndex(folder, table, BandIndex.load(folder, settings.bands, settings.rows),
                        ShingleSets.load(folder), meta, table_mapping=mapping)


def load_index(dataset: str | Path, settings: Settings, cache_dir: str | Path | None = None,
               progress: bool = True) -> NoveltyIndex:
    """The index of a dataset's human captions: from the cache when its key matches, else built and cached.

    Loading a cached index is cheap (memory-mapped); what every call pays is hashing the source files."""
    files = config_files(dataset)
    source = fingerprint(files)
    folder = Path(cache_dir or default_cache_dir()).expanduser() / settings.index_key(source)
    start = time.perf_counter()
    built = not (folder / "meta.json").exists()
    if built:  # minutes at full size: each step on a bar (MinHash and the bands add their own)
        with stages(["read", "index"], "novelty index", enable=progress) as shown:
            shown.step("read and normalise the human captions")
            table, n_source = build_corpus(files)
            meta = {"index_version": INDEX_VERSION, "dataset": str(dataset), "fingerprint": source,
                    "fingerprint_method": "sha256 of each caption_ratings/caption_generation parquet file's content",
                    "files": {c: [p.name for p in ps] for c, ps in files.items()},
                    "n_captions": table.num_rows, "n_ratings_rows": n_source}
            shown.step(f"MinHash and LSH bands of {table.num_rows:,} captions, then write")
            write_index(table, settings, folder, meta, progress=progress)
    index = read_index(folder, settings)
    index.built, index.seconds = built, time.perf_counter() - start
    return index
