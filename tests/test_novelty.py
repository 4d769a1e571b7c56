"""The novelty check on the embedded sample: planted copies are found with their group, unrelated text is not,
the index is cached, bad predictions fail in one line, and the LSH agrees with datasketch's own."""

from __future__ import annotations

import argparse
import doctest
import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from datasketch import MinHash, MinHashLSH
from hypothesis import given, settings
from hypothesis import strategies as st

from nycc_bench.builders import build_dataset
from nycc_bench.errors import NyccBenchError
from nycc_bench.novelty import Settings, add_novelty_parser, load_index, normalise, novelty_report
from nycc_bench.novelty import text as text_module
from nycc_bench.novelty.lsh import SCHEME, SEED, minhash, signatures
from nycc_bench.novelty.report import Matcher
from nycc_bench.novelty.shingling import build_shingle_sets
from nycc_bench.novelty.text import jaccard, jaccard_matrix, shingles
from nycc_bench.novelty.verify import Verifier
from nycc_bench.paths import SAMPLE_DIR

GROUPS = ("human_top10", "human_200", "human_1000", "human_median")
UNRELATED = ["Quantum zebras audit the lighthouse budget every other Thursday.",
             "Photosynthesis is, frankly, overrated by the ferns in accounting.",
             "Xylophone lessons resume after the volcano calms down."]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's caption_ratings and caption_generation, built once."""
    out = tmp_path_factory.mktemp("novelty_dataset")
    build_dataset(SAMPLE_DIR, out, ["caption_ratings", "caption_generation"], progress=False)
    return out


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("novelty_cache")


def generation_rows(dataset: Path) -> dict[int, dict]:
    """caption_generation rows by contest (both splits)."""
    rows = {}
    for path in sorted((dataset / "data" / "caption_generation").glob("*.parquet")):
        for row in pq.read_table(path, columns=["contest_number", *GROUPS, "n_captions"]).to_pylist():
            rows[row["contest_number"]] = row
    return rows


def ratings(dataset: Path) -> list[dict]:
    """Every caption_ratings row."""
    return [r for p in sorted((dataset / "data" / "caption_ratings").glob("*.parquet"))
            for r in pq.read_table(p, columns=["contest_number", "caption", "rank", "is_primary"]).to_pylist()]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def distinctive(captions: list[str], elsewhere: set[str]) -> str:
    """The first caption of 6+ words whose text appears nowhere else (the sample reuses templates)."""
    return next(c for c in captions if len(c.split()) >= 6 and normalise(c) not in elsewhere)


def test_verbatim_and_restyled_copies_are_exact_with_their_group(dataset: Path, cache: Path) -> None:
    """One caption of each group, copied verbatim and with case/punctuation/quotes changed: exact, same contest."""
    contest, row = next((c, r) for c, r in generation_rows(dataset).items() if r["n_captions"])
    planted = [row[g][1] for g in GROUPS]
    restyled = [f"“{c.upper().replace(',', ' ,').replace('.', '!!')}”" for c in planted]
    report = novelty_report({str(contest): planted + restyled + UNRELATED[:1]}, str(dataset), cache_dir=str(cache),
                            progress=False)
    model = report["models"][0]
    assert model["n_captions"] == 9
    for kind in ("exact_same_contest", "exact_any_contest", "near_same_contest", "near_any_contest"):
        assert model["matches"][kind]["count"] == 8, kind
        assert model["matches"][kind]["share"] == pytest.approx(8 / 9)
        assert model["matches"][kind]["groups"] == {**dict.fromkeys(GROUPS, 2), "other": 0}, kind
    examples = {e["generated"]: e for e in model["examples"]}
    for group, original, copy in zip(GROUPS, planted, restyled, strict=True):
        for text in (original, copy):
            e = examples[text]
            assert (e["group"], e["human"], e["contest_number"], e["same_contest"], e["exact"], e["similarity"]) == (
                group, original, contest, True, True, 1.0)
    rank = {normalise(r["caption"]): r["rank"] for r in ratings(dataset)
            if r["contest_number"] == contest and r["is_primary"]}
    assert examples[planted[0]]["rank"] == rank[normalise(planted[0])] < 10


def test_one_word_edits_are_near_copies_of_their_source(dataset: Path, cache: Path) -> None:
    """A word changed: not exact, but the nearest human caption of the same contest is the source, above 0.5."""
    rows = generation_rows(dataset)
    contest, row = next((c, r) for c, r in rows.items() if r["n_captions"])
    others = {normalise(c) for g in GROUPS for c in row[g]}
    report_rows = {}
    for group in GROUPS:
        source = distinctive(row[group], others - {normalise(c) for c in row[group]})
        words = source.split()
        words[len(words) // 2] = "zeppelin"
        report_rows[" ".join(words)] = (group, source)
    report = novelty_report({str(contest): list(report_rows)}, str(dataset), cache_dir=str(cache), progress=False)
    model = report["models"][0]
    assert model["matches"]["exact_any_contest"]["count"] == 0
    assert model["matches"]["near_same_contest"]["count"] == len(report_rows)
    for e in model["examples"]:
        group, source = report_rows[e["generated"]]
        assert e["human"] == source and e["group"] == group and e["same_contest"] and not e["exact"]
        truth = jaccard(shingles(normalise(e["generated"]), 4), shingles(normalise(source), 4))
        assert e["similarity"] == pytest.approx(truth, abs=1e-4)
        assert 0.5 <= truth < 1


def test_unrelated_text_matches_nothing(dataset: Path, cache: Path) -> None:
    contests = [c for c, r in generation_rows(dataset).items() if r["n_captions"]]
    report = novelty_report({str(c): UNRELATED for c in contests}, str(dataset), cache_dir=str(cache),
                            progress=False)
    model = report["models"][0]
    assert model["n_captions"] == len(UNRELATED) * len(contests)
    assert all(m["count"] == 0 and m["share"] == 0 for m in model["matches"].values())
    assert model["examples"] == []


def test_copy_from_another_contest_and_rank_groups(dataset: Path, cache: Path) -> None:
    """Captions of a contest without published groups: found across contests, grouped by their rank (SPEC §3)."""
    rows = [r for r in ratings(dataset) if r["is_primary"]]
    published = set(generation_rows(dataset))
    contest = max({r["contest_number"] for r in rows} - published,
                  key=lambda c: sum(r["contest_number"] == c for r in rows))
    by_rank = {r["rank"]: r["caption"] for r in rows if r["contest_number"] == contest}
    n = len(by_rank)
    picks = {0: "human_top10", 205: "human_200", n // 2 - 5: "human_median", n - 1: "other"}
    texts = {by_rank[rank]: (rank, group) for rank, group in picks.items()}
    another = next(c for c in published if c != contest)
    report = novelty_report({str(another): list(texts)}, str(dataset), cache_dir=str(cache), progress=False)
    model = report["models"][0]
    assert model["matches"]["exact_same_contest"]["count"] == 0
    assert model["matches"]["exact_any_contest"]["count"] == len(texts)
    for e in model["examples"]:
        assert not e["same_contest"]
        if e["contest_number"] == contest:  # a template text may also exist in a contest that ranks it better
            assert (e["rank"], e["group"]) == texts[e["generated"]]


def test_index_is_built_once_and_keyed_by_content(dataset: Path, tmp_path: Path) -> None:
    """Second call reuses the cached files; other settings or other captions get their own index."""
    copy = tmp_path / "ds"
    shutil.copytree(dataset, copy)
    first = load_index(copy, Settings(), tmp_path / "cache", progress=False)
    meta = first.folder / "meta.json"
    stamp = meta.stat().st_mtime_ns
    again = novelty_report({"536": UNRELATED}, str(copy), cache_dir=str(tmp_path / "cache"), progress=False)
    assert first.built and not again["index"]["built_now"]
    assert again["index"]["path"] == str(first.folder) and meta.stat().st_mtime_ns == stamp
    assert len(list((tmp_path / "cache").iterdir())) == 1
    other = load_index(copy, Settings(threshold=0.8), tmp_path / "cache", progress=False)
    assert other.built and other.folder != first.folder
    path = next((copy / "data" / "caption_ratings").glob("train-*.parquet"))
    table = pq.read_table(path)
    pq.write_table(table.slice(1), path)  # one caption fewer: the fingerprint changes
    rebuilt = load_index(copy, Settings(), tmp_path / "cache", progress=False)
    assert rebuilt.built and rebuilt.folder != first.folder
    assert rebuilt.meta["fingerprint"] != first.meta["fingerprint"]


def test_predictions_files_per_model(dataset: Path, cache: Path, tmp_path: Path, capsys) -> None:
    """Runner JSONL through the CLI: failed and null records have no captions; the last line is the JSON report."""
    contest, row = next((c, r) for c, r in generation_rows(dataset).items() if r["n_captions"])
    copying = write_jsonl(tmp_path / "copying.jsonl", [
        {"instance_id": str(contest), "prediction": row["human_top10"][:2] + UNRELATED[:2], "raw": "...",
         "system": "sys/copy", "extra": 1},
        {"instance_id": "701", "prediction": None, "raw": "unparseable"},
        {"instance_id": "758", "status": "failed", "error": "timeout"},
    ])
    fresh = write_jsonl(tmp_path / "fresh.jsonl", [{"instance_id": str(contest), "prediction": UNRELATED}])
    parser = argparse.ArgumentParser()
    add_novelty_parser(parser.add_subparsers(dest="command"))
    out = tmp_path / "report.json"
    args = parser.parse_args(["novelty", "--predictions", str(copying), str(fresh), "--dataset", str(dataset),
                              "--cache-dir", str(cache), "--out", str(out), "--quiet"])
    assert args.func(args) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    report = json.loads(last)
    assert report == json.loads(out.read_text())
    copy_model, fresh_model = report["models"]
    assert (copy_model["model"], copy_model["n_instances"], copy_model["n_instances_without_captions"],
            copy_model["n_captions"]) == ("sys/copy", 3, 2, 4)
    assert copy_model["matches"]["exact_same_contest"] == {
        "count": 2, "share": 0.5, "groups": {**dict.fromkeys(GROUPS, 0), "human_top10": 2, "other": 0}}
    assert fresh_model["model"] == "fresh" and fresh_model["matches"]["near_any_contest"]["count"] == 0
    assert report["settings"]["threshold"] == 0.5 and report["settings"]["shingle_size"] == 4
    assert "NFKC" in report["settings"]["normalisation"]


@pytest.mark.parametrize(("content", "needle"), [
    ('{"instance_id": "536", "prediction": ["a"]}\n{not json\n', "line 2 is not JSON"),
    ('{"instance_id": "536", "prediction": "one string"}\n', "must be a list of caption strings"),
    ('{"instance_id": "cartoon-536", "prediction": ["a"]}\n', "is not a contest number"),
    ('{"prediction": ["a"]}\n', "has no instance_id"),
    ("", "holds no records"),
])
def test_bad_predictions_fail_in_one_line(dataset: Path, tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(NyccBenchError) as err:
        novelty_report(path, str(dataset), cache_dir=str(tmp_path / "cache"), progress=False)
    assert needle in str(err.value) and str(path) in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "cache").exists()  # input is checked before any index work


def test_missing_inputs_fail_in_one_line(dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(NyccBenchError, match="does not exist"):
        novelty_report(tmp_path / "nope.jsonl", str(dataset), progress=False)
    with pytest.raises(NyccBenchError, match="is not a folder"):
        novelty_report({"536": ["x"]}, str(tmp_path / "no_dataset"), progress=False)
    with pytest.raises(NyccBenchError, match="threshold"):
        novelty_report({"536": ["x"]}, str(dataset), threshold=1.5, progress=False)


def test_lsh_candidates_are_datasketch_minhashlsh_candidates(dataset: Path, cache: Path) -> None:
    """The compact band index returns exactly what datasketch's MinHashLSH returns for the same MinHashes."""
    s = Settings()
    index = load_index(dataset, s, cache, progress=False)
    norms = index.table["norm"].to_pylist()
    minhashes = MinHash.bulk([[x.encode() for x in shingles(n, s.shingle_size)] for n in norms],
                             num_perm=s.num_perm, seed=SEED, scheme=SCHEME)
    lsh = MinHashLSH(threshold=s.threshold, num_perm=s.num_perm, weights=s.lsh_weights)
    for i, m in enumerate(minhashes):
        lsh.insert(i, m, check_duplication=False)
    probe = list(range(0, len(norms), 97))
    ours = index.bands.candidates(np.stack([minhashes[i].hashvalues for i in probe]))
    assert [set(c.tolist()) for c in ours] == [set(lsh.query(minhashes[i])) for i in probe]
    assert all(i in c for i, c in zip(probe, ours, strict=True))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("ab c’é😀", max_size=12), min_size=1, max_size=4),
       st.lists(st.text("ab c’é😀", max_size=12), min_size=1, max_size=6), st.integers(1, 6))
def test_jaccard_matrix_is_exact(queries: list[str], others: list[str], k: int) -> None:
    """The vectorised same-contest comparison equals the set definition for every pair."""
    matrix = jaccard_matrix(queries, others, k)
    expected = [[jaccard(shingles(q, k), shingles(o, k)) for o in others] for q in queries]
    np.testing.assert_allclose(matrix, expected, rtol=0, atol=1e-12)


def test_docstring_examples() -> None:
    assert doctest.testmod(text_module).failed == 0


TEXTS = st.lists(st.text("ab c’é😀\x00", max_size=25), min_size=1, max_size=40)


@settings(max_examples=40, deadline=None)
@given(TEXTS, st.integers(1, 6))
def test_vectorised_minhash_equals_datasketch(texts: list[str], k: int) -> None:
    """The NumPy MinHash (query path and build path through the stored shingle sets) gives datasketch's values."""
    sets = [shingles(t, k) for t in texts]
    expected = np.stack([m.hashvalues for m in MinHash.bulk([[x.encode() for x in s] for s in sets], num_perm=64,
                                                             seed=SEED, scheme=SCHEME)])
    np.testing.assert_array_equal(signatures(sets, 64), expected)
    stored, hashes = build_shingle_sets(texts, k)
    np.testing.assert_array_equal(minhash(hashes[stored.ids], stored.indptr, 64, threads=2).T, expected)


@settings(max_examples=40, deadline=None)
@given(TEXTS, TEXTS, st.integers(1, 6))
def test_stored_sets_and_vectorised_jaccard_are_exact(texts: list[str], queries: list[str], k: int) -> None:
    """Stored sets are `shingles()`; block and pair verification equal `jaccard()` bit for bit (NUL takes the
    Python path, more than 64 queries split into blocks)."""
    stored, _ = build_shingle_sets(texts, k)
    got = [{x[:-1] for x in stored.vocab[stored.ids[a:b]].tolist()} for a, b in zip(stored.indptr, stored.indptr[1:],
                                                                                 strict=False)]
    assert got == [shingles(t, k) for t in texts]
    queries = (queries * 20)[:70]
    query_sets = [shingles(q, k) for q in queries]
    ids, sizes = stored.lookup(query_sets), np.array([len(s) for s in query_sets])
    verifier = Verifier(stored)
    expected = np.array([[jaccard(q, shingles(t, k)) for t in texts] for q in query_sets])
    np.testing.assert_array_equal(verifier.block(ids, sizes, 0, len(texts)), expected)
    q, r = np.divmod(np.arange(len(queries) * len(texts)), len(texts))
    np.testing.assert_array_equal(verifier.pairs(ids, sizes, q, r), expected.ravel())
    shuffled = np.random.default_rng(0).permutation(len(q))  # pieces of 3 stored ids: rows read piece by piece
    np.testing.assert_array_equal(verifier.pairs(ids, sizes, q[shuffled], r[shuffled], piece=3),
                                  expected.ravel()[shuffled])


def test_matches_equal_the_previous_implementation(dataset: Path, cache: Path) -> None:
    """Every kind of match, for copies, edits and unrelated text in every contest, equals what the previous
    implementation found: datasketch MinHash per query, Python Jaccard per candidate, brute force per contest."""
    s = Settings()
    index = load_index(dataset, s, cache, progress=False)
    matcher = Matcher(index, s)
    norms = index.table["norm"].to_pylist()
    contests = index.table["contest_number"].to_numpy()
    picks = range(0, len(norms), 7)
    edited = [" ".join(w if i != 1 else "zeppelin" for i, w in enumerate(norms[r].split())) for r in picks]
    queries = {(int(contests[r]), n) for r, n in zip(picks, [*map(norms.__getitem__, picks)], strict=True)}
    queries |= {(int(contests[r]), e) for r, e in zip(picks, edited, strict=True)}
    queries |= {(int(c), normalise(u)) for c in np.unique(contests) for u in UNRELATED}
    got = matcher.run(queries)

    class Previous(Matcher):
        def lsh_matches(self, texts: list[str]) -> dict[str, list[tuple[int, float]]]:
            sets = [shingles(t, s.shingle_size) for t in texts]
            sig = np.stack([m.hashvalues for m in MinHash.bulk([[x.encode() for x in q] for q in sets],
                                                               num_perm=s.num_perm, seed=SEED, scheme=SCHEME)])
            out = {}
            for text, q, rows in zip(texts, sets, index.bands.candidates(sig), strict=True):
                scored = [(int(r), jaccard(q, shingles(norms[r], s.shingle_size))) for r in rows]
                out[text] = [(r, j) for r, j in scored if j >= s.threshold]
            return out

        def same_contest_matches(self, contest: int, texts: list[str]) -> dict[str, list[tuple[int, float]]]:
            start, end = index.contest_slice(contest)
            out = {}
            for text in texts:
                q = shingles(text, s.shingle_size)
                scored = [(r, jaccard(q, shingles(norms[r], s.shingle_size))) for r in range(start, end)]
                out[text] = [(r, j) for r, j in scored if j >= s.threshold]
            return out

    previous = Previous(index, s).run(queries)
    assert got == previous
    assert sum(v["near_same_contest"] is not None for v in got.values()) > len(picks)  # copies and edits found


def test_a_contest_number_beyond_the_index_has_no_captions(dataset: Path, cache: Path) -> None:
    """A contest number larger than any stored one (beyond int32 too) is a contest without human captions."""
    report = novelty_report({"99999999999": UNRELATED[:1]}, str(dataset), cache_dir=str(cache), progress=False)
    assert report["models"][0]["contests_without_human_captions"] == [99999999999]
    assert report["models"][0]["matches"]["near_same_contest"]["count"] == 0


ASCII_TEXT = st.text(alphabet=st.characters(max_codepoint=127), max_size=40)
MIXED_TEXT = st.text(alphabet=st.one_of(st.characters(max_codepoint=127), st.sampled_from("’‘ʼ´“”—…ﬁÉéΣß\u0301\u00a0")),
                     max_size=40)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(st.one_of(ASCII_TEXT, MIXED_TEXT), max_size=30))
def test_normalise_array_is_normalise(texts: list[str]) -> None:
    """Byte tables on ASCII rows, Python on the rest: the same strings as `normalise`, row for row."""
    import pyarrow as pa

    from nycc_bench.novelty.text import normalise_array

    assert normalise_array(pa.array(texts, pa.string())).to_pylist() == [normalise(t) for t in texts]


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(ASCII_TEXT | st.text(alphabet=" \t\n'`.,-Aa!", max_size=12), max_size=30),
       start=st.integers(0, 5))
def test_ascii_normalise_on_the_bytes_is_normalise(texts: list[str], start: int) -> None:
    """The byte-table normalisation of ASCII rows, on a slice of an array (its buffers start before the slice):
    the same strings as `normalise`, row for row, runs of spaces and apostrophes included."""
    import pyarrow as pa

    from nycc_bench.novelty.text import ascii_normalise

    sliced = pa.array(["  X' "] * start + texts, pa.string()).slice(start)
    assert ascii_normalise(sliced).to_pylist() == [normalise(t) for t in texts]


def test_normalise_array_on_every_ascii_character_and_real_captions() -> None:
    import csv

    import pyarrow as pa

    from nycc_bench.novelty.text import normalise_array

    texts = [chr(i) for i in range(128)] + [f"a{chr(i)}b {chr(i)}" for i in range(128)]
    shared = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "nextml_caption_contest_data_api"
    for path in sorted((shared / "contests" / "summaries").glob("*.csv"))[:10]:  # real captions, when present
        with path.open(newline="", encoding="utf-8") as f:
            texts += [row["caption"] for row in csv.DictReader(f) if row["caption"] is not None]
    assert normalise_array(pa.chunked_array([pa.array(texts)])).to_pylist() == [normalise(t) for t in texts]


@settings(max_examples=200, deadline=None)
@given(sets=st.lists(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=12), min_size=1, max_size=40),
       block=st.integers(1, 64))
def test_blockwise_dedupe_is_the_global_sort(sets: list[list[int]], block: int) -> None:
    """Sorting whole texts block by block gives each text's sorted distinct ids, as one global sort did."""
    from nycc_bench.novelty.shingling import _dedupe

    ids = np.array([i for s in sets for i in s], dtype=np.uint32)
    counts = np.array([len(s) for s in sets], dtype=np.int64)
    got_ids, got_counts = _dedupe(ids, counts, block=block)
    assert got_counts.tolist() == [len(set(s)) for s in sets]
    assert got_ids.tolist() == [i for s in sets for i in sorted(set(s))]
    assert got_ids.dtype == np.uint32
