"""Every caption's set of character shingles as ids into one sorted vocabulary, for millions of captions at once.

`shingles()` in text.py is the definition; this module computes the same sets without a Python object per
shingle: the captions' code points are ranked in their alphabet and each k-gram becomes one exact integer code
(base alphabet size + 1, 0 padding a text shorter than k), so distinct codes are distinct shingles. The index
keeps the vocabulary (sorted shingle strings) and each caption's sorted distinct ids (CSR, memory-mapped), which
is what candidates are verified against; the vocabulary is small, so datasketch's SHA-1 shingle hash is computed
once per distinct shingle instead of once per occurrence.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from tqdm.auto import tqdm

CHUNK = 250_000  # captions per pass: bounds the temporary arrays (about 60 bytes per character)
_END = "\x01"  # ends each stored shingle: numpy str drops trailing NULs, so "a\x00" would otherwise read as "a"
_SEP = "\x00"  # between texts in a chunk; 0 is also the padding digit, so a caption holding NUL takes the slow path


@dataclass
class ShingleSets:
    """The sorted distinct shingles (`vocab`, numpy str, each followed by _END) and each text's sorted distinct ids
    (`ids[indptr[i]:indptr[i + 1]]`)."""

    vocab: np.ndarray
    indptr: np.ndarray  # int64, n + 1
    ids: np.ndarray  # uint32

    def __len__(self) -> int:
        return len(self.indptr) - 1

    def sizes(self) -> np.ndarray:
        """|shingles| of every text."""
        return np.diff(self.indptr)

    def lookup(self, shingle_sets: Sequence[Iterable[str]]) -> list[np.ndarray]:
        """For each set of shingle strings, the ids of those in the vocabulary (shingles never seen are dropped)."""
        lists = [list(s) for s in shingle_sets]
        flat = np.array([x + _END for s in lists for x in s], dtype=self.vocab.dtype)
        pos = np.searchsorted(self.vocab, flat).clip(max=max(len(self.vocab) - 1, 0))
        found = (self.vocab[pos] == flat) if len(self.vocab) else np.zeros(len(flat), dtype=bool)
        out, start = [], 0
        for s in lists:
            end = start + len(s)
            out.append(pos[start:end][found[start:end]].astype(np.uint32))
            start = end
        return out

    def save(self, folder: Path) -> None:
        """Three .npy files in `folder`."""
        np.save(folder / "shingle_vocab.npy", self.vocab)
        np.save(folder / "shingle_indptr.npy", self.indptr)
        np.save(folder / "shingle_ids.npy", self.ids)

    @classmethod
    def load(cls, folder: Path) -> ShingleSets:
        """Memory-mapped, like the bands."""
        return cls(*(np.asarray(np.load(folder / f"shingle_{name}.npy", mmap_mode="r"))
                     for name in ("vocab", "indptr", "ids")))


def sha1_hash32(shingles: Iterable[str]) -> np.ndarray:
    """datasketch's default hash (the first 4 bytes of SHA-1, little-endian) of each shingle's UTF-8."""
    return np.array([int.from_bytes(hashlib.sha1(s.encode("utf-8")).digest()[:4], "little") for s in shingles],
                    dtype=np.uint32)


def _code_points(texts: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
    """The padded texts' code points, joined with k - 1 separators (so no k-gram spans two texts), and each start."""
    padded = [f" {t} " for t in texts]
    lengths = np.fromiter(map(len, padded), dtype=np.int64, count=len(padded))
    starts = np.concatenate(([0], np.cumsum(lengths + k - 1)[:-1])).astype(np.int64)
    points = np.frombuffer((_SEP * (k - 1)).join(padded).encode("utf-32-le"), dtype=np.uint32)
    return points, starts


def _codes(texts: Sequence[str], k: int, rank_of: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact code of every shingle occurrence (text by text) and how many each text has.

    The codes are uint32 when base ** k fits (an ASCII alphabet: half the bytes of uint64 per pass), else uint64;
    the ranks are looked up (pyarrow's take: uint32 indices as they are) in the part of `rank_of` the texts' code
    points reach (a few hundred entries, in cache, instead of 8.9 MB)."""
    points, starts = _code_points(texts, k)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 2
    dtype = np.uint32 if base ** k < 2**32 else np.uint64
    table = pa.array(rank_of[:int(points.max(initial=0)) + 1].astype(dtype))
    ranks = np.concatenate((pc.take(table, pa.array(points)).to_numpy(), np.zeros(k - 1, dtype=dtype)))
    size = len(points)
    code = ranks[:size].copy()
    for j in range(1, k):
        code *= dtype(base)
        code += ranks[j:size + j]
    counts = np.maximum(lengths - k + 1, 1)
    # A text's windows are followed by the ones that run into its end and the separators: at most 2k - 2 of them.
    keep = np.ones(size, dtype=bool)
    tail = lengths + k - 1 - counts
    for d in range(2 * k - 2):
        at = (starts + counts + d)[d < tail]
        keep[at[at < size]] = False  # the last text has no separators after it
    return code[keep], counts


DEDUPE_BLOCK = 1 << 22  # shingle ids sorted at a time: 32 MiB of uint64 keys


def _dedupe(ids: np.ndarray, counts: np.ndarray, block: int = DEDUPE_BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """Each text's ids sorted and without repeats, and the new counts.

    Sorted in blocks of whole texts of about `block` ids: each key is (text << bits | id) and texts are in order,
    so sorting block by block is the one global sort, with a key array of one block instead of every id's (at 2.2M
    captions, 880 MB less and a sort in cache-sized pieces). The keys are uint32 when the block's texts and ids fit
    in 32 bits (a chunk of the streaming build: 32,768 texts, tens of thousands of ids), half the bytes to sort.
    """
    ends = np.cumsum(counts)
    out_ids: list[np.ndarray] = []
    out_counts: list[np.ndarray] = []
    text = 0
    while text < len(counts):
        begin = int(ends[text - 1]) if text else 0
        stop = max(text + 1, int(np.searchsorted(ends, begin + block, side="right")))
        sizes = counts[text:stop]
        values = ids[begin:int(ends[stop - 1])]
        bits = max(int(values.max(initial=0)).bit_length(), 1)
        dtype = np.uint32 if bits < 32 and (stop - text - 1) < 1 << (32 - bits) else np.uint64
        bits = bits if dtype is np.uint32 else 32
        key = np.repeat(np.arange(stop - text, dtype=dtype) << dtype(bits), sizes)
        key |= values.astype(dtype, copy=False)
        key.sort()
        first = np.empty(len(key), dtype=bool)
        first[0] = True
        np.not_equal(key[1:], key[:-1], out=first[1:])
        out_ids.append((key[first] & dtype((1 << bits) - 1)).astype(np.uint32))
        out_counts.append(np.add.reduceat(first, np.concatenate(([0], np.cumsum(sizes)[:-1])), dtype=np.int64))
        text = stop
    if not out_ids:
        return np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.int64)
    return np.concatenate(out_ids), np.concatenate(out_counts)


def _decode(codes: np.ndarray, k: int, alphabet: np.ndarray, base: int) -> np.ndarray:
    """Stored shingle strings (numpy str of width k + 1, _END after the last character) from their codes; padding
    digits (only at the end of a text shorter than k) become _END and NULs."""
    chars = np.zeros((len(codes), k + 1), dtype=np.uint32)
    rest = codes.copy()
    for j in range(k - 1, -1, -1):
        chars[:, j] = alphabet[(rest % np.uint64(base)).astype(np.int64)]
        rest //= np.uint64(base)
    length = k - np.cumprod(chars[:, ::-1][:, 1:] == 0, axis=1).sum(axis=1)
    chars[np.arange(len(codes)), length] = ord(_END)
    return chars.view(f"<U{k + 1}").ravel()


def build_shingle_sets(texts: Sequence[str], k: int, progress: bool = False) -> tuple[ShingleSets, np.ndarray]:
    """The shingle sets of `texts` (normalised captions) and datasketch's 32-bit hash of every vocabulary entry."""
    present = np.zeros(0x110000, dtype=bool)
    for start in range(0, len(texts), CHUNK):
        present[_code_points(texts[start:start + CHUNK], 1)[0]] = True
    has_sep, present[0] = bool(present[0]), False
    alphabet = np.concatenate(([0], np.flatnonzero(present))).astype(np.uint32)  # rank 0: padding
    base = len(alphabet)
    if has_sep or base ** k >= 2**64:
        return _python_shingle_sets(texts, k)
    rank_of = np.zeros(0x110000, dtype=np.uint64)
    rank_of[alphabet] = np.arange(base, dtype=np.uint64)
    parts = []
    for start in tqdm(range(0, len(texts), CHUNK), desc="novelty index: shingles", unit="chunk",
                      disable=not progress):
        codes, counts = _codes(texts[start:start + CHUNK], k, rank_of, base)
        encoded = pa.array(codes).dictionary_encode()  # a hash table: cheaper than sorting the occurrences
        parts.append((encoded.indices.to_numpy(), encoded.dictionary.to_numpy().astype(np.uint64), counts))
    vocab_codes = np.unique(np.concatenate([p[1] for p in parts])) if parts else np.empty(0, dtype=np.uint64)
    ids, counts = [], []
    for local, dictionary, n in parts:
        chunk_ids, chunk_counts = _dedupe(np.searchsorted(vocab_codes, dictionary).astype(np.uint32)[local], n)
        ids.append(chunk_ids)
        counts.append(chunk_counts)
    return _assemble(_decode(vocab_codes, k, alphabet, base), ids, counts)


def _python_shingle_sets(texts: Sequence[str], k: int) -> tuple[ShingleSets, np.ndarray]:
    """The same sets through Python sets: for alphabets too large for an exact 64-bit code (or NUL characters)."""
    from .text import shingles

    sets = [shingles(t, k) for t in texts]
    vocab = sorted(set().union(*sets))
    lookup = {s: i for i, s in enumerate(vocab)}
    ids = [np.sort(np.fromiter((lookup[s] for s in ss), dtype=np.uint32, count=len(ss))) for ss in sets]
    counts = np.fromiter(map(len, sets), dtype=np.int64, count=len(sets))
    stored = np.array([s + _END for s in vocab], dtype=f"<U{k + 1}")
    return _assemble(stored, [np.concatenate(ids) if ids else np.empty(0, np.uint32)], [counts])


def _assemble(vocab: np.ndarray, ids: list[np.ndarray], counts: list[np.ndarray]) -> tuple[ShingleSets, np.ndarray]:
    """One CSR from the chunks' ids and counts (the vocabulary sorted as numpy compares it, for `lookup`), and
    datasketch's hash of each vocabulary entry."""
    sizes = np.concatenate(counts) if counts else np.empty(0, dtype=np.int64)
    indptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    flat = np.concatenate(ids) if ids else np.empty(0, dtype=np.uint32)
    if len(vocab) > 1 and not np.all(vocab[1:] > vocab[:-1]):
        order = np.argsort(vocab, kind="stable")
        vocab, rank = vocab[order], np.empty(len(order), dtype=np.uint32)
        rank[order] = np.arange(len(order), dtype=np.uint32)
        flat = rank[flat]
        starts = indptr[:-1]
        flat = np.concatenate([np.sort(flat[a:b]) for a, b in zip(starts, indptr[1:], strict=True)]) \
            if len(flat) else flat
    return ShingleSets(vocab, indptr, flat), sha1_hash32(s[:-1] for s in vocab.tolist())
