"""The novelty index holds bounded memory when queried: the pages of its memory-mapped files that a query reads
are handed back (they counted in the process's resident memory, 1.9 GB at 2.2M captions), the caption table is
read over its own mapping, zero copy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.feather as feather
import pytest

from nycc_bench.builders import build_dataset
from nycc_bench.novelty import Settings, load_index
from nycc_bench.novelty.mapped import mapping_of, read_table, release, resident_kib
from nycc_bench.novelty.report import Matcher
from nycc_bench.paths import SAMPLE_DIR

MAPPED = ("band_keys.npy", "band_ids.npy", "shingle_ids.npy")
needs_smaps = pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs Linux /proc/self/smaps")


@pytest.fixture(scope="module")
def index_and_matcher(tmp_path_factory: pytest.TempPathFactory):
    """The sample's index (built once) and a matcher over it."""
    dataset = tmp_path_factory.mktemp("memory_dataset")
    build_dataset(SAMPLE_DIR, dataset, ["caption_ratings"], progress=False)
    settings = Settings()
    index = load_index(dataset, settings, tmp_path_factory.mktemp("memory_cache"), progress=False)
    return index, Matcher(index, settings)


@needs_smaps
def test_a_query_run_leaves_no_index_pages_mapped(index_and_matcher) -> None:
    """After exact, LSH and same-contest matching of every caption of the index, no page of the band or shingle
    files is mapped into the process: each step handed back what it read (before, they all stayed)."""
    index, matcher = index_and_matcher
    norms = index.table["norm"].to_pylist()
    contests = index.table["contest_number"].to_numpy()
    queries = {(int(contests[i]), norms[i]) for i in range(0, len(norms), 3)}
    results = matcher.run(queries)
    assert sum(best["exact_same_contest"] is not None for best in results.values()) == len(queries)
    assert {name: resident_kib(index.folder / name) for name in MAPPED} == dict.fromkeys(MAPPED, 0)


@needs_smaps
def test_release_unmaps_what_was_read_and_reads_the_same_again(index_and_matcher) -> None:
    """A mapped array's pages count while read and not after `release`; its values read again are the same."""
    index, _ = index_and_matcher
    path = index.folder / "band_keys.npy"
    keys = index.bands.keys
    total = int(keys.sum(dtype=np.uint64))  # reads every page
    assert resident_kib(path) > 0
    release(keys)
    assert resident_kib(path) == 0
    assert int(keys.sum(dtype=np.uint64)) == total


def test_the_caption_table_is_read_zero_copy_over_its_own_mapping(index_and_matcher) -> None:
    """`read_table` gives feather's table, its buffers inside the returned mapping (no copy of 500 MB at 2.2M)."""
    index, _ = index_and_matcher
    table, mapping = read_table(index.folder / "captions.arrow")
    assert table.equals(feather.read_table(index.folder / "captions.arrow"))
    address = np.frombuffer(mapping, dtype=np.uint8).ctypes.data
    buffer = table["norm"].chunk(0).buffers()[2]
    assert address <= buffer.address < address + len(mapping)
    assert mapping_of(index.bands.keys[1:]) is mapping_of(index.bands.keys) is not None  # through views
