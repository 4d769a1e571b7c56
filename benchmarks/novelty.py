"""Time the novelty index at the full corpus size (2.2M synthetic captions): build, query throughput and recall on
planted copies, for this implementation (vectorised MinHash equal to datasketch's, stored shingle sets, vectorised
verification) and the previous one (datasketch MinHash per caption, Python verification) in one run, plus rensa's
MinHash if installed and the naive alternatives measured on a subsample and extrapolated (brute-force exact
Jaccard; datasketch's in-memory MinHashLSH)."""

import argparse
import json
import os
import platform
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.feather as feather
from datasketch import MinHash, MinHashLSH
from scipy import sparse

from nycc_bench.novelty.corpus import SCHEMA, rule_groups
from nycc_bench.novelty.index import NoveltyIndex, Settings, read_index, write_index
from nycc_bench.novelty.lsh import SCHEME, SEED, BandIndex, minhash, signatures
from nycc_bench.novelty.report import Matcher
from nycc_bench.novelty.shingling import build_shingle_sets
from nycc_bench.novelty.text import jaccard, jaccard_matrix, normalise, shingles
from nycc_bench.novelty.verify import Verifier

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


def previous_signatures(norms: list[str], num_perm: int, k: int) -> np.ndarray:
    """The previous build's MinHash: datasketch `MinHash.generator` over each caption's shingle bytes."""
    rows, chunk = [], []
    for norm in norms:
        chunk.append([s.encode("utf-8") for s in shingles(norm, k)])
        if len(chunk) == 20_000 or norm is norms[-1]:
            rows.append(np.stack([m.hashvalues for m in MinHash.generator(chunk, num_perm=num_perm, seed=SEED,
                                                                           scheme=SCHEME)]))
            chunk = []
    return np.concatenate(rows).astype(np.uint32)


def previous_write_index(table: pa.Table, settings: Settings, folder: Path) -> BandIndex:
    """The previous index build: datasketch signatures, the same bands, the same caption table on disk."""
    sig = previous_signatures(table["norm"].to_pylist(), settings.num_perm, settings.shingle_size)
    bands = BandIndex.build(sig, settings.bands, settings.rows)
    folder.mkdir(parents=True)
    feather.write_feather(table, folder / "captions.arrow", compression="uncompressed")
    bands.save(folder)
    return bands


class PreviousMatcher(Matcher):
    """The previous query path: Python Jaccard over each LSH candidate, re-shingling each contest for brute force."""

    def __init__(self, index: NoveltyIndex, settings: Settings) -> None:
        super().__init__(index, settings)
        self._norms = index.table["norm"].combine_chunks()  # (one contiguous copy, as it kept)

    def lsh_matches(self, norms: list[str]) -> dict[str, list[tuple[int, float]]]:
        k, threshold = self.settings.shingle_size, self.settings.threshold
        query_sets = [shingles(n, k) for n in norms]
        sig = previous_signatures(norms, self.settings.num_perm, k)
        out: dict[str, list[tuple[int, float]]] = {}
        for norm, qs, rows in zip(norms, query_sets, self.index.bands.candidates(sig), strict=True):
            texts = self._norms.take(pa.array(rows.astype(np.int64))).to_pylist() if len(rows) else []
            scored = ((int(r), jaccard(qs, shingles(t, k))) for r, t in zip(rows, texts, strict=True))
            out[norm] = [(r, s) for r, s in scored if s >= threshold]
        return out

    def same_contest_matches(self, contest: int, norms: list[str]) -> dict[str, list[tuple[int, float]]]:
        k, threshold = self.settings.shingle_size, self.settings.threshold
        start, end = self.index.contest_slice(contest)
        similarity = jaccard_matrix(norms, self._norms.slice(start, end - start).to_pylist(), k)
        out: dict[str, list[tuple[int, float]]] = {}
        for norm, row in zip(norms, similarity, strict=True):
            hits = np.flatnonzero(row >= threshold)
            out[norm] = [(start + int(i), float(row[i])) for i in hits]
        return out


class BitPlaneVerifier(Verifier):
    """The verification behind the README's earlier figures (524 captions/s at 2.2M): a contest's queries as bit
    planes, unpacked and summed by a sparse product; LSH pairs by per-pair bit shifts and a cumulative sum."""

    def _table(self, ids: list[np.ndarray]) -> np.ndarray:
        dtype = next(d for bits, d in ((8, np.uint8), (16, np.uint16), (32, np.uint32), (64, np.uint64))
                     if len(ids) <= bits)
        if dtype not in self._tables:
            self._tables[dtype] = np.zeros(len(self.sets.vocab), dtype=dtype)
        table = self._tables[dtype]
        for j, query in enumerate(ids):
            table[query] |= dtype(1 << j)
        return table

    def pairs(self, ids, sizes, query, rows):
        out = np.empty(len(query), dtype=np.float64)
        order = np.argsort(query, kind="stable")
        bounds = np.searchsorted(query[order], np.arange(0, len(ids) + 8, 8))
        indptr, stored = self.sets.indptr, self.sets.ids
        for block_number, first in enumerate(range(0, len(ids), 8)):
            lo, hi = bounds[block_number], bounds[block_number + 1]
            if lo == hi:
                continue
            block, pick = ids[first:first + 8], order[lo:hi]
            q, r = (query[pick] - first).astype(np.uint8), rows[pick].astype(np.int64)
            starts, lengths = indptr[r], indptr[r + 1] - indptr[r]
            ends = np.cumsum(lengths)
            table = self._table(block)
            try:
                offsets = np.repeat(starts - ends + lengths, lengths) + np.arange(ends[-1])
                hit = (table[stored[offsets]] >> np.repeat(q, lengths)) & np.uint8(1)
            finally:
                self._clear(table, block)
            counts = np.concatenate(([0], np.cumsum(hit, dtype=np.int64)))
            inter = counts[ends] - counts[ends - lengths]
            out[pick] = inter / (sizes[query[pick]] + lengths - inter)
        return out

    def block(self, ids, sizes, start, end):
        indptr = self.sets.indptr
        base = int(indptr[start])
        bounds = np.asarray(indptr[start:end + 1], dtype=np.int64) - base
        lengths = np.diff(bounds)
        out = np.empty((len(ids), end - start), dtype=np.float64)
        segment = self.sets.ids[base:int(indptr[end])]
        for first in range(0, len(ids), 64):
            block = ids[first:first + 64]
            table = self._table(block)
            try:
                bits = table[segment]
            finally:
                self._clear(table, block)
            hits = np.flatnonzero(bits)
            packed = bits[hits].view(np.uint8).reshape(len(hits), bits.itemsize)
            columns = np.unpackbits(packed, axis=1, count=len(block), bitorder="little").astype(np.float32)
            rows = sparse.csr_matrix((np.ones(len(hits), dtype=np.float32), np.arange(len(hits)),
                                      np.searchsorted(hits, bounds)), shape=(end - start, len(hits)))
            inter = (rows @ columns).T.astype(np.int64)
            out[first:first + len(block)] = inter / (sizes[first:first + len(block), None] + lengths - inter)
        return out


class BitPlaneMatcher(Matcher):
    """The full check as it was before: `BitPlaneVerifier`, the exact and LSH steps before the contests' pool."""

    @property
    def verifier(self) -> Verifier:
        if not hasattr(self._local, "verifier"):
            self._local.verifier = BitPlaneVerifier(self.index.shingles)
        return self._local.verifier

    def run(self, queries):
        norms = sorted({n for _, n in queries})
        exact, near = self.exact_rows(norms), self.lsh_matches(norms)
        by_contest: dict[int, list[str]] = {}
        for contest, norm in queries:
            by_contest.setdefault(contest, []).append(norm)
        with ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
            same = dict(zip(by_contest, pool.map(lambda item: self.same_contest_matches(*item), by_contest.items()),
                            strict=True))
        return self.combine(queries, exact, near, same)


def measure(name: str, table: pa.Table, settings: Settings, folder: Path, n_queries: int,
            vocabulary: np.ndarray) -> tuple[dict, dict]:
    """Build one implementation's index over `table`, then time its LSH step and full check on planted queries."""
    if name == "new":
        _, t_index = timed(write_index, table, settings, folder, {"synthetic": table.num_rows}, progress=False)
        index, t_load = timed(read_index, folder, settings)
        matcher = Matcher(index, settings)
    else:
        _, t_index = timed(previous_write_index, table, settings, folder)
        start = time.perf_counter()
        index = NoveltyIndex(folder, feather.read_table(folder / "captions.arrow", memory_map=True),
                             BandIndex.load(folder, settings.bands, settings.rows), None, {})
        t_load = time.perf_counter() - start
        matcher = PreviousMatcher(index, settings)
    size_mb = sum(f.stat().st_size for f in folder.iterdir()) / 1e6
    copies, edits, unrelated = planted_queries(index.table, n_queries, 1, vocabulary, settings.shingle_size)
    queries = copies + edits + unrelated
    norms = [q[1] for q in queries]
    lsh, t_lsh = timed(matcher.lsh_matches, norms)
    cpu = time.process_time()
    full, t_full = timed(matcher.run, {(c, n) for c, n, *_ in queries})
    cpu = time.process_time() - cpu  # every thread's: what the check costs whatever else runs on the machine
    before = {}
    if name == "new":  # the verification as it was before, on the same index and queries (a fresh matcher each)
        lsh_before, t_lsh_before = timed(BitPlaneMatcher(index, settings).lsh_matches, norms)
        cpu_before = time.process_time()
        full_before, t_before = timed(BitPlaneMatcher(index, settings).run, {(c, n) for c, n, *_ in queries})
        cpu_before = time.process_time() - cpu_before
        before = {"bitplane_queries_per_second": round(len(queries) / t_before, 1),
                  "bitplane_full_check_cpu_seconds": round(cpu_before, 2),
                  "bitplane_lsh_queries_per_second": round(len(queries) / t_lsh_before, 1),
                  "bitplane_same_matches": full_before == full and lsh_before == lsh}
    same_found = sum(full[(c, n)]["near_same_contest"] is not None for c, n, _, j in edits if j >= settings.threshold)
    figures = {
        "n_captions": table.num_rows, "index_seconds": round(t_index, 1), "index_mb": round(size_mb, 1),
        "load_seconds": round(t_load, 3), "n_queries": len(queries),
        "queries_per_second": round(len(queries) / t_full, 1), "full_check_cpu_seconds": round(cpu, 2),
        "lsh_queries_per_second": round(len(queries) / t_lsh, 1),
        "recall": {"copies": recall(copies, lsh, settings.threshold), "edits": recall(edits, lsh, settings.threshold),
                   "edits_below_threshold": sum(e[3] < settings.threshold for e in edits),
                   "unrelated_with_a_match": sum(bool(lsh[n]) for _, n, *_ in unrelated)},
        "edits_found_same_contest": f"{same_found}/{sum(e[3] >= settings.threshold for e in edits)}", **before,
    }
    print(f"{name:>8} at {table.num_rows:,} captions: index built in {t_index:.1f} s ({size_mb:,.0f} MB, memory-mapped "
          f"in {t_load:.3f} s); full check (exact + LSH + same-contest brute force) "
          f"{figures['queries_per_second']:,.0f} captions/s ({cpu:.1f} CPU-seconds), LSH step "
          f"{figures['lsh_queries_per_second']:,.0f}/s; "
          f"recall {figures['recall']}, edits found in their own contest {figures['edits_found_same_contest']}"
          + (f"; the bit-plane verification before on the same index: full check "
             f"{before['bitplane_queries_per_second']:,.0f} captions/s ({cpu_before:.1f} CPU-seconds), LSH step "
             f"{before['bitplane_lsh_queries_per_second']:,.0f}/s, same matches {before['bitplane_same_matches']}"
             if before else ""), flush=True)
    return figures, {"index": index, "lsh": lsh, "full": full}


def rensa_seconds(table: pa.Table, settings: Settings) -> dict | None:
    """rensa's Rust MinHash (if installed) on the same shingle hashes: compute, and getting the values out."""
    try:
        from rensa import RMinHash
    except ImportError:
        return None
    sets, hashes = build_shingle_sets(table["norm"].to_pylist(), settings.shingle_size)
    flat = hashes[sets.ids].astype(np.uint64)
    offsets = sets.indptr.astype(np.uint64)
    matrix, t_compute = timed(RMinHash.digest_matrix_from_flat_token_hashes, flat, offsets, settings.num_perm, SEED)
    _, t_rows = timed(lambda: np.asarray(matrix.to_rows(), dtype=np.uint32))
    _, t_numpy = timed(minhash, hashes[sets.ids], sets.indptr, settings.num_perm)
    return {"n_captions": table.num_rows, "rensa_compute_s": round(t_compute, 2), "rensa_to_numpy_s": round(t_rows, 2),
            "numpy_minhash_s": round(t_numpy, 2)}


def _baseline_package(ref: str, into: Path) -> Path | None:
    """`nycc_bench` as it was at git `ref`, extracted under `into` (None when git or the ref is unavailable)."""
    import subprocess

    repo = Path(__file__).resolve().parents[1]
    archive = subprocess.run(["git", "-C", str(repo), "archive", ref, "nycc_bench"], capture_output=True)
    if archive.returncode:
        print(f"baseline {ref}: not measured ({archive.stderr.decode(errors='replace').strip()[:200]})", flush=True)
        return None
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def _index_digests(cache: Path) -> dict[str, str]:
    """sha256 of every file of the one index folder under `cache` (meta.json included)."""
    import hashlib

    (folder,) = [p for p in cache.iterdir() if p.is_dir()]
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def whole_process(n: int, contests: int, baseline_ref: str | None = None) -> dict:
    """What the user waits for, as whole processes from a built dataset: `nycc-bench novelty` the first time (reading
    and normalising the captions, building the index, answering) and again (the index built), beside a fresh
    python reading the columns the index reads (the floor) and, with `baseline_ref`, the first-time command of
    that commit's nycc_bench (the old way) on the same dataset, whose index files must be byte-identical; each with
    CPU seconds, wall seconds and peak memory."""
    import json as json_module

    from build import write_synthetic
    from process import measure as process

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_synthetic(root / "source", n, contests)
        dataset, cache = root / "dataset", root / "index"
        built = process(["-m", "nycc_bench.cli", "build", "--source", str(root / "source"), "--out", str(dataset),
                         "--configs", "caption_ratings", "--quiet"])
        vocabulary = make_vocabulary(30_000, np.random.default_rng(0))
        generated = {str(500 + c): make_captions(10, 10_000 + c, vocabulary) for c in range(min(contests, 20))}
        predictions = root / "generated.json"
        predictions.write_text(json_module.dumps(generated), encoding="utf-8")
        columns = ["contest_number", "caption", "rank", "run_id", "is_primary"]
        floor = process(["-c", "import pathlib, pyarrow.parquet as pq\n"
                               f"for p in sorted(pathlib.Path({str(dataset)!r}).rglob('caption_ratings/*.parquet')):\n"
                               f"    pq.read_table(p, columns={columns!r})\n"])

        def command(index: Path) -> list[str]:
            return ["-m", "nycc_bench.cli", "novelty", "--predictions", str(predictions), "--dataset", str(dataset),
                    "--cache-dir", str(index), "--quiet"]

        cold, warm = process(command(cache)), process(command(cache))
        baseline = None
        old = _baseline_package(baseline_ref, root / "baseline") if baseline_ref else None
        if old is not None:
            # PYTHONSAFEPATH: `python -m` puts the working directory (this checkout, when run from its root) before
            # PYTHONPATH, which made the "baseline" this checkout's code
            env = {"PYTHONPATH": str(old), "PYTHONSAFEPATH": "1"}
            baseline = process(command(root / "baseline_index"), env=env)
            baseline["ref"] = baseline_ref
            imported = process(["-c", "import nycc_bench; print(nycc_bench.__file__)"], env=env)["stdout"].strip()
            baseline["package_from_ref"] = Path(imported).is_relative_to(old)
            baseline["same_index_files"] = _index_digests(root / "baseline_index") == _index_digests(cache)
            baseline["same_report"] = (json_module.loads(baseline.pop("stdout").splitlines()[-1])["models"]
                                       == json_module.loads(cold["stdout"].splitlines()[-1])["models"])
    for figures in (built, floor, cold, warm):
        figures.pop("stdout")
    found = {"n": n, "contests": contests, "build": built, "read_floor": floor, "novelty_cold": cold,
             "novelty_warm": warm, "cold_cpu_vs_floor": round(cold["cpu_s"] / floor["cpu_s"], 2)}
    if baseline is not None:
        found["baseline_cold"] = baseline
        found["cold_cpu_vs_baseline"] = round(cold["cpu_s"] / baseline["cpu_s"], 2)
        found["cold_peak_vs_baseline"] = round(cold["peak_mb"] / baseline["peak_mb"], 2)
    for name in ("read_floor", "novelty_cold", "novelty_warm", "baseline_cold", "build"):
        if (f := found.get(name)) is not None:
            print(f"{name:<14}{f['cpu_s']:>9.2f} CPU s {f['wall_s']:>9.2f} wall s {f['peak_mb']:>9.1f} MB peak"
                  + (f"  ({f['ref']}: same index files {f['same_index_files']}, same report {f['same_report']})"
                     if name == "baseline_cold" else ""), flush=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=2_200_000, help="synthetic human captions (default 2.2M)")
    parser.add_argument("--whole-only", action="store_true",
                        help="only the whole-process figures from a built dataset (build, read floor, novelty)")
    parser.add_argument("--quick", action="store_true", help="--whole-only at 20,000 captions (CI)")
    parser.add_argument("--baseline-ref", default=None, metavar="GIT_REF",
                        help="also time `nycc-bench novelty` as it was at this commit (the old way), first time, on "
                             "the same dataset, and check its index files are byte-identical (e.g. a158c06)")
    parser.add_argument("--previous-n", type=int, default=None,
                        help="captions the previous implementation is timed on (default --n; it takes minutes)")
    parser.add_argument("--per-contest", type=int, default=6_000, help="captions per synthetic contest")
    parser.add_argument("--queries", type=int, default=3_000, help="planted queries (1/3 copies, edits, unrelated)")
    parser.add_argument("--naive-sample", type=int, default=20_000, help="captions the naive ways are timed on")
    parser.add_argument("--naive-queries", type=int, default=20)
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--keep", default=None, help="write the indexes here (default: a temporary folder)")
    args = parser.parse_args()
    if args.quick:
        args.n, args.whole_only = 20_000, True
    whole = whole_process(args.n, max(1, args.n // args.per_contest), args.baseline_ref)
    if args.whole_only:
        print(json.dumps({"whole_process": whole, "load_average": round(os.getloadavg()[0], 2),
                          "cpu_count": os.cpu_count()}))
        return
    settings = Settings(threshold=args.threshold)
    previous_n = min(args.previous_n or args.n, args.n)

    vocabulary = make_vocabulary(30_000, np.random.default_rng(0))
    captions, t_make = timed(make_captions, args.n, 0, vocabulary)
    table, t_norm = timed(corpus_table, captions, args.per_contest)
    del captions
    print(f"{args.n:,} synthetic captions made in {t_make:.1f} s, normalised in {t_norm:.1f} s; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp)
        new, new_runs = measure("new", table, settings, root / "new", args.queries, vocabulary)
        small = table.slice(0, previous_n)
        previous, previous_runs = measure("previous", small, settings, root / "previous", args.queries, vocabulary)
        if previous_n < args.n:
            new_small, small_runs = measure("new", small, settings, root / "new_small", args.queries, vocabulary)
        else:
            new_small, small_runs = new, new_runs
        same_bands = bool(np.array_equal(small_runs["index"].bands.keys, previous_runs["index"].bands.keys))
        same_results = small_runs["full"] == previous_runs["full"]
        print(f"same bands as the previous index: {same_bands}; same matches for every query: {same_results}",
              flush=True)
        rensa = rensa_seconds(table.slice(0, min(args.n, 200_000)), settings)
        if rensa:
            print(f"MinHash of {rensa['n_captions']:,} captions: NumPy {rensa['numpy_minhash_s']} s; rensa "
                  f"{rensa['rensa_compute_s']} s + {rensa['rensa_to_numpy_s']} s to get the values out", flush=True)

        index = new_runs["index"]
        norms = [q[1] for group in planted_queries(index.table, args.queries, 1, vocabulary, settings.shingle_size)
                 for q in group]
        sample_sig = signatures([shingles(n, settings.shingle_size) for n in norms], settings.num_perm)
        n_candidates = sum(len(c) for c in index.bands.candidates(sample_sig)) / len(norms)
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
        "whole_process": whole,
        **new, "previous": previous, **({"new_at_previous_n": new_small} if previous_n < args.n else {}),
        "same_bands_as_previous": same_bands, "same_matches_as_previous": same_results,
        "build_speedup": round(previous["index_seconds"] / new_small["index_seconds"], 1),
        "query_speedup": round(new_small["queries_per_second"] / previous["queries_per_second"], 1),
        "rensa": rensa, "lsh_candidates_per_query": round(n_candidates, 1),
        "naive_seconds_per_query": round(naive_per_query, 2),
        "naive_queries_per_second": round(1 / naive_per_query, 4),
        "speedup_vs_naive": round(naive_per_query * new["queries_per_second"], 1),
        "datasketch_minhashlsh_gb_extrapolated": round(lsh_mem * args.n / len(sample) / 1e9, 2),
        "datasketch_minhashlsh_insert_seconds_extrapolated": round(t_ds * args.n / len(sample), 1),
        "settings": {k: v for k, v in settings.describe().items() if k not in ("normalisation", "similarity")},
        "cpu_count": os.cpu_count(), "load_average": round(os.getloadavg()[0], 2), "python": platform.python_version(),
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
