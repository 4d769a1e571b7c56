"""Do generated captions copy human submissions? Exact and near-duplicate matches against the same contest and
all contests, per model, with the group each copied caption comes from and examples."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .corpus import GROUPS, OTHER
from .index import NoveltyIndex, Settings, load_index
from .lsh import signatures
from .mapped import release
from .predictions import Generated, from_mapping, read_predictions_file
from .text import normalise, shingles
from .verify import Verifier

SCAN_ROWS = 1 << 17  # corpus rows compared at a time by `exact_rows` (~6 MB of captions)
KINDS = ("exact_same_contest", "exact_any_contest", "near_same_contest", "near_any_contest")
Predictions = str | Path | Mapping[str, list[str] | None]


@dataclass(frozen=True, order=True)
class Match:
    """One human caption a generated caption matches; ordered best first (similar, same contest, high rank)."""

    sort_key: tuple = field(repr=False)
    row: int
    similarity: float
    same_contest: bool


class Matcher:
    """Finds the matches of many generated captions at once against one index."""

    def __init__(self, index: NoveltyIndex, settings: Settings) -> None:
        self.index, self.settings = index, settings
        self.contests = index.table["contest_number"].to_numpy()
        self.ranks = index.table["rank"]
        # as NumPy (a null rank as -1 beside its mask): a match reads its rank without an Arrow scalar per row
        self._rank_values = pc.fill_null(self.ranks, -1).to_numpy()
        self._rank_null = self.ranks.is_null().to_numpy()
        # the memory-mapped column as it is (a contiguous copy would add the whole column, 260 MB at 2.2M, to
        # the process); exact_rows reads its few hits row by row
        self._norms = index.table["norm"]
        self._local = threading.local()
        self._prepared: dict[str, tuple[frozenset[str], np.ndarray]] = {}
        self.sizes = index.shingles.sizes() if index.shingles is not None else None
        if index.shingles is not None:
            release(index.shingles.indptr)  # read whole once: its pages are not kept

    @property
    def verifier(self) -> Verifier:
        """This thread's verifier (each holds its own lookup tables)."""
        if not hasattr(self._local, "verifier"):
            self._local.verifier = Verifier(self.index.shingles)
        return self._local.verifier

    def _make(self, row: int, similarity: float, contest: int) -> Match:
        """A match of a caption generated for `contest`, ordered by similarity, same contest, rank, contest."""
        found, no_rank = int(self.contests[row]), bool(self._rank_null[row])
        same = found == contest
        return Match((-similarity, not same, no_rank, 0 if no_rank else int(self._rank_values[row]), found, row),
                     row, similarity, same)

    def exact_rows(self, norms: list[str], rows: int = SCAN_ROWS) -> dict[str, list[int]]:
        """normalised text → every corpus row with exactly that text (one vectorised pass over the corpus, `rows`
        at a time, each slice's mapped pages released once compared)."""
        value_set = pa.array(norms, pa.string())
        hits = []
        for start in range(0, len(self._norms), rows):
            found = pc.is_in(self._norms.slice(start, rows), value_set=value_set).to_numpy(zero_copy_only=False)
            hits.append(np.flatnonzero(found) + start)
            self.index.release_table()
        hit = np.concatenate(hits) if hits else np.empty(0, dtype=np.int64)
        out: dict[str, list[int]] = {}
        for row in hit.tolist():
            out.setdefault(self._norms[row].as_py(), []).append(row)
        return out

    def _queries(self, norms: list[str]) -> tuple[list[frozenset[str]], list[np.ndarray], np.ndarray]:
        """Each normalised text's shingle set, its ids in the index's vocabulary, and the set sizes (looked up once
        per text and kept)."""
        if missing := [n for n in dict.fromkeys(norms) if n not in self._prepared]:
            sets = [shingles(n, self.settings.shingle_size) for n in missing]
            self._prepared.update(zip(missing, zip(sets, self.index.shingles.lookup(sets), strict=True), strict=True))
        sets, ids = zip(*(self._prepared[n] for n in norms), strict=True) if norms else ((), ())
        return list(sets), list(ids), np.fromiter(map(len, sets), dtype=np.int64, count=len(sets))

    def lsh_matches(self, norms: list[str]) -> dict[str, list[tuple[int, float]]]:
        """normalised text → (row, exact Jaccard) of every LSH candidate at or above the threshold."""
        query_sets, ids, sizes = self._queries(norms)
        candidates = self.index.bands.candidates(signatures(query_sets, self.settings.num_perm))
        query = np.repeat(np.arange(len(norms)), [len(c) for c in candidates])
        rows = np.concatenate(candidates).astype(np.int64) if candidates else np.empty(0, dtype=np.int64)
        # |A ∩ B| / |A ∪ B| <= min(|A|, |B|) / max(|A|, |B|): pairs of too different sizes cannot reach the
        # threshold, so only the others are verified (an exact filter, not an estimate)
        small, large = np.minimum(sizes[query], self.sizes[rows]), np.maximum(sizes[query], self.sizes[rows])
        possible = small >= self.settings.threshold * large
        query, rows = query[possible], rows[possible]
        similarity = self.verifier.pairs(ids, sizes, query, rows)
        keep = similarity >= self.settings.threshold
        out: dict[str, list[tuple[int, float]]] = {n: [] for n in norms}
        for q, row, value in zip(query[keep].tolist(), rows[keep].tolist(), similarity[keep].tolist(), strict=True):
            out[norms[q]].append((row, value))
        return out

    def same_contest_matches(self, contest: int, norms: list[str]) -> dict[str, list[tuple[int, float]]]:
        """Brute force over every caption of the contest: exact Jaccard, no LSH, so no copy is missed here."""
        start, end = self.index.contest_slice(contest)
        _, ids, sizes = self._queries(norms)
        similarity = self.verifier.block(ids, sizes, start, end)
        out: dict[str, list[tuple[int, float]]] = {}
        for norm, row in zip(norms, similarity, strict=True):
            hits = np.flatnonzero(row >= self.settings.threshold)
            out[norm] = [(start + int(i), float(row[i])) for i in hits]
        return out

    def run(self, queries: set[tuple[int, str]]) -> dict[tuple[int, str], dict[str, Match | None]]:
        """The best match of each kind (None where there is none) for every (contest, normalised caption)."""
        norms = sorted({n for _, n in queries})
        if self.index.shingles is not None:  # every text's shingles looked up once, before the threads share them
            self._queries(norms)
        by_contest: dict[int, list[str]] = {}
        for contest, norm in queries:
            by_contest.setdefault(contest, []).append(norm)
        # the contests' brute force runs in the pool while this thread does the exact and LSH steps (NumPy
        # releases the GIL)
        with ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
            blocks = pool.map(lambda item: self.same_contest_matches(*item), by_contest.items())
            exact = self.exact_rows(norms)
            near = self.lsh_matches(norms)
            same = dict(zip(by_contest, blocks, strict=True))
        return self.combine(queries, exact, near, same)

    def combine(self, queries: set[tuple[int, str]], exact: dict[str, list[int]],
                near: dict[str, list[tuple[int, float]]], same: dict[int, dict[str, list[tuple[int, float]]]],
                ) -> dict[tuple[int, str], dict[str, Match | None]]:
        """The best match of each kind per query from the exact rows, the LSH matches and each contest's."""
        results = {}
        for contest, norm in queries:
            exact_all = [self._make(r, 1.0, contest) for r in exact.get(norm, [])]
            same_near = [self._make(r, s, contest) for r, s in same[contest][norm]]
            any_near = [self._make(r, s, contest) for r, s in near[norm]] + same_near + exact_all
            results[(contest, norm)] = {
                "exact_same_contest": min((m for m in exact_all if m.same_contest), default=None),
                "exact_any_contest": min(exact_all, default=None),
                "near_same_contest": min(same_near + [m for m in exact_all if m.same_contest], default=None),
                "near_any_contest": min(any_near, default=None),
            }
        return results


def _model_report(generated: Generated, results: dict[tuple[int, str], dict[str, Match | None]], matcher: Matcher,
                  known_contests: set[int], max_examples: int) -> dict:
    """Counts, shares, groups and examples of one model."""
    table = matcher.index.table
    counts = {kind: 0 for kind in KINDS}
    groups = {kind: dict.fromkeys((*GROUPS, OTHER), 0) for kind in KINDS}
    examples = []
    n_captions = 0
    for contest, captions in sorted(generated.captions.items()):
        for caption in captions:
            n_captions += 1
            best = results[(contest, normalise(caption))]
            for kind in KINDS:
                if (m := best[kind]) is not None:
                    counts[kind] += 1
                    groups[kind][table["group"][m.row].as_py()] += 1
            if (m := best["near_any_contest"]) is not None:
                examples.append((m.sort_key, {
                    "instance_id": str(contest), "generated": caption, "human": table["caption"][m.row].as_py(),
                    "contest_number": int(matcher.contests[m.row]), "same_contest": m.same_contest,
                    "rank": matcher.ranks[m.row].as_py(), "group": table["group"][m.row].as_py(),
                    "similarity": round(m.similarity, 4), "exact": best["exact_any_contest"] is not None,
                }))
    examples.sort(key=lambda e: (not e[1]["exact"], e[0]))
    missing = sorted(c for c in generated.captions if c not in known_contests)
    return {
        "model": generated.name, "predictions": generated.source, "n_instances": generated.n_instances,
        "n_instances_without_captions": generated.n_without_captions, "n_captions": n_captions,
        "contests_without_human_captions": missing,
        "matches": {kind: {"count": counts[kind], "share": counts[kind] / n_captions if n_captions else None,
                           "groups": groups[kind]} for kind in KINDS},
        "examples": [e for _, e in examples[:max_examples]],
    }


def _as_generated(item: Predictions, i: int) -> Generated:
    """A predictions file path or an in-memory mapping as one model's captions."""
    if isinstance(item, Mapping):
        return from_mapping(item, f"predictions[{i}]")
    return read_predictions_file(item)


def novelty_report(predictions: Predictions | Sequence[Predictions], dataset: str | Path, *,
                   threshold: float = 0.5, shingle_size: int = 4, num_perm: int = 128,
                   cache_dir: str | Path | None = None, max_examples: int = 20, progress: bool = True) -> dict:
    """How many generated captions copy a human caption of the same contest or any contest, exactly (after
    normalisation) or nearly (exact character-shingle Jaccard >= threshold), per predictions file.

    Returns a JSON-able dict: `settings`, `index` (cache path, whether it was built now, source fingerprint),
    and `models`, one entry per predictions input with `n_captions`, `matches[kind]` = count, share and
    group counts (top 10, #200-209, #1000-1009, median, other) for kind in exact/near × same/any contest, and
    `examples` (best match first).
    """
    items = [predictions] if isinstance(predictions, str | Path | Mapping) else list(predictions)
    models = [_as_generated(item, i) for i, item in enumerate(items)]  # bad input fails before any index work
    settings = Settings(threshold=threshold, shingle_size=shingle_size, num_perm=num_perm)
    index = load_index(dataset, settings, cache_dir, progress=progress)
    matcher = Matcher(index, settings)
    queries = {(c, normalise(t)) for g in models for c, captions in g.captions.items() for t in captions}
    results = matcher.run(queries)
    known = set(np.unique(matcher.contests).tolist())
    return {"settings": settings.describe(), "index": index.describe(),
            "models": [_model_report(g, results, matcher, known, max_examples) for g in models]}
