"""Time the novelty index at the full corpus size (2.2M synthetic captions): build, query throughput, recall on
planted copies, and the naive alternatives measured on a subsample and extrapolated (brute-force exact Jaccard;
datasketch's in-memory MinHashLSH)."""

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
from datasketch import MinHash, MinHashLSH

from nycc_bench.novelty.corpus import SCHEMA, rule_groups
from nycc_bench.novelty.index import Settings, read_index, write_index
from nycc_bench.novelty.lsh import SCHEME, SEED, signatures
from nycc_bench.novelty.report import Matcher
from nycc_bench.novelty.text import jaccard, normalise, shingles

ONSETS = ["", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "y", "br", "ch",
          "cl", "dr", "fl", "gr", "pl", "sh", "sl", "st", "th", "tr"]
NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "oo", "ou", "y"]
CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "ck", "nd", "ng", "st"]
ENDS = [".", ".", "?", "!", "", ".\n", "…"]


def make_vocabulary(size: int, rng: np.random.Generator) -> np.ndarray:
    """Pronounceable made-up words of 1–3 syllables, so character n-grams look like English text's."""
    words: set[str] = set()
    while len(words) < size:
        n = rng.integers(1, 4)
        words.add("".join(ONSETS[rng.integers(len(ONSETS))] + NUCLEI[rng.integers(len(NUCLEI))]
                          + CODAS[rng.integers(len(CODAS))] for _ in range(n)))
    return np.array(sorted(words))


def make_captions(n: int, seed: int, vocabulary: np.ndarray) -> list[str]:
    """Seeded caption-like text: Zipf-distributed words, 2–20 per caption, a capital and an end mark."""
    rng = np.random.default_rng(seed)
    weights = 1 / np.arange(1, len(vocabulary) + 1)
    lengths = np.clip(rng.poisson(8, size=n) + 2, 2, 20)
    words = rng.choice(vocabulary, size=int(lengths.sum()), p=weights / weights.sum()).tolist()
    ends = rng.choice(ENDS, size=n).tolist()
    out, start = [], 0
    for length, end in zip(lengths.tolist(), ends, strict=True):
        text = " ".join(words[start:start + length])
        out.append(text[:1].upper() + text[1:] + end)
        start += length
    return out


def corpus_table(captions: list[str], per_contest: int) -> pa.Table:
    """Captions as an index corpus: consecutive blocks are contests 1, 2, ...; rank = position in the block."""
    n = len(captions)
    contest = (np.arange(n) // per_contest + 1).astype(np.int32)
    rank = (np.arange(n) % per_contest).astype(np.int32)
    size = np.bincount(contest)[contest]
    return pa.table({"contest_number": contest, "caption": captions, "norm": [normalise(c) for c in captions],
                     "rank": rank, "group": rule_groups(rank, size).tolist(),
                     "run_id": pa.repeat("synthetic", n)}, schema=SCHEMA)


def planted_queries(table: pa.Table, n: int, seed: int, vocabulary: np.ndarray, k: int) -> tuple[list, list, list]:
    """(contest, text, source row, true Jaccard with the source): verbatim copies, one-word edits of captions of
    6+ words, and unrelated captions (other word frequencies) put in random contests."""
    rng = np.random.default_rng(seed)
    norms, contests = table["norm"], table["contest_number"].to_numpy()
    rows = rng.choice(table.num_rows, size=n, replace=False)
    copies = [(int(contests[r]), norms[int(r)].as_py(), int(r), 1.0) for r in rows[: n // 3]]
    edits = []
    for r in rows[n // 3:]:
        source = norms[int(r)].as_py()
        words = source.split()
        if len(words) >= 6 and len(edits) < n // 3:
            words[rng.integers(len(words))] = str(rng.choice(vocabulary))
            edited = " ".join(words)
            edits.append((int(contests[r]), edited, int(r), jaccard(shingles(edited, k), shingles(source, k))))
    fresh = make_captions(n // 3, seed + 1, vocabulary[::-1])
    unrelated = [(int(rng.choice(contests)), normalise(c), None, None) for c in fresh]
    return copies, edits, unrelated


def recall(planted: list, found: dict, threshold: float) -> str:
    """"found/eligible": a planted caption is eligible when its true Jaccard with its source reaches the threshold."""
    eligible = [(norm, row) for _, norm, row, similarity in planted if similarity >= threshold]
    return f"{sum(any(r == row for r, _ in found[norm]) for norm, row in eligible)}/{len(eligible)}"


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=2_200_000, help="synthetic human captions (default 2.2M)")
    parser.add_argument("--per-contest", type=int, default=6_000, help="captions per synthetic contest")
    parser.add_argument("--queries", type=int, default=3_000, help="planted queries (1/3 copies, edits, unrelated)")
    parser.add_argument("--naive-sample", type=int, default=20_000, help="captions the naive ways are timed on")
    parser.add_argument("--naive-queries", type=int, default=20)
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--keep", default=None, help="write the index here (default: a temporary folder)")
    args = parser.parse_args()
    settings = Settings(threshold=args.threshold)

    vocabulary = make_vocabulary(30_000, np.random.default_rng(0))
    captions, t_make = timed(make_captions, args.n, 0, vocabulary)
    table, t_norm = timed(corpus_table, captions, args.per_contest)
    del captions
    print(f"{args.n:,} synthetic captions made in {t_make:.1f} s, normalised in {t_norm:.1f} s", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp) / "index"
        _, t_index = timed(write_index, table, settings, folder, {"synthetic": args.n}, progress=True)
        index, t_load = timed(read_index, folder, settings)
        size_mb = sum(f.stat().st_size for f in folder.iterdir()) / 1e6
        print(f"index: built in {t_index:.1f} s, {size_mb:,.0f} MB on disk, memory-mapped in {t_load:.3f} s",
              flush=True)

        copies, edits, unrelated = planted_queries(index.table, args.queries, 1, vocabulary, settings.shingle_size)
        queries = copies + edits + unrelated
        matcher = Matcher(index, settings)
        norms = [q[1] for q in queries]
        lsh, t_lsh = timed(matcher.lsh_matches, norms)
        full, t_full = timed(matcher.run, {(c, n) for c, n, *_ in queries})
        sample_sig = signatures([shingles(n, settings.shingle_size) for n in norms], settings.num_perm)
        n_candidates = sum(len(c) for c in index.bands.candidates(sample_sig)) / len(norms)
        found = {"copies": recall(copies, lsh, settings.threshold),
                 "edits": recall(edits, lsh, settings.threshold),
                 "edits_below_threshold": sum(e[3] < settings.threshold for e in edits),
                 "unrelated_with_a_match": sum(bool(lsh[n]) for _, n, *_ in unrelated)}
        same_found = sum(full[(c, n)]["near_same_contest"] is not None for c, n, _, j in edits
                         if j >= settings.threshold)
        print(f"queries: {len(queries):,} ({len(copies)} copies, {len(edits)} one-word edits, {len(unrelated)} "
              f"unrelated); LSH over all contests {len(queries) / t_lsh:,.0f} captions/s; full check (exact + "
              f"LSH + brute-force same contest) {len(queries) / t_full:,.0f} captions/s", flush=True)
        print(f"  found: {found}; edits found in their own contest: "
              f"{same_found}/{len(edits) - found['edits_below_threshold']}; "
              f"{n_candidates:,.0f} LSH candidates per query", flush=True)

        sample = index.table["norm"].slice(0, args.naive_sample).to_pylist()
        sample_sets = [shingles(s, settings.shingle_size) for s in sample]
        naive_queries = [shingles(n, settings.shingle_size) for n in norms[: args.naive_queries]]
        _, t_naive = timed(lambda: [[jaccard(q, s) for s in sample_sets] for q in naive_queries])
        naive_per_query = t_naive / len(naive_queries) * args.n / len(sample)
        lsh_mem, t_ds = _datasketch_lsh(sample, settings)
        print(f"naive brute-force exact Jaccard: {naive_per_query:,.1f} s per query at {args.n:,} captions "
              f"(timed on {len(sample):,}), i.e. {1 / naive_per_query:.3f} captions/s", flush=True)
        print(f"datasketch MinHashLSH (dict storage): {lsh_mem * args.n / len(sample) / 1e9:,.1f} GB and "
              f"{t_ds * args.n / len(sample):,.0f} s of inserts extrapolated to {args.n:,} captions", flush=True)
    print(json.dumps({
        "n_captions": args.n, "index_seconds": round(t_index, 1), "index_mb": round(size_mb, 1),
        "load_seconds": round(t_load, 3), "n_queries": len(queries),
        "queries_per_second": round(len(queries) / t_full, 1),
        "lsh_queries_per_second": round(len(queries) / t_lsh, 1), "recall": found,
        "edits_found_same_contest": same_found, "lsh_candidates_per_query": round(n_candidates, 1),
        "naive_seconds_per_query": round(naive_per_query, 2),
        "naive_queries_per_second": round(1 / naive_per_query, 4),
        "speedup_vs_naive": round(naive_per_query * len(queries) / t_full, 1),
        "datasketch_minhashlsh_gb_extrapolated": round(lsh_mem * args.n / len(sample) / 1e9, 2),
        "datasketch_minhashlsh_insert_seconds_extrapolated": round(t_ds * args.n / len(sample), 1),
        "settings": {k: v for k, v in settings.describe().items() if k not in ("normalisation", "similarity")},
        "cpu_count": os.cpu_count(), "python": platform.python_version(),
    }))


def resident_bytes() -> int:
    """This process's resident memory (Linux /proc), to measure what an in-memory structure holds."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _datasketch_lsh(sample: list[str], settings: Settings) -> tuple[int, float]:
    """Resident bytes added and seconds taken by datasketch's MinHashLSH (dict storage) for the sample."""
    lsh = MinHashLSH(threshold=settings.threshold, num_perm=settings.num_perm, weights=settings.lsh_weights)
    minhashes = signatures((shingles(n, settings.shingle_size) for n in sample), settings.num_perm)
    before = resident_bytes()
    start = time.perf_counter()
    with lsh.insertion_session() as session:
        for i, hv in enumerate(minhashes):
            session.insert(i, MinHash(seed=SEED, scheme=SCHEME, hashvalues=hv), check_duplication=False)
    seconds = time.perf_counter() - start
    return resident_bytes() - before, seconds


if __name__ == "__main__":
    main()
