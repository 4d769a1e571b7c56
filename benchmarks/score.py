"""`nycc-bench score` on predictions files of 10^5, 10^6 and 2*10^6 lines: CPU seconds and peak memory of whole
processes, as a user waits for them (imports included): the command itself, the previous way of reading (the whole
file read into memory, every record kept whole) and the floor (a fresh `python` streaming the file and parsing
each line, nothing else), in one run. `--quick` runs 2,000 lines (CI's check that the script works).

The lines are what a long resumed run leaves: every instance of `matching` on the sample answered many times
(earlier records replaced by later ones), each record with its raw reply and prompt reference like the runner's.
Memory should stay flat as the lines grow and CPU grow linearly, near the floor.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from process import measure

TASK = "matching"


def make_predictions(dataset: str, out: Path, lines: int) -> Path:
    """A runner predictions file of `lines` lines (and its sidecar), from a real `random` run repeated."""
    from nycc_bench.predictions import meta_path, read_predictions
    from nycc_bench.runner import run_task

    seed = out / "seed.jsonl"
    if not seed.exists():
        run_task(TASK, "random", seed, dataset=dataset, progress=False)
    records = list(read_predictions(seed).values())
    path = out / f"{lines}.jsonl"
    filler = "Let me think about which caption fits the scene best. " * 6
    with open(path, "w", encoding="utf-8") as f:
        for i in range(lines):
            record = dict(records[i % len(records)])
            if i < lines - len(records):  # an earlier attempt, replaced by a later line
                failed = bool(i % 3)
                record.update(status="failed" if failed else "ok", raw=f"{filler}{i}",
                              error="timeout" if failed else None)
            f.write(json.dumps(record) + "\n")
    meta_path(path).write_text(meta_path(seed).read_text())
    return path


def previous_load(path: Path) -> dict:
    """The previous reading: the whole text for a format check, the whole bytes split, every record kept whole."""
    from nycc_bench.predictions import _record
    from nycc_bench.score import check_one_run

    path.read_text(encoding="utf-8", errors="replace").lstrip()
    records: dict = {}
    data = path.read_bytes()
    lines = data.split(b"\n")
    for number, line in enumerate(lines, 1):
        if line.strip() and (record := _record(line, path, number)) is not None:
            records[record["instance_id"]] = record
    return check_one_run(records, path)


FLOOR = "import json, sys\nwith open(sys.argv[1], 'rb') as f:\n    for line in f:\n        json.loads(line)\n"
"""The streaming read a score cannot beat: a fresh interpreter reading the file line by line, parsing each."""


def previous(path: Path, dataset: str) -> None:
    """The previous way, in this (child) process: the whole file read and kept, then scored; prints the score."""
    import nycc_bench.score as score_module

    score_module.load_predictions = previous_load
    print(json.dumps(score_module.score(TASK, [path], dataset=dataset)["scores"]))


def modes(path: Path, dataset: str) -> dict[str, dict]:
    """Each way as a whole process: its CPU seconds, wall seconds, peak memory (and the score it printed)."""
    found = {"floor": measure(["-c", FLOOR, str(path)]),
             "new": measure(["-m", "nycc_bench.cli", "score", "--task", TASK, "--predictions", str(path),
                             "--dataset", dataset, "--json"]),
             "previous": measure([__file__, "--previous", str(path), dataset])}
    for mode in ("new", "previous"):
        printed = json.loads(found[mode].pop("stdout").strip().splitlines()[-1])
        found[mode]["accuracy"] = printed.get("scores", printed)["accuracy"]["value"]
    found["floor"].pop("stdout")
    return found


def main() -> None:
    """Make the files, run every mode on each in its own process, print a table and one JSON line."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, nargs="+", default=[100_000, 1_000_000, 2_000_000])
    ap.add_argument("--quick", action="store_true", help="2,000 lines only: the script works (CI)")
    ap.add_argument("--previous", nargs=2, metavar=("FILE", "DATASET"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.previous:
        previous(Path(args.previous[0]), args.previous[1])
        return
    if args.quick:
        args.lines = [2_000]
    from nycc_bench.builders import build_dataset
    from nycc_bench.paths import SAMPLE_DIR

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dataset = root / "dataset"
        build_dataset(SAMPLE_DIR, dataset, progress=False)
        rows = []
        for lines in args.lines:
            path = make_predictions(str(dataset), root, lines)
            row = {"lines": lines, "mb": round(path.stat().st_size / 1e6, 1), **modes(path, str(dataset))}
            row["same_score"] = row["new"]["accuracy"] == row["previous"]["accuracy"]
            row["cpu_vs_floor"] = round(row["new"]["cpu_s"] / row["floor"]["cpu_s"], 2)
            rows.append(row)
            print(f"{lines:>10,} lines ({row['mb']:,} MB), whole processes: floor (python streaming the file, "
                  f"parsing each line) {row['floor']['cpu_s']} s CPU, peak {row['floor']['peak_mb']} MB; "
                  f"`nycc-bench score` {row['new']['cpu_s']} s CPU ({row['cpu_vs_floor']}x floor), "
                  f"{row['new']['wall_s']} s wall, peak {row['new']['peak_mb']} MB; previous reading "
                  f"{row['previous']['cpu_s']} s, peak {row['previous']['peak_mb']} MB; same score: "
                  f"{row['same_score']}", flush=True)
            path.unlink()
    print(json.dumps({"task": TASK, "rows": rows,
                      "load_average": round(os.getloadavg()[0], 2), "cpu_count": os.cpu_count()}))


if __name__ == "__main__":
    main()
