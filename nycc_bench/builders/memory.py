"""The Arrow memory pool a build allocates from: jemalloc (else the system allocator) instead of mimalloc."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa


def build_pool() -> pa.MemoryPool:
    """The pool a build keeps its tables in.

    A build holds every parsed, sorted and flagged run until the parquet is written (hundreds of MB of fresh
    buffers): with pyarrow's default mimalloc pool the 2.2M-caption build took 0.8-1.6 s more CPU than with
    jemalloc on the development machine (4.38 s against 3.54 s, 5.44 s against 3.87 s: the two runs of
    `benchmarks/results/build-cpu-2026-11-27b.txt`; the system allocator took 0.1-0.2 s more than jemalloc).
    The pool changes where bytes live, never what they are. jemalloc where the wheel has it, else the system's.
    """
    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:
        return pa.system_memory_pool()


@contextmanager
def build_memory_pool() -> Iterator[pa.MemoryPool]:
    """Make `build_pool()` Arrow's default pool for the block, then restore the previous one.

    An operator's own choice (`ARROW_DEFAULT_MEMORY_POOL` in the environment) is kept. Buffers remember the pool
    they came from, so tables made inside the block stay valid after it.
    """
    previous = pa.default_memory_pool()
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        yield previous
        return
    pool = build_pool()
    pa.set_memory_pool(pool)
    try:
        yield pool
    finally:
        pa.set_memory_pool(previous)
