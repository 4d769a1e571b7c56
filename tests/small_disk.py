"""A small tmpfs for the full-disk tests (root only: a test that cannot mount one is skipped)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_tmpfs(tmp_path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` (mount's `size=` value) at `tmp_path/disk`, unmounted afterwards."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)
