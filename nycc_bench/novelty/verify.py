"""Exact Jaccard of query shingle sets against stored caption sets, vectorised over pairs and contest blocks.

Up to 64 queries at a time are marked in a lookup table over the vocabulary (bit j set on query j's shingles);
a caption's intersection with query j is then the number of its shingle ids whose entry has bit j, counted by
NumPy over the caption's stored ids. |A ∪ B| = |A| + |B| - |A ∩ B|, so the similarity is the one `jaccard()`
in text.py defines, with the same float arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from .shingling import ShingleSets

WIDTH = 64
PAIR_WIDTH = 8  # queries per block of pairs: their bits fit a uint8 table
_DTYPES = ((8, np.uint8), (16, np.uint16), (32, np.uint32), (64, np.uint64))


class Verifier:
    """Jaccard of queries (ids in the vocabulary, and their full set sizes) against the stored caption sets."""

    def __init__(self, sets: ShingleSets) -> None:
        self.sets = sets
        self._tables: dict[type, np.ndarray] = {}

    def _table(self, ids: Sequence[np.ndarray]) -> np.ndarray:
        """The lookup table with bit j set on query j's shingle ids (the narrowest dtype that holds the bits)."""
        dtype = next(d for bits, d in _DTYPES if len(ids) <= bits)
        if dtype not in self._tables:
            self._tables[dtype] = np.zeros(len(self.sets.vocab), dtype=dtype)
        table = self._tables[dtype]
        for j, query in enumerate(ids):
            table[query] |= dtype(1 << j)
        return table

    @staticmethod
    def _clear(table: np.ndarray, ids: Sequence[np.ndarray]) -> None:
        for query in ids:
            table[query] = 0

    def pairs(self, ids: Sequence[np.ndarray], sizes: np.ndarray, query: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Jaccard of each pair (query[i], rows[i]): `ids`/`sizes` are every query's vocabulary ids and set size."""
        out = np.empty(len(query), dtype=np.float64)
        order = np.argsort(query, kind="stable")
        bounds = np.searchsorted(query[order], np.arange(0, len(ids) + PAIR_WIDTH, PAIR_WIDTH))
        indptr, stored = self.sets.indptr, self.sets.ids
        for block_number, first in enumerate(range(0, len(ids), PAIR_WIDTH)):
            lo, hi = bounds[block_number], bounds[block_number + 1]
            if lo == hi:
                continue
            block, pick = ids[first:first + PAIR_WIDTH], order[lo:hi]
            q, r = (query[pick] - first).astype(np.uint8), rows[pick].astype(np.int64)
            starts, lengths = indptr[r], indptr[r + 1] - indptr[r]
            ends = np.cumsum(lengths)
            table = self._table(block)  # uint8: one bit per query of the block
            try:
                offsets = np.repeat(starts - ends + lengths, lengths) + np.arange(ends[-1])
                hit = (table[stored[offsets]] >> np.repeat(q, lengths)) & np.uint8(1)
            finally:
                self._clear(table, block)
            counts = np.concatenate(([0], np.cumsum(hit, dtype=np.int64)))
            inter = counts[ends] - counts[ends - lengths]
            out[pick] = inter / (sizes[query[pick]] + lengths - inter)
        return out

    def block(self, ids: Sequence[np.ndarray], sizes: np.ndarray, start: int, end: int) -> np.ndarray:
        """Jaccard of every query against every stored set of rows [start, end): shape (queries, end - start)."""
        indptr = self.sets.indptr
        base = int(indptr[start])
        bounds = np.asarray(indptr[start:end + 1], dtype=np.int64) - base
        lengths = np.diff(bounds)
        out = np.empty((len(ids), end - start), dtype=np.float64)
        segment = self.sets.ids[base:int(indptr[end])]
        for first in range(0, len(ids), WIDTH):
            block = ids[first:first + WIDTH]
            table = self._table(block)
            try:
                bits = table[segment]
            finally:
                self._clear(table, block)
            hits = np.flatnonzero(bits)
            # bit j of each hit's entry as column j (little-endian bytes), summed per row by a sparse product: the
            # intersection of each row with query j
            packed = bits[hits].view(np.uint8).reshape(len(hits), bits.itemsize)
            columns = np.unpackbits(packed, axis=1, count=len(block), bitorder="little").astype(np.float32)
            rows = sparse.csr_matrix((np.ones(len(hits), dtype=np.float32), np.arange(len(hits)),
                                      np.searchsorted(hits, bounds)), shape=(end - start, len(hits)))
            inter = (rows @ columns).T.astype(np.int64)
            out[first:first + len(block)] = inter / (sizes[first:first + len(block), None] + lengths - inter)
        return out
