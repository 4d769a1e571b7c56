"""Predictions are streamed: the records (torn and damaged lines, retries, repair) are those the whole-file reading
gave, memory does not grow with the number of lines, and `score` of a long resumed file equals the score of its
last records."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nycc_bench.errors import NyccBenchError
from nycc_bench.predictions import _record, meta_path, read_predictions
from nycc_bench.runner import run_task
from nycc_bench.score import score


def whole_file(path: Path, repair: bool) -> dict:
    """The previous reading: the whole file split on newlines (the reference)."""
    records: dict = {}
    data = path.read_bytes()
    lines = data.split(b"\n")
    good_bytes = 0
    for number, line in enumerate(lines, 1):
        last = number == len(lines) or (number == len(lines) - 1 and not lines[-1])
        if not line.strip():
            good_bytes += len(line) + (0 if number == len(lines) else 1)
            continue
        record = _record(line, path, number) if number != len(lines) else None
        if record is None:
            if not last:
                raise NyccBenchError("damaged")
            break
        records[record["instance_id"]] = record
        good_bytes += len(line) + 1
    if repair and good_bytes < len(data):
        with open(path, "r+b") as f:
            f.truncate(good_bytes)
    return records


LINE = st.one_of(
    st.builds(lambda i, s, p: json.dumps({"instance_id": str(i), "status": s, "prediction": p}),
              st.integers(0, 5), st.sampled_from(["ok", "failed", "unparsed"]), st.sampled_from(["A", None, "B"])),
    st.builds(lambda i: json.dumps({"instance_id": str(i), "prediction": "C"}), st.integers(0, 5)),
    st.sampled_from(["", "   ", '{"instance_id": "3", "pred', "not json"]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(LINE, max_size=12), st.booleans(), st.booleans())
def test_streamed_records_equal_the_whole_file_reading(tmp_path_factory: pytest.TempPathFactory, lines: list[str],
                                                       newline_at_end: bool, repair: bool) -> None:
    folder = tmp_path_factory.mktemp("stream")
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    ours, theirs = folder / "ours.jsonl", folder / "theirs.jsonl"
    ours.write_text(text)
    theirs.write_text(text)
    try:
        expected = whole_file(theirs, repair)
    except NyccBenchError:
        with pytest.raises(NyccBenchError, match="is not JSON; the file is damaged"):
            read_predictions(ours, repair=repair)
        return
    assert read_predictions(ours, repair=repair) == expected
    assert ours.read_bytes() == theirs.read_bytes()  # the same bytes cut off (or none)


def test_memory_does_not_grow_with_the_lines(tmp_path: Path) -> None:
    """Ten times the lines (retries of the same 50 instances): the peak stays a small fraction of the file."""
    peaks = []
    for copies in (200, 2000):
        path = tmp_path / f"{copies}.jsonl"
        with open(path, "w") as f:
            for i in range(copies * 50):
                f.write(json.dumps({"instance_id": str(i % 50), "status": "ok", "prediction": "A",
                                    "raw": "x" * 400 + str(i)}) + "\n")
        tracemalloc.start()
        records = read_predictions(path)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert len(records) == 50 and records["7"]["raw"].endswith(str(copies * 50 - 50 + 7))
    assert peaks[1] < 2 * peaks[0] + 100_000  # the file grew tenfold (4.5 MB -> 45 MB)
    assert peaks[1] < (tmp_path / "2000.jsonl").stat().st_size / 20


def test_score_of_a_long_resumed_file_equals_its_last_records(sample_dataset: str, tmp_path: Path) -> None:
    """Earlier failed and answered attempts, then the final records: the score is that of the final records."""
    final = tmp_path / "final.jsonl"
    run_task("matching", "random", final, dataset=sample_dataset, progress=False)
    records = [json.loads(line) for line in final.read_text().splitlines()]
    long = tmp_path / "long.jsonl"
    with open(long, "w") as f:
        for i in range(30):
            for r in records:
                f.write(json.dumps({**r, "status": "failed" if i % 2 else "ok", "prediction": "A",
                                    "raw": f"attempt {i}"}) + "\n")
        f.writelines(json.dumps(r) + "\n" for r in records)
    meta_path(long).write_text(meta_path(final).read_text())
    ours, reference = score("matching", [long], dataset=sample_dataset), score("matching", [final],
                                                                                dataset=sample_dataset)
    assert ours["scores"] == reference["scores"] and ours["n"] == reference["n"] == len(records)
    assert (ours["n_failed"], ours["n_unparsed"]) == (reference["n_failed"], reference["n_unparsed"])
    hessel = tmp_path / "hessel.json"  # the leaderboard format is still read whole
    hessel.write_text(json.dumps({r["instance_id"]: r["prediction"] for r in records}))
    assert score("matching", [hessel], dataset=sample_dataset)["scores"] == reference["scores"]
