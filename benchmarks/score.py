"""`nycc-bench score` on predictions files of 10^5, 10^6 and 2*10^6 lines: CPU seconds and peak memory (each run in a
fresh process, after the imports that every `score` pays: evaluate alone brings transformers and torch, about
350 MB) of the streamed scoring, of the previous way (the whole file read into memory, every record kept
whole) and of the floor (reading the file and parsing each line, nothing else), in one run.

The lines are what a long resumed run leaves: every instance of `matching` on the sample answered many times
(earlier records replaced by later ones), each record with its raw reply and prompt reference like the runner's.
Memory should stay flat as the lines grow and CPU grow linearly, near the floor.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def one(mode: str, path: Path, dataset: str) -> dict:
    """Run one mode in this process; return its CPU seconds, peak resident memory and the score."""
    import datasets
    import evaluate  # imports transformers and torch: start-up cost, not per line, so outside the timing

    import nycc_bench.score as score_module
    from nycc_bench.metrics import load_metric
    from nycc_bench.tasks import get_task

    load_metric(get_task(TASK).metric)
    datasets.disable_progress_bars()
    imported = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    del evaluate
    start = time.process_time()
    value = None
    if mode == "floor":
        with open(path, "rb") as f:
            for line in f:
                json.loads(line)
    else:
        if mode == "previous":
            score_module.load_predictions = previous_load
        result = score_module.score(TASK, [path], dataset=dataset)
        value = result["scores"]["accuracy"]["value"]
    cpu = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cpu_s": round(cpu, 2), "peak_mb": round(peak, 1), "after_imports_mb": round(imported, 1),
            "growth_mb": round(peak - imported, 1), "accuracy": value}


def main() -> None:
    """Make the files, run every mode on each in its own process, print a table and one JSON line."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, nargs="+", default=[100_000, 1_000_000, 2_000_000])
    ap.add_argument("--one", nargs=3, metavar=("MODE", "FILE", "DATASET"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], Path(args.one[1]), args.one[2])))
        return
    from nycc_bench.builders import build_dataset
    from nycc_bench.paths import SAMPLE_DIR

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dataset = root / "dataset"
        build_dataset(SAMPLE_DIR, dataset, progress=False)
        rows = []
        for lines in args.lines:
            path = make_predictions(str(dataset), root, lines)
            row = {"lines": lines, "mb": round(path.stat().st_size / 1e6, 1)}
            for mode in ("floor", "new", "previous"):
                done = subprocess.run([sys.executable, __file__, "--one", mode, str(path), str(dataset)],
                                      capture_output=True, text=True, check=True)
                row[mode] = json.loads(done.stdout.strip().splitlines()[-1])
            row["same_score"] = row["new"]["accuracy"] == row["previous"]["accuracy"]
            row["cpu_vs_floor"] = round(row["new"]["cpu_s"] / row["floor"]["cpu_s"], 2)
            rows.append(row)
            print(f"{lines:>10,} lines ({row['mb']:,} MB): floor (read + parse) {row['floor']['cpu_s']} s CPU; score "
                  f"streamed {row['new']['cpu_s']} s ({row['cpu_vs_floor']}x floor), peak {row['new']['peak_mb']} MB "
                  f"(+{row['new']['growth_mb']} MB over the imports); previous {row['previous']['cpu_s']} s, peak "
                  f"{row['previous']['peak_mb']} MB (+{row['previous']['growth_mb']} MB); same score: "
                  f"{row['same_score']}", flush=True)
            path.unlink()
    print(json.dumps({"task": TASK, "rows": rows,
                      "load_average": round(os.getloadavg()[0], 2), "cpu_count": os.cpu_count()}))


if __name__ == "__main__":
    main()
