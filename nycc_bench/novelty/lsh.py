"""MinHash LSH over millions of captions: datasketch signatures and banding, stored as sorted numpy arrays.

datasketch's `MinHashLSH` keeps one Python bytes key and one set per caption and band: measured at 100,000
captions with 25 bands it takes 840 MB of memory and 12 s to unpickle, i.e. ~18 GB and minutes at 2.2M
captions. This index uses the same MinHash (`datasketch.MinHash`, affine32 scheme) and the same (bands, rows)
that `MinHashLSH` picks for a threshold, but keeps each band as a sorted uint64 array of band hashes with the
row ids beside it (12 bytes per caption and band, memory-mapped from disk). A query's candidates are the rows
that share at least one whole band with it, exactly as in `MinHashLSH.query` (up to 64-bit hash collisions,
which only add candidates that the caller's exact verification removes).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from datasketch import MinHash, MinHashLSH

from ..progress import bar as progress_bar

SEED = 1
SCHEME = "affine32"
CHUNK = 20_000
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd 64-bit constants (golden ratio, splitmix64) for band hashing
_MUL = np.uint64(0xBF58476D1CE4E5B9)


def lsh_params(threshold: float, num_perm: int, weights: tuple[float, float]) -> tuple[int, int]:
    """(bands, rows per band) that datasketch's MinHashLSH chooses for this threshold and FP/FN weighting."""
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm, weights=weights)
    return lsh.b, lsh.r


def signatures(shingle_sets: Iterable[Iterable[str]], num_perm: int, total: int | None = None,
               progress: bool = False, desc: str = "MinHash") -> np.ndarray:
    """MinHash hash values (uint32, one row per set) computed by datasketch, in chunks with a progress bar."""
    rows: list[np.ndarray] = []
    chunk: list[list[bytes]] = []
    with progress_bar(total, desc, unit="caption", enable=progress, unit_scale=True) as bar:
        def flush() -> None:
            minhashes = MinHash.generator(chunk, num_perm=num_perm, seed=SEED, scheme=SCHEME)
            rows.append(np.stack([m.hashvalues for m in minhashes]).astype(np.uint32, copy=False))
            bar.update(len(chunk))
            chunk.clear()

        for shingle_set in shingle_sets:
            chunk.append([s.encode("utf-8") for s in shingle_set])
            if len(chunk) == CHUNK:
                flush()
        if chunk:
            flush()
    return np.concatenate(rows) if rows else np.empty((0, num_perm), dtype=np.uint32)


def band_hashes(sig: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """One uint64 per (caption, band) from the band's `rows` hash values: shape (bands, n)."""
    n = sig.shape[0]
    out = np.empty((bands, n), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for band in range(bands):
            h = np.full(n, np.uint64(band + 1) * _MIX, dtype=np.uint64)
            for value in sig[:, band * rows:(band + 1) * rows].T.astype(np.uint64):
                h = (h ^ value) * _MUL
                h ^= h >> np.uint64(31)
            out[band] = h
    return out


@dataclass
class BandIndex:
    """Per band, the sorted band hashes of every caption (`keys`) and the caption row of each (`ids`)."""

    bands: int
    rows: int
    keys: np.ndarray  # (bands, n) uint64, each row sorted
    ids: np.ndarray  # (bands, n) uint32

    @classmethod
    def build(cls, sig: np.ndarray, bands: int, rows: int, progress: bool = False) -> BandIndex:
        """Sort each band's hashes once; the index is then two arrays."""
        hashes = band_hashes(sig, bands, rows)
        ids = np.empty(hashes.shape, dtype=np.uint32)
        for band in progress_bar(bands, "LSH bands", unit="band", enable=progress, iterable=range(bands)):
            order = np.argsort(hashes[band], kind="stable")
            ids[band] = order
            hashes[band] = hashes[band][order]
        return cls(bands, rows, hashes, ids)

    def save(self, folder: Path) -> None:
        """Two .npy files in `folder`."""
        np.save(folder / "band_keys.npy", self.keys)
        np.save(folder / "band_ids.npy", self.ids)

    @classmethod
    def load(cls, folder: Path, bands: int, rows: int) -> BandIndex:
        """Memory-mapped: loading is instant and only the pages a query touches are read."""
        keys = np.load(folder / "band_keys.npy", mmap_mode="r")
        ids = np.load(folder / "band_ids.npy", mmap_mode="r")
        return cls(bands, rows, keys, ids)

    def candidates(self, sig: np.ndarray) -> list[np.ndarray]:
        """For each query signature, the sorted unique rows sharing at least one band with it."""
        query = band_hashes(sig, self.bands, self.rows)
        found: list[list[np.ndarray]] = [[] for _ in range(sig.shape[0])]
        for band in range(self.bands):
            keys = self.keys[band]
            lo = np.searchsorted(keys, query[band], side="left")
            hi = np.searchsorted(keys, query[band], side="right")
            for q in np.flatnonzero(hi > lo):
                found[q].append(np.asarray(self.ids[band, lo[q]:hi[q]]))
        return [np.unique(np.concatenate(f)) if f else np.empty(0, dtype=np.uint32) for f in found]

