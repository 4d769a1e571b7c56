"""The size of a full HumorBench run's predictions folder with the prompts kept, against the same records without.

Builds the `humorbench` config from --source (and `explanation`, the random
system's text pool, from the embedded sample), runs a system over every instance
(default `random`, whose replies are train texts: offline and deterministic; pass a saved run's folder with
--run to measure real replies instead) and compares the folder's bytes (records, sidecar, message store) with
the bytes of the same records without their `messages` references and without the store, which is what a
predictions folder held before prompts were kept. The budget is 2x.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from nycc_bench.builders import build_dataset
from nycc_bench.paths import SAMPLE_DIR
from nycc_bench.predictions import messages_path, meta_path, read_messages
from nycc_bench.runner import run_task


def folder_bytes(folder: Path) -> tuple[int, int, int]:
    """(bytes now, bytes without kept prompts, records) of every predictions file in a folder."""
    now = before = records = 0
    for path in sorted(folder.glob("*.jsonl")):
        lines = [line for line in path.read_bytes().splitlines() if line.strip()]
        records += len(lines)
        sidecar = meta_path(path).stat().st_size if meta_path(path).exists() else 0
        store = messages_path(path).stat().st_size if messages_path(path).exists() else 0
        without = [json.dumps({k: v for k, v in json.loads(line).items() if k != "messages"}, ensure_ascii=False)
                   for line in lines]
        now += path.stat().st_size + sidecar + store
        before += sum(len(t.encode("utf-8")) + 1 for t in without) + sidecar
    return now, before, records


def main() -> None:
    """Run (or read) a full HumorBench run, print the figures, then one JSON line."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--source", default="../shared/data", help="folder with the upstream HumorBench files")
    ap.add_argument("--system", default="random", help="system spec to run (default: random)")
    ap.add_argument("--run", help="measure this predictions folder instead of running")
    ap.add_argument("--quick", action="store_true", help="CI mode: the embedded sample's HumorBench files as --source")
    args = ap.parse_args()
    if args.quick:
        args.source = str(SAMPLE_DIR / "humorbench_reubennarad")
    with tempfile.TemporaryDirectory() as tmp:
        if args.run:
            folder = Path(args.run)
        else:
            dataset = Path(tmp) / "dataset"
            # the sample's Hessel parquet stands in for the Hub download of `explanation` (the pool only)
            build_dataset([Path(args.source), SAMPLE_DIR / "newyorker_caption_contest"], dataset,
                          configs=["humorbench", "explanation"], progress=False)
            folder = Path(tmp) / "predictions"
            run_task("humorbench", args.system, folder / "humorbench.jsonl", dataset=str(dataset), progress=False)
        now, before, records = folder_bytes(folder)
        stored = sum(len(read_messages(p)) for p in folder.glob("*.jsonl"))
    ratio = now / before
    print(f"{records} records: {before:,} bytes without prompts, {now:,} with ({stored} distinct messages stored), "
          f"x{ratio:.2f} (budget x2)")
    print(json.dumps({"task": "humorbench", "system": args.system if not args.run else None, "records": records,
                      "bytes_without_prompts": before, "bytes_with_prompts": now, "distinct_messages": stored,
                      "ratio": round(ratio, 3), "within_budget": ratio <= 2.0}))


if __name__ == "__main__":
    main()
