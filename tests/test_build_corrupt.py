"""Corrupted upstream files, builder by builder: truncated, wrong encoding, empty, duplicate rows, out-of-range values.

Each either stops the build with one error naming the file, the row and the fix (and leaves no output that looks
complete), or, for faults the real upstream data has (repeated and blank captions), is kept and flagged.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from nycc_bench.builders import SourceError, build_dataset
from nycc_bench.paths import SAMPLE_DIR

API_HEADER = "rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption"
API = f"""{API_HEADER}
1,5,3,2,10,2.3,0.2,510,"Quoted, with a comma"
2,2,3,5,10,1.7,0.2,510,Plain caption
"""
NEXTML = "rank,caption,mean,precision,votes,not_funny,somewhat_funny,funny\n0,First one,2.0,0.1,3,1,1,1\n"
ANNOTATIONS = ("idx,cartoonstock_id,contest_number,description,caption,element\n"
               "1,,2.0,A desc,A caption,An element\n2,,2.0,A desc,Another caption,Another element\n")
HARD_HEADER = "idx,cartoonstock_id,contest_number,description,caption,element,pass_rate,num_attempts\n"
SUMMARY = "summaries/510_summary_LilUCB.csv"


def _write(root: Path, rel: str, data: str | bytes) -> Path:
    """Write one upstream-named file below the source root (bytes as given, text as UTF-8)."""
    path = root / "src" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def _fails(tmp_path: Path, *fragments: str) -> str:
    """Build and check the one-line error names every fragment and a fix, and that no output appeared."""
    with pytest.raises(SourceError) as info:
        build_dataset(tmp_path / "src", tmp_path / "out", progress=False)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert "Fix:" in message and "\n" not in message
    assert not (tmp_path / "out").exists()
    assert not list(tmp_path.glob(".out.partial-*"))
    return message


@pytest.mark.parametrize(("data", "fragments"), [
    (API[:-25] + "\n", ["row 2", "6 fields where the header has 9", "truncated"]),
    (API[:-3], ["row 2", "no line break", "truncated"]),
    (API.replace("Plain caption\n", '"Plain caption\n'), ["row 2", "never closed", "truncated"]),
    (API.replace("Plain caption", "Caf\u00e9 caption").encode("latin-1"), ["row 2", "0xe9", "not UTF-8", "UTF-8"]),
    (API.encode("utf-16"), ["row 0", "not UTF-8"]),
    (b"", ["row 0", "the file is empty"]),
    (API.replace("2,2,3,5,10,", "2,-2,3,5,6,"), ["row 2", "funny is negative"]),
    (API.replace("1.7,0.2,", "1.7,nan,"), ["row 2", "precision nan"]),
    (API.replace("1.7,0.2,", "1.7,-0.2,"), ["row 2", "precision -0.2"]),
    (API.replace("1.7,", "7,"), ["row 2", "mean rating 7.0 is outside 1..3"]),
])
def test_corrupt_summary(tmp_path: Path, data: str | bytes, fragments: list[str]) -> None:
    """nextml summaries: cut short, another encoding, empty, impossible values."""
    _write(tmp_path, SUMMARY, data)
    _fails(tmp_path, "510_summary_LilUCB.csv", *fragments)


def test_corrupt_nextml_variant_truncated(tmp_path: Path) -> None:
    """The newer header variant (caption first) cut inside a row."""
    _write(tmp_path, "summaries/800.csv", NEXTML + "1,Second one,1.5\n")
    _fails(tmp_path, "800.csv", "row 2", "3 fields where the header has 8")


def test_duplicate_and_blank_captions_are_flagged(tmp_path: Path) -> None:
    """Repeated texts, blank captions and line breaks (all in the real data) are kept and flagged, not dropped."""
    rows = [API_HEADER, '1,5,3,2,10,2.3,0.2,510,Same text', '2,5,3,2,10,2.3,0.2,510,Same text',
            '3,2,3,5,10,1.7,0.2,510," "', '4,2,3,5,10,1.6,0.2,510,"Two\nlines"']
    _write(tmp_path, SUMMARY, "\n".join(rows) + "\n")
    build_dataset(tmp_path / "src", tmp_path / "out", ["caption_ratings"], progress=False)
    table = pq.read_table(next((tmp_path / "out" / "data" / "caption_ratings").glob("train-*.parquet")))
    got = table.select(["rank", "is_duplicate_text", "is_empty_text", "has_line_break"]).to_pylist()
    assert [tuple(r.values()) for r in got] == [(0, False, False, False), (1, True, False, False),
                                                (2, False, True, False), (3, False, False, True)]


@pytest.mark.parametrize(("data", "fragments"), [
    (ANNOTATIONS[:-30], ["row 2", "5 fields where the header has 6", "truncated"]),
    (ANNOTATIONS[:-12] + '"Another', ["row 2", "never closed"]),
    (ANNOTATIONS.replace("A desc", "Caf\u00e9").encode("cp1252"), ["row 1", "not UTF-8"]),
    (b"", ["row 0", "the file is empty"]),
    (ANNOTATIONS + "1,,2.0,A desc,A caption,An element\n", ["row 3", "repeats row 1"]),
])
def test_corrupt_humorbench_annotations(tmp_path: Path, data: str | bytes, fragments: list[str]) -> None:
    """HumorBench annotations: no traceback for a truncated file, the row named for each fault."""
    _write(tmp_path, "comprehensive_annotations.csv", data)
    _fails(tmp_path, "comprehensive_annotations.csv", *fragments)


@pytest.mark.parametrize(("rows", "fragments"), [
    ("1,,2.0,A desc,A caption,An element,7,26\n", ["row 1", "pass_rate '7' is not a fraction in 0..1"]),
    ("1,,2.0,A desc,A caption,An element,-0.1,26\n", ["row 1", "pass_rate '-0.1'"]),
    ("1,,2.0,A desc,A caption,An element,nan,26\n", ["row 1", "pass_rate 'nan'"]),
    ("1,,2.0,A desc,A caption,An element,0.5,0\n", ["row 1", "num_attempts 0 is below 1"]),
    ("1,,2.0,A desc,A caption,An element,0.5,26\n" * 2, ["row 2", "repeats row 1"]),
    ("1,,2.0,A desc,A caption,An element,0.5\n", ["row 1", "7 fields where the header has 8"]),
    ("3,,2.0,A desc,A caption,An element,0.5,26\n", ["row 1", "idx 3 with this element is not in the annotations"]),
    ("1,,2.0,A desc,A caption,An element,0.5,30\n4,,2.0,A desc,A caption,A second element,0.4,30\n",
     ["row 2", "differ from row 1 of the same caption"]),
    ("4,,2.0,A desc,A caption,A second element,0.5,30\n", ["lack elements 1", "the list is caption-level"]),
])
def test_corrupt_hard_subset(tmp_path: Path, rows: str, fragments: list[str]) -> None:
    """The paper's hard list: out-of-range rates and attempts, duplicate or unknown rows, a truncated row, and
    a caption whose elements disagree on its rate or are missing."""
    _write(tmp_path, "comprehensive_annotations.csv", ANNOTATIONS + "4,,2.0,A desc,A caption,A second element\n")
    _write(tmp_path, "analysis/paper_hard_subset/hard_subset_with_categories.csv", HARD_HEADER + rows)
    _fails(tmp_path, "hard_subset_with_categories.csv", *fragments)


@pytest.mark.parametrize(("data", "fragments"), [
    (b"contest,description\n510,A snowman\n530,A bear" + "\u00e9".encode("latin-1") + b"\n",
     ["row 2", "not UTF-8"]),
    (b"contest,description\n510\n", ["row 1", "1 fields where the header has 2"]),
])
def test_corrupt_descriptions(tmp_path: Path, data: bytes, fragments: list[str]) -> None:
    """descriptions.txt: another encoding, a truncated line."""
    _write(tmp_path, SUMMARY, API)
    _write(tmp_path, "metadata/descriptions.txt", data)
    _fails(tmp_path, "descriptions.txt", *fragments)


def test_corrupt_zhang_groups(tmp_path: Path) -> None:
    """Zhang's human_*.csv: a truncated file (unclosed quote) names the row."""
    body = "0,1,2,3,4,5,6,7,8,9\n" + "a,b,c,d,e,f,g,h,i,j\n" * 90 + 'a,b,c,d,e,f,g,h,i,"j'
    for name in ("human_top.csv", "human_200.csv", "human_1000.csv", "human_median.csv"):
        _write(tmp_path, f"generations/{name}", body)
    _fails(tmp_path, "human_", "row 91", "never closed")


@pytest.mark.parametrize("cut", [0, 2])
def test_corrupt_hessel_shard(tmp_path: Path, cut: int) -> None:
    """A Hessel parquet shard that is empty or cut in half."""
    shard = SAMPLE_DIR / "newyorker_caption_contest" / "matching" / "newyorker_caption_contest-test.parquet"
    data = shard.read_bytes()
    _write(tmp_path, "matching/newyorker_caption_contest-test.parquet", data[: len(data) // cut] if cut else b"")
    _fails(tmp_path, "newyorker_caption_contest-test.parquet", "not a readable parquet file", "download the shard")


def test_a_shard_without_a_column_read_is_one_line_naming_it(tmp_path: Path) -> None:
    """`read_parquet` of columns a shard lacks (a Zhang build reads Hessel's annotations by name): the column named,
    read as one file (no pyarrow.dataset, which imports pandas)."""
    from nycc_bench.builders.csvfile import read_parquet

    shard = SAMPLE_DIR / "newyorker_caption_contest" / "matching" / "newyorker_caption_contest-test.parquet"
    assert read_parquet(shard, ["contest_number", "image_location"]).column_names == ["contest_number",
                                                                                       "image_location"]
    assert read_parquet(shard).equals(pq.read_table(shard))
    with pytest.raises(SourceError, match=r"missing column image_loc, gpt4o\. Fix: the shard must hold contest_num"):
        read_parquet(shard, ["contest_number", "image_loc", "gpt4o"])


def _good_output(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """A finished build of a tiny tree, and the bytes of everything it wrote."""
    _write(tmp_path, SUMMARY, API)
    out = tmp_path / "out"
    build_dataset(tmp_path / "src", out, progress=False)
    (out / ".gitattributes").write_text("*.parquet filter=lfs\n")  # something the build does not own
    return out, {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_failed_rebuild_leaves_previous_output_untouched(tmp_path: Path) -> None:
    """A rebuild that fails after some configs were read keeps the old output byte for byte, card included."""
    out, before = _good_output(tmp_path)
    _write(tmp_path, "comprehensive_annotations.csv", ANNOTATIONS[:-30])
    with pytest.raises(SourceError):
        build_dataset(tmp_path / "src", out, progress=False)
    assert {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == before
    assert not list(tmp_path.glob(".out.partial-*"))


def test_rebuild_replaces_data_and_keeps_other_files(tmp_path: Path) -> None:
    """A successful rebuild swaps data and card, keeps the configs it did not build and files it does not own."""
    out, _ = _good_output(tmp_path)
    others = sorted(p.name for p in (out / "data").iterdir())
    _write(tmp_path, "comprehensive_annotations.csv", ANNOTATIONS)
    build_dataset(tmp_path / "src", out, ["humorbench"], progress=False)
    assert sorted(p.name for p in (out / "data").iterdir()) == sorted({*others, "humorbench"})
    assert "config_name: humorbench" in (out / "README.md").read_text()
    assert (out / ".gitattributes").exists()


KILLED_BUILD = """
import sys, time
from nycc_bench.builders import build_dataset, writer
original = writer.pq.write_table
def slow(*args, **kwargs):
    original(*args, **kwargs)
    print("wrote a shard", flush=True)
    time.sleep(60)
writer.pq.write_table = slow
build_dataset(sys.argv[1], sys.argv[2], progress=False, replace=True)
"""


def test_build_killed_midway_never_looks_complete(tmp_path: Path) -> None:
    """kill -9 after the first parquet shard: the old output stays as it was; the partial one is hidden."""
    out, before = _good_output(tmp_path)
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(KILLED_BUILD), str(SAMPLE_DIR), str(out)],
                            stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(Path.cwd())})
    assert proc.stdout is not None
    deadline = time.monotonic() + 120
    while b"wrote a shard" not in proc.stdout.readline():
        assert time.monotonic() < deadline and proc.poll() is None
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == before
    partial = list(tmp_path.glob(".out.partial-*"))
    assert len(partial) == 1 and not (partial[0] / "README.md").exists()
    build_dataset(tmp_path / "src", out, progress=False)  # the next build clears the dead build's folder
    assert not list(tmp_path.glob(".out.partial-*"))
