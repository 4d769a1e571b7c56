"""MinHash LSH over millions of captions: datasketch's signatures, computed in NumPy, and banding stored as sorted
numpy arrays.

`minhash` gives exactly the values of `datasketch.MinHash` (affine32 scheme, SHA-1 hash of each shingle's UTF-8,
SEED; tests compare them) for millions of sets at once: the permutation parameters come from datasketch, and
each distinct shingle is hashed once (`shingling.py`) instead of once per occurrence.

datasketch's `MinHashLSH` keeps one Python bytes key and one set per caption and band: measured at 100,000
captions with 25 bands it takes 840 MB of memory and 12 s to unpickle, i.e. ~18 GB and minutes at 2.2M
captions. This index uses the same MinHash (`datasketch.MinHash`, affine32 scheme) and the same (bands, rows)
that `MinHashLSH` picks for a threshold, but keeps each band as a sorted uint64 array of band hashes with the
row ids beside it (12 bytes per caption and band, memory-mapped from disk). A query's candidates are the rows
that share at least one whole band with it, exactly as in `MinHashLSH.query` (up to 64-bit hash collisions,
which only add candidates that the caller's exact verification removes).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..paths import cache_dir
from ..progress import bar as progress_bar
from .mapped import release

SEED = 1
SCHEME = "affine32"
BLOCK = 1 << 16  # hashes per MinHash block: 256 KiB of uint32, inside a core's cache
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd 64-bit constants (golden ratio, splitmix64) for band hashing
_MUL = np.uint64(0xBF58476D1CE4E5B9)


def _from_datasketch(name: str, compute: Callable[[], Any]) -> Any:
    """A value datasketch computes (its LSH parameters, its permutations), kept in `cache_dir("novelty")` under the
    installed datasketch's version: importing datasketch imports scipy (a second of CPU), which a query of a built
    index, e.g. a baseline's novelty score, should not pay each time."""
    try:
        version = importlib.metadata.version("datasketch")
    except importlib.metadata.PackageNotFoundError:
        version = "absent"  # compute() then raises the ImportError that names the extra
    path = cache_dir("novelty") / "datasketch" / f"{version}-{name}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    value = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(value), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:  # a read-only cache: computed again next time
        pass
    return value


def lsh_params(threshold: float, num_perm: int, weights: tuple[float, float]) -> tuple[int, int]:
    """(bands, rows per band) that datasketch's MinHashLSH chooses for this threshold and FP/FN weighting."""
    def compute() -> list[int]:
        from datasketch import MinHashLSH

        lsh = MinHashLSH(threshold=threshold, num_perm=num_perm, weights=weights)
        return [lsh.b, lsh.r]

    bands, rows = _from_datasketch(f"lsh-{threshold!r}-{num_perm}-{weights[0]!r}-{weights[1]!r}", compute)
    return int(bands), int(rows)


def _permutations(num_perm: int) -> tuple[np.ndarray, np.ndarray]:
    """datasketch's affine32 permutation parameters (a, b) for SEED: taken from datasketch itself."""
    def compute() -> list[list[int]]:
        from datasketch import MinHash

        a, b = MinHash(num_perm=num_perm, seed=SEED, scheme=SCHEME).permutations
        return [a.astype(np.uint32).tolist(), b.astype(np.uint32).tolist()]

    a, b = _from_datasketch(f"permutations-{SCHEME}-{SEED}-{num_perm}", compute)
    return np.asarray(a, dtype=np.uint32), np.asarray(b, dtype=np.uint32)


def fmix32(h: np.ndarray) -> np.ndarray:
    """MurmurHash3's 32-bit finalizer, the pre-mix datasketch's affine32 scheme applies to each input hash."""
    h = h.astype(np.uint32)
    with np.errstate(over="ignore"):
        h ^= h >> np.uint32(16)
        h *= np.uint32(0x85EBCA6B)
        h ^= h >> np.uint32(13)
        h *= np.uint32(0xC2B2AE35)
        h ^= h >> np.uint32(16)
    return h


def _minhash_block(hashes: np.ndarray, starts: np.ndarray, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out[p] = min over each segment of (a[p] * h + b[p]) mod 2^32, one permutation at a time (cache-sized)."""
    tmp = np.empty(len(hashes), dtype=np.uint32)
    for p in range(len(a)):
        np.multiply(hashes, a[p], out=tmp)
        tmp += b[p]
        np.minimum.reduceat(tmp, starts, out=out[p])


def minhash(hashes: np.ndarray, indptr: np.ndarray, num_perm: int, threads: int | None = None,
            progress: bool = False, desc: str = "MinHash") -> np.ndarray:
    """datasketch's MinHash values (affine32, SEED) of many sets at once, shape (num_perm, n).

    `hashes[indptr[i]:indptr[i + 1]]` are set i's 32-bit element hashes (what datasketch's `hashfunc` returns);
    a set with none gets datasketch's empty value. NumPy over blocks of about BLOCK hashes (permutation by
    permutation, so each block stays in cache), in `threads` threads (NumPy releases the GIL); `progress` shows a
    bar over the sets."""
    a, b = _permutations(num_perm)
    indptr = np.asarray(indptr, dtype=np.int64)
    n = len(indptr) - 1
    out = np.full((num_perm, n), np.uint32(0xFFFFFFFF), dtype=np.uint32)
    nonempty = np.flatnonzero(np.diff(indptr) > 0)
    if not len(nonempty):
        return out
    mixed = fmix32(hashes)
    with progress_bar(len(nonempty), desc, unit="caption", enable=progress, unit_scale=True) as bar:
        if len(nonempty) < n:  # reduceat needs non-empty segments: compute those and scatter
            lengths = np.diff(indptr)[nonempty]
            sub = np.empty((num_perm, len(nonempty)), dtype=np.uint32)
            _blocks(mixed, np.concatenate(([0], np.cumsum(lengths))), a, b, sub, threads, bar.update)
            out[:, nonempty] = sub
            return out
        _blocks(mixed, indptr, a, b, out, threads, bar.update)
    return out


def _blocks(mixed: np.ndarray, indptr: np.ndarray, a: np.ndarray, b: np.ndarray, out: np.ndarray,
            threads: int | None, done: Callable[[int], Any] = lambda _n: None) -> None:
    """Split the sets into blocks of about BLOCK hashes at set boundaries and MinHash them, in parallel."""
    total, n = int(indptr[-1]), len(indptr) - 1
    cuts = np.unique(np.concatenate(([0], np.searchsorted(indptr, np.arange(BLOCK, total, BLOCK)), [n])))

    def one(i: int) -> int:
        lo, hi = int(cuts[i]), int(cuts[i + 1])
        if hi > lo:
            _minhash_block(mixed[indptr[lo]:indptr[hi]], indptr[lo:hi] - indptr[lo], a, b, out[:, lo:hi])
        return hi - lo

    workers = threads or min(2, os.cpu_count() or 1)
    if workers == 1 or len(cuts) < 3:
        for i in range(len(cuts) - 1):
            done(one(i))
        return
    with ThreadPoolExecutor(workers) as pool:
        for count in pool.map(one, range(len(cuts) - 1)):
            done(count)


def signatures(shingle_sets: Iterable[Iterable[str]], num_perm: int) -> np.ndarray:
    """MinHash hash values (uint32, one row per set) equal to datasketch's `MinHash(num_perm, seed=SEED,
    scheme=SCHEME)` updated with each shingle's UTF-8; each distinct shingle is hashed once."""
    from .shingling import sha1_hash32

    vocabulary: dict[str, int] = {}
    flat: list[int] = []
    indptr = [0]
    for shingle_set in shingle_sets:
        flat.extend(vocabulary.setdefault(s, len(vocabulary)) for s in shingle_set)
        indptr.append(len(flat))
    hashes = sha1_hash32(vocabulary)[np.asarray(flat, dtype=np.int64)]
    return minhash(hashes, np.asarray(indptr), num_perm).T


def _band_hash(sig: np.ndarray, band: int, rows: int) -> np.ndarray:
    """One uint64 per caption from the band's `rows` hash values (`sig` is (n, num_perm), any strides)."""
    with np.errstate(over="ignore"):
        h = np.full(sig.shape[0], np.uint64(band + 1) * _MIX, dtype=np.uint64)
        for column in range(band * rows, (band + 1) * rows):
            h ^= sig[:, column]
            h *= _MUL
            h ^= h >> np.uint64(31)
    return h


def band_hashes(sig: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """One uint64 per (caption, band) from the band's `rows` hash values: shape (bands, n)."""
    return np.stack([_band_hash(sig, band, rows) for band in range(bands)]) if bands else np.empty((0, len(sig)))


@dataclass
class BandIndex:
    """Per band, the sorted band hashes of every caption (`keys`) and the caption row of each (`ids`)."""

    bands: int
    rows: int
    keys: np.ndarray  # (bands, n) uint64, each row sorted
    ids: np.ndarray  # (bands, n) uint32

    @classmethod
    def build(cls, sig: np.ndarray, bands: int, rows: int, progress: bool = False,
              threads: int | None = None) -> BandIndex:
        """Hash and sort each band once (bands in parallel threads; NumPy sorts without the GIL)."""
        n = sig.shape[0]
        keys = np.empty((bands, n), dtype=np.uint64)
        ids = np.empty((bands, n), dtype=np.uint32)

        def one(band: int) -> None:
            h = _band_hash(sig, band, rows)
            order = np.argsort(h)
            ids[band] = order
            np.take(h, order, out=keys[band])

        with ThreadPoolExecutor(threads or min(2, os.cpu_count() or 1)) as pool, \
                progress_bar(bands, "LSH bands", unit="band", enable=progress) as bar:
            for _ in pool.map(one, range(bands)):
                bar.update()
        return cls(bands, rows, keys, ids)

    def save(self, folder: Path) -> None:
        """Two .npy files in `folder`."""
        np.save(folder / "band_keys.npy", self.keys)
        np.save(folder / "band_ids.npy", self.ids)

    @classmethod
    def load(cls, folder: Path, bands: int, rows: int) -> BandIndex:
        """Memory-mapped: loading is instant and only the pages a query touches are read."""
        # plain arrays over the mapped files: numpy.memmap's subclass hooks cost more than a small slice itself
        keys = np.asarray(np.load(folder / "band_keys.npy", mmap_mode="r"))
        ids = np.asarray(np.load(folder / "band_ids.npy", mmap_mode="r"))
        return cls(bands, rows, keys, ids)

    def candidates(self, sig: np.ndarray) -> list[np.ndarray]:
        """For each query signature, the sorted unique rows sharing at least one band with it.

        The pages of a memory-mapped band are released once it is searched: the binary searches of many queries
        touch most of a band's pages, so the process holds one band's at a time, not every band's."""
        query = band_hashes(sig, self.bands, self.rows)
        found: list[list[np.ndarray]] = [[] for _ in range(sig.shape[0])]
        for band in range(self.bands):
            keys = self.keys[band]
            lo = np.searchsorted(keys, query[band], side="left")
            hi = np.searchsorted(keys, query[band], side="right")
            for q in np.flatnonzero(hi > lo):
                found[q].append(np.array(self.ids[band, lo[q]:hi[q]]))  # a copy: the band's pages are released
            release(self.keys)
            release(self.ids)
        return [np.unique(np.concatenate(f)) if f else np.empty(0, dtype=np.uint32) for f in found]

