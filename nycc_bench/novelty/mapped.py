"""The index files memory-mapped read-only, and their pages handed back after a wide scan.

A mapped page a query reads stays in the process's resident memory (and in its peak, `ru_maxrss`) until it is
unmapped, and a fault maps the pages around it too (a whole large folio on Linux 6.x ext4: 1,024 scattered rows
of the shingle ids mapped 470 MB): searching 32 sorted bands and verifying 100,000 candidates touched nearly
every page of the 1.5 GB of index files at 2.2M captions, so 200 queries peaked at 1.9 GB. `release` drops this
process's mapping of a file's pages (`madvise(MADV_DONTNEED)` on a shared read-only file mapping: the data stays
in the kernel's page cache and a later read maps it again), so each step holds one band, one piece of the store
or one slice of the captions at a time.
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa


def mapping_of(obj: Any) -> mmap.mmap | None:
    """The `mmap` behind an array (through its views, e.g. `np.load(mmap_mode="r")`) or the mmap itself."""
    while isinstance(obj, np.ndarray):
        obj = obj.base
    return obj if isinstance(obj, mmap.mmap) else None


def release(obj: Any) -> None:
    """Unmap the pages of the file behind `obj` (an mmap or an array over one) from this process; nothing for an
    array in memory, or where the platform has no MADV_DONTNEED."""
    mapping = mapping_of(obj)
    if mapping is not None and not mapping.closed and hasattr(mmap, "MADV_DONTNEED"):
        mapping.madvise(mmap.MADV_DONTNEED)


def read_table(path: Path) -> tuple[pa.Table, mmap.mmap]:
    """An uncompressed Arrow IPC (Feather v2) file as a table over its own read-only mapping (zero copy), and the
    mapping, for `release`."""
    with open(path, "rb") as f:
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    return pa.ipc.open_file(pa.py_buffer(mapping)).read_all(), mapping


def resident_kib(path: Path) -> int:
    """KiB of `path`'s pages mapped into this process now (Linux /proc/self/smaps; 0 elsewhere), for tests."""
    try:
        lines = Path("/proc/self/smaps").read_text().splitlines()
    except OSError:
        return 0
    total, inside, name = 0, False, str(path)
    for line in lines:
        head = line.split(maxsplit=5)
        if head and "-" in head[0] and not head[0].endswith(":"):
            inside = len(head) == 6 and head[5] == name
        elif inside and head[0] == "Rss:":
            total += int(head[1])
    return total

