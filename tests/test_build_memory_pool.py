"""A build allocates its tables from jemalloc (else the system allocator), not mimalloc, and puts the pool back."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from nycc_bench.builders import build_dataset, memory
from nycc_bench.builders.memory import build_memory_pool, build_pool

SUMMARY = """rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption
1,5,3,2,10,2.3,0.2,510,"Quoted, with a comma"
2,2,3,5,10,1.7,0.2,510,Plain caption
"""


def test_the_pool_is_set_for_the_block_and_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside the block Arrow allocates from the build pool; after it (even after an error) the previous pool."""
    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    before = pa.default_memory_pool().backend_name
    assert build_pool().backend_name in ("jemalloc", "system")
    with pytest.raises(RuntimeError), build_memory_pool() as pool:
        assert pa.default_memory_pool().backend_name == pool.backend_name == build_pool().backend_name
        assert pa.array(["made inside"]).to_pylist() == ["made inside"]
        raise RuntimeError("a failed build")
    assert pa.default_memory_pool().backend_name == before


def test_an_operators_pool_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """ARROW_DEFAULT_MEMORY_POOL in the environment is the operator's choice: the build leaves it alone."""
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "system")
    before = pa.default_memory_pool()
    with build_memory_pool() as pool:
        assert pool.backend_name == pa.default_memory_pool().backend_name == before.backend_name


def test_without_jemalloc_the_system_allocator_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pyarrow wheel built without jemalloc (Windows) falls back to the system allocator."""
    def missing() -> pa.MemoryPool:
        raise NotImplementedError("jemalloc support is not built")

    monkeypatch.setattr(memory.pa, "jemalloc_memory_pool", missing)
    assert build_pool().backend_name == "system"


def test_the_build_reads_into_the_build_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The summaries are parsed while the build pool is Arrow's default (and the default is back afterwards)."""
    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    folder = tmp_path / "src" / "caption-contest-data-api" / "contests" / "summaries"
    folder.mkdir(parents=True)
    (folder / "510_summary_LilUCB.csv").write_text(SUMMARY, encoding="utf-8")
    from nycc_bench.builders import nextml

    seen = []
    real = nextml._read_csv

    def spy(*args: object) -> pa.Table:
        seen.append(pa.default_memory_pool().backend_name)
        return real(*args)

    monkeypatch.setattr(nextml, "_read_csv", spy)
    before = pa.default_memory_pool().backend_name
    build_dataset(tmp_path / "src", tmp_path / "out", ["caption_ratings"], progress=False)
    assert seen == [build_pool().backend_name]
    assert pa.default_memory_pool().backend_name == before
