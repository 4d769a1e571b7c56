"""A full disk is one line naming the folder and the bytes, with nothing half-written: a build leaves no staging
folder and no output; a run (and its resume) keeps only whole prediction records and resumes once there is room.
On a real small tmpfs (root only; skipped elsewhere)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from small_disk import small_tmpfs

from nycc_bench import preflight
from nycc_bench.cli import main
from nycc_bench.disk import free_bytes, is_disk_full


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 3 MB tmpfs."""
    with small_tmpfs(tmp_path, "3m") as folder:
        yield folder


def one_line(capsys: pytest.CaptureFixture, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "Traceback" not in err and err.startswith(f"nycc-bench {argv[0]}: error: disk full: ")
    return err


def fill(disk: Path, leave: int) -> Path:
    """Take all but `leave` bytes of the disk."""
    filler = disk / "filler"
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, (free_bytes(disk) or 0) - leave))
    return filler


def test_a_full_disk_during_a_build_is_one_line_and_leaves_nothing(small_disk: Path,
                                                                    capsys: pytest.CaptureFixture) -> None:
    filler = fill(small_disk, 200_000)
    err = one_line(capsys, ["build", "--source", "sample", "--out", str(small_disk / "ds"), "--quiet"])
    assert f"cannot write {small_disk}: it needs more than the " in err and "bytes free there" in err
    assert re.search(r"\(\d[\d,]* bytes of files written when the disk filled\)", err)
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]  # no output, no staging folder
    filler.unlink()
    assert main(["build", "--source", "sample", "--out", str(small_disk / "ds"), "--quiet"]) == 0


def test_a_full_disk_during_a_run_keeps_whole_records_and_resumes(small_disk: Path, sample_dataset: str,
                                                                   capsys: pytest.CaptureFixture,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # the disk fills after the preflight passed (another process took the space): the preflight's own refusal of a
    # disk that is already too small is tested in test_preflight.py
    monkeypatch.setattr(preflight, "disk_check", lambda out, need: preflight.Check("disk", "not checked here", None))
    run = small_disk / "run"
    argv = ["evaluate", "--system", "random", "--tasks", "matching,ranking", "--dataset", sample_dataset, "--out",
            str(run), "--quiet"]
    filler = fill(small_disk, 24_000)
    err = one_line(capsys, argv)
    assert f"cannot write {run}: it needs more than the " in err and "the same command resumes" in err
    for path in (run / "predictions").glob("*.jsonl"):
        text = path.read_text()
        assert not text or text.endswith("\n")
        assert all(json.loads(line)["instance_id"] for line in text.splitlines())  # whole records only
    assert not (run / "results.json").exists()
    filler.unlink()
    assert main(argv) == 0  # resumed
    assert json.loads((run / "results.json").read_text())["tasks"].keys() == {"matching", "ranking"}


def test_full_disk_errors_are_recognised() -> None:
    assert is_disk_full(OSError(28, "No space left on device"))
    assert is_disk_full(RuntimeError("x").with_traceback(None)) is False
    wrapped = RuntimeError("write failed")
    wrapped.__cause__ = OSError("[Errno 28] Error writing bytes to file")
    assert is_disk_full(wrapped)
