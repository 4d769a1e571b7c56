"""Build into a hidden sibling folder and swap it in, so a killed build never leaves a complete-looking output."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..disk import disk_full, folder_bytes, is_disk_full
from .errors import SourceError

CARD = "README.md"
OWNED = (CARD, "data")  # what a build writes into the output folder; anything else there is left alone


def _alive(pid: int) -> bool:
    """Whether a process with this id still runs (a stale staging folder's builder is gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale(target: Path) -> None:
    """Delete staging folders that builds killed earlier left beside `target`."""
    for folder in target.parent.glob(f".{target.name}.partial-*"):
        pid = folder.name.rsplit(".partial-", 1)[1].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def staged_output(target: Path) -> Iterator[Path]:
    """Yield an empty staging folder; when the block succeeds, its `data/` and card replace those of `target`.

    The swap is a few renames on one filesystem, ordered so that the card (what `load_dataset` reads first)
    leaves before the old data and arrives after the new data: a build killed at any point leaves either the
    old complete output, or data without a card, never a card beside partial or mixed parquet. Other entries
    of `target` (a `.git` folder of a cloned Hub repo, `.gitattributes`) are kept. On an error the staging
    folder is removed and `target` is untouched.
    """
    target = Path(target).absolute()
    if target.exists() and not target.is_dir():
        raise SourceError(target, "the output path is a file", "pass a folder to --out")
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(target)
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-{os.getpid()}-", dir=target.parent))
    except OSError as err:
        if is_disk_full(err):
            raise disk_full(target.parent, "the build") from None
        raise
    full: int | None = None  # bytes staged when the disk filled (measured before the staging folder goes)
    try:
        try:
            yield stage
        except Exception as err:
            if is_disk_full(err):
                full = folder_bytes(stage)
            raise
        target.mkdir(exist_ok=True)
        retired = stage / ".retired"
        retired.mkdir()
        for name in OWNED:  # the card first: from here on the old output no longer claims to be complete
            if (target / name).exists() or (target / name).is_symlink():
                (target / name).rename(retired / name)
        for name in reversed(OWNED):  # the data first, the card last: the card marks the output complete
            if (stage / name).exists():
                (stage / name).rename(target / name)
    except Exception:
        shutil.rmtree(stage, ignore_errors=True)
        if full is not None:  # the space the staged files took is free again when this is said
            raise disk_full(target.parent, "the build", full,
                            f"nothing was written to {target} (its earlier output, if any, is intact)") from None
        raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)
