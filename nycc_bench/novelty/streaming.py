"""The novelty index's arrays written chunk by chunk, in memory bounded by a chunk and one band.

The same files, byte for byte, as the whole-corpus build (`build_shingle_sets`, `minhash`, `BandIndex.build`,
then `save`): shingle codes, MinHash and band hashes are computed per chunk of captions (a caption's values do
not depend on the others); only the vocabulary is global, so each chunk's ids are kept in the chunk's own sorted
code order in a scratch file and mapped to the final ids (the same order, a monotone map) once the vocabulary is
known; the band hashes wait in a scratch file and each band is sorted alone. At 2.2M captions the whole-corpus
build held every shingle occurrence, the (128, n) signature matrix and all bands at once (5.4 GB peak).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..progress import bar as progress_bar
from .lsh import _band_hash, minhash
from .shingling import _code_points, _codes, _decode, _dedupe, sha1_hash32

CHUNK = 32_768  # captions per chunk: ~70 MB of temporaries at caption length, in cache-friendlier pieces


def _chunks(norms: pa.ChunkedArray | pa.Array, size: int) -> Iterator[list[str]]:
    """The normalised captions as Python strings, `size` at a time (never all at once)."""
    for start in range(0, len(norms), size):
        yield norms.slice(start, size).to_pylist()


def _present(norms: pa.ChunkedArray | pa.Array, chunk: int) -> np.ndarray:
    """Which code points the padded captions hold (a bool per code point): counted on the UTF-8 bytes of each
    Arrow chunk that is ASCII (no Python string made), through the code points of the others."""
    present = np.zeros(0x110000, dtype=bool)
    present[ord(" ")] = len(norms) > 0  # the padding
    for part in norms.chunks if isinstance(norms, pa.ChunkedArray) else [norms]:
        part = part.cast(pa.string())
        offsets = np.frombuffer(part.buffers()[1], dtype=np.int32, count=len(part) + 1, offset=4 * part.offset)
        if not len(part) or offsets[-1] == offsets[0]:
            continue
        data = np.frombuffer(part.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
        byte_values = pc.unique(pa.array(data)).to_numpy()  # a hash pass: a bincount of repeated bytes stalls
        if byte_values.max() >= 128:
            for texts in _chunks(part, chunk):
                present[_code_points(texts, 1)[0]] = True
        else:
            present[byte_values] = True
    return present


def _header(f: BinaryIO, dtype: Any, shape: tuple[int, ...]) -> None:
    """The .npy header `np.save` writes for a C-ordered array of this dtype and shape."""
    np.lib.format.write_array_header_1_0(f, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                                             "fortran_order": False, "shape": shape})


class _Hashes:
    """datasketch's hash of every shingle code seen so far (sorted codes, hashes beside them); each distinct
    shingle is decoded and SHA-1 hashed once, as the whole-corpus build does."""

    def __init__(self, k: int, alphabet: np.ndarray, base: int) -> None:
        self.k, self.alphabet, self.base = k, alphabet, base
        self.codes = np.empty(0, dtype=np.uint64)
        self.hashes = np.empty(0, dtype=np.uint32)

    def of(self, codes: np.ndarray) -> np.ndarray:
        """The hashes of sorted distinct `codes`, adding those not seen yet."""
        pos = np.searchsorted(self.codes, codes)
        seen = pos < len(self.codes)
        seen[seen] = self.codes[pos[seen]] == codes[seen]
        if not seen.all():
            new = codes[~seen]
            hashes = sha1_hash32(s[:-1] for s in _decode(new, self.k, self.alphabet, self.base).tolist())
            merged = np.concatenate((self.codes, new))
            order = np.argsort(merged, kind="stable")
            self.codes, self.hashes = merged[order], np.concatenate((self.hashes, hashes))[order]
            pos = np.searchsorted(self.codes, codes)
        return self.hashes[pos]


def write_arrays(norms: pa.ChunkedArray | pa.Array, k: int, num_perm: int, bands: int, rows: int, folder: Path,
                 progress: bool = False, chunk: int = CHUNK) -> bool:
    """Write band_keys/band_ids/shingle_{vocab,indptr,ids}.npy of these normalised captions into `folder`; False
    (nothing written) when their alphabet needs the Python shingle sets (a NUL, or codes over 64 bits)."""
    present = _present(norms, chunk)
    has_sep, present[0] = bool(present[0]), False
    alphabet = np.concatenate(([0], np.flatnonzero(present))).astype(np.uint32)  # rank 0: padding
    base = len(alphabet)
    if has_sep or base ** k >= 2**64:
        return False
    rank_of = np.zeros(0x110000, dtype=np.uint64)
    rank_of[alphabet] = np.arange(base, dtype=np.uint64)
    n = len(norms)
    known = _Hashes(k, alphabet, base)
    pieces: list[tuple[np.ndarray, np.ndarray, int]] = []  # per chunk: sorted codes, counts, ids in scratch
    scratch_ids, scratch_bands = folder / ".ids.scratch", folder / ".bands.scratch"
    with open(scratch_ids, "wb") as ids_out, open(scratch_bands, "wb") as bands_out, \
            progress_bar(n, "novelty index: shingles and MinHash", unit="caption", enable=progress,
                         unit_scale=True) as shown:
        for texts in _chunks(norms, chunk):
            codes, counts = _codes(texts, k, rank_of, base)
            encoded = pa.array(codes).dictionary_encode()  # a hash table: cheaper than sorting the occurrences
            del codes
            dictionary = encoded.dictionary.to_numpy().astype(np.uint64)
            order = np.argsort(dictionary)
            rank = np.empty(len(order), dtype=np.uint32)
            rank[order] = np.arange(len(order), dtype=np.uint32)
            local, counts = _dedupe(rank[encoded.indices.to_numpy()], counts)
            del encoded, rank
            codes = dictionary[order]
            indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
            sig = minhash(known.of(codes)[local], indptr, num_perm)
            for band in range(bands):
                bands_out.write(_band_hash(sig.T, band, rows).data)
            del sig
            ids_out.write(local.data)
            pieces.append((codes, counts, len(local)))
            shown.update(len(texts))
    try:
        _write_shingles(folder, k, alphabet, base, known.codes, pieces, scratch_ids)
        _write_bands(folder, n, bands, [len(c) for _, c, _ in pieces], scratch_bands, progress)
    finally:
        scratch_ids.unlink(missing_ok=True)
        scratch_bands.unlink(missing_ok=True)
    return True


def _write_shingles(folder: Path, k: int, alphabet: np.ndarray, base: int, vocab_codes: np.ndarray,
                    pieces: list[tuple[np.ndarray, np.ndarray, int]], scratch: Path) -> None:
    """shingle_vocab/indptr/ids.npy: the vocabulary sorted as numpy compares it (as `_assemble` sorts it) and each
    caption's sorted distinct ids, mapped from the scratch file's chunk-local ids."""
    vocab = _decode(vocab_codes, k, alphabet, base)
    rank = None
    if len(vocab) > 1 and not np.all(vocab[1:] > vocab[:-1]):
        order = np.argsort(vocab, kind="stable")
        vocab, rank = vocab[order], np.empty(len(order), dtype=np.uint32)
        rank[order] = np.arange(len(order), dtype=np.uint32)
    np.save(folder / "shingle_vocab.npy", vocab)
    sizes = np.concatenate([c for _, c, _ in pieces]) if pieces else np.empty(0, dtype=np.int64)
    np.save(folder / "shingle_indptr.npy", np.concatenate(([0], np.cumsum(sizes))).astype(np.int64))
    del sizes
    with open(folder / "shingle_ids.npy", "wb") as out, open(scratch, "rb") as local_ids:
        _header(out, np.uint32, (sum(m for _, _, m in pieces),))
        for codes, counts, m in pieces:
            local = np.fromfile(local_ids, dtype=np.uint32, count=m)
            ids = np.searchsorted(vocab_codes, codes).astype(np.uint32)[local]
            if rank is not None:  # the string order is not the code order: sort each caption's ids again
                ids, _ = _dedupe(rank[ids], counts)
            out.write(ids.data)


def _write_bands(folder: Path, n: int, bands: int, chunk_sizes: list[int], scratch: Path, progress: bool) -> None:
    """band_keys/band_ids.npy: each band's hashes gathered from the scratch file (chunk-major) and sorted alone."""
    offsets = np.concatenate(([0], np.cumsum(chunk_sizes)))
    with open(folder / "band_keys.npy", "wb") as keys_out, open(folder / "band_ids.npy", "wb") as ids_out, \
            open(scratch, "rb") as source, progress_bar(bands, "LSH bands", unit="band", enable=progress) as shown:
        _header(keys_out, np.uint64, (bands, n))
        _header(ids_out, np.uint32, (bands, n))
        for band in range(bands):
            h = np.empty(n, dtype=np.uint64)
            for i, size in enumerate(chunk_sizes):
                source.seek(8 * (int(offsets[i]) * bands + band * size))
                h[offsets[i]:offsets[i] + size] = np.fromfile(source, dtype=np.uint64, count=size)
            order = np.argsort(h)
            keys_out.write(h[order].data)
            ids_out.write(order.astype(np.uint32).data)
            shown.update()

