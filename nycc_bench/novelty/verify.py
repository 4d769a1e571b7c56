"""Exact Jaccard of query shingle sets against stored caption sets, vectorised over pairs and contest blocks.

Queries are marked in a lookup table over the vocabulary (a bit or a bit field per query on its shingles); a
caption's intersection with query j is then the number of its shingle ids whose entry has query j's mark, counted
by NumPy over the caption's stored ids. |A ∪ B| = |A| + |B| - |A ∩ B|, so the similarity is the one `jaccard()`
in text.py defines, with the same float arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .shingling import ShingleSets

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
        """Jaccard of every query against every stored set of rows [start, end): shape (queries, end - start).

        One pass over the rows' stored ids per group of queries: the lookup table holds, for each shingle, a 1 in
        query j's bit field of a uint64 (8 queries of 8-bit fields, or 4 of 16 bits, 2 of 32 when a row has 256+ or
        65,536+ shingles, so no field can overflow). Summing the looked-up values over each row (`reduceat` at the
        starts of the non-empty rows) gives the row's intersection with every query of the group at once.
        """
        indptr = self.sets.indptr
        base = int(indptr[start])
        bounds = np.asarray(indptr[start:end + 1], dtype=np.int64) - base
        lengths = np.diff(bounds)
        out = np.empty((len(ids), end - start), dtype=np.float64)
        segment = self.sets.ids[base:int(indptr[end])]
        longest = int(lengths.max()) if len(lengths) else 0
        field = next(bits for bits in (8, 16, 32) if longest < 1 << bits)
        per, mask = 64 // field, np.uint64((1 << field) - 1)
        if np.uint64 not in self._tables:
            self._tables[np.uint64] = np.zeros(len(self.sets.vocab), dtype=np.uint64)
        table = self._tables[np.uint64]
        nonempty = np.flatnonzero(lengths)
        counts = np.zeros(end - start, dtype=np.uint64)
        for first in range(0, len(ids), per):
            group = ids[first:first + per]
            for j, query in enumerate(group):
                table[query] |= np.uint64(1 << (field * j))
            try:
                if len(nonempty):  # a row's span runs to the next non-empty row's start: empty rows hold nothing
                    counts[nonempty] = np.add.reduceat(table[segment], bounds[nonempty])
            finally:
                self._clear(table, group)
            for j in range(len(group)):
                inter = ((counts >> np.uint64(field * j)) & mask).astype(np.int64)
                out[first + j] = inter / (sizes[first + j] + lengths - inter)
        return out
