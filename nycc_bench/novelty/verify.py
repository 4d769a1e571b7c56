"""Exact Jaccard of query shingle sets against stored caption sets, vectorised over pairs and contest blocks.

Queries are marked in a lookup table over the vocabulary (a bit or a bit field per query on its shingles); a
caption's intersection with query j is then the number of its shingle ids whose entry has query j's mark, counted
by NumPy over the caption's stored ids. |A ∪ B| = |A| + |B| - |A ∩ B|, so the similarity is the one `jaccard()`
in text.py defines, with the same float arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .mapped import release
from .shingling import ShingleSets

PIECE_IDS = 1 << 24  # stored ids (64 MiB) whose candidate rows `pairs` reads at a time


class Verifier:
    """Jaccard of queries (ids in the vocabulary, and their full set sizes) against the stored caption sets."""

    def __init__(self, sets: ShingleSets) -> None:
        self.sets = sets
        self._tables: dict[type, np.ndarray] = {}

    def _zeros(self, dtype: type) -> np.ndarray:
        """This verifier's lookup table of `dtype` over the vocabulary: all zero between uses (callers clear what
        they mark)."""
        if dtype not in self._tables:
            self._tables[dtype] = np.zeros(len(self.sets.vocab), dtype=dtype)
        return self._tables[dtype]

    @staticmethod
    def _clear(table: np.ndarray, ids: Sequence[np.ndarray]) -> None:
        for query in ids:
            table[query] = 0

    def pairs(self, ids: Sequence[np.ndarray], sizes: np.ndarray, query: np.ndarray, rows: np.ndarray,
              piece: int = PIECE_IDS) -> np.ndarray:
        """Jaccard of each pair (query[i], rows[i]): `ids`/`sizes` are every query's vocabulary ids and set size.

        The candidates are taken in row order, a piece of the store (`piece` stored ids) at a time, and the
        mapped store's pages released after each piece; within a piece, query by query: its shingles marked 1 in
        a uint8 table, its candidates' stored ids gathered into one array (int32 offsets while the store allows),
        looked up, and summed per candidate by `reduceat`. The process holds one piece's pages at once, whatever
        the number of candidates (query by query, scattered candidates mapped nearly all the store: 1.4 GB of
        pages at 2.2M captions).
        """
        out = np.empty(len(query), dtype=np.float64)
        if not len(query):
            return out
        indptr, stored = self.sets.indptr, self.sets.ids
        width = np.int32 if len(stored) < 1 << 31 else np.int64
        rows = np.asarray(rows, dtype=np.int64)
        starts_all = np.asarray(indptr[rows])
        lengths_all = np.asarray(indptr[rows + 1]) - starts_all
        window = starts_all // piece
        order = np.lexsort((query, window))  # by piece, then query
        table = self._zeros(np.uint8)
        for in_piece in np.split(order, np.flatnonzero(np.diff(window[order])) + 1):
            for pick in np.split(in_piece, np.flatnonzero(np.diff(query[in_piece])) + 1):
                j = int(query[pick[0]])
                starts, lengths = starts_all[pick].astype(width), lengths_all[pick].astype(width)
                inter = np.zeros(len(pick), dtype=np.int64)
                if (nonempty := np.flatnonzero(lengths)).size:
                    starts, counted = starts[nonempty], lengths[nonempty]
                    ends = np.cumsum(counted, dtype=width)
                    offsets = np.repeat(starts - ends + counted, counted)
                    offsets += np.arange(ends[-1], dtype=width)
                    table[ids[j]] = 1
                    try:
                        hit = table[stored[offsets]]
                    finally:
                        table[ids[j]] = 0
                    inter[nonempty] = np.add.reduceat(hit, ends - counted, dtype=np.int64)
                out[pick] = inter / (sizes[j] + lengths.astype(np.int64) - inter)
            release(stored)
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
        # as NumPy's index type once: indexing with uint32 converts them again on every lookup, and more slowly
        segment = self.sets.ids[base:int(indptr[end])].astype(np.intp)
        release(self.sets.ids)  # one contest's rows, copied: the mapped pages are not kept
        longest = int(lengths.max()) if len(lengths) else 0
        field = next(bits for bits in (8, 16, 32) if longest < 1 << bits)
        per, mask = 64 // field, np.uint64((1 << field) - 1)
        table = self._zeros(np.uint64)
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
