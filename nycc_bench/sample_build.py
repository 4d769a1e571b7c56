"""The embedded sample built once into the cache (`$NYCC_BENCH_CACHE/datasets/sample-<key>`, keyed by the
sample's files and the building code), so the commands that need it as a scratch dataset (`tasks check`) read it
instead of building it again on every call."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from .paths import PACKAGE, SAMPLE_DIR, cache_dir


def _digest(roots: list[Path]) -> str:
    """sha256 (16 hex) over every file's path and bytes below `roots` (the compiled files left out)."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def sample_dataset_dir() -> Path:
    """The built sample (read only for its callers), built into the cache first if it is missing; concurrent
    callers wait for one build, and a killed build leaves no half folder."""
    from filelock import FileLock

    from .builders import build_dataset

    folder = cache_dir("datasets") / f"sample-{_digest([SAMPLE_DIR, PACKAGE / 'builders'])}"
    done = folder.parent / f"{folder.name}.built"  # beside it: nothing foreign inside the dataset
    if done.is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if done.is_file():
            return folder
        with tempfile.TemporaryDirectory(prefix=f".{folder.name}-", dir=folder.parent) as tmp:
            build_dataset(SAMPLE_DIR, Path(tmp) / "sample", progress=False)
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(Path(tmp) / "sample", folder)
        done.write_text("built\n", encoding="utf-8")
    return folder
