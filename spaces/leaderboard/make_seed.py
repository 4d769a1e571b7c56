"""Regenerate `seed/`: the baselines `random`, `length` and `sbert:all-MiniLM-L6-v2` on the embedded sample.

A fresh leaderboard copies these results in when its store has none, so it is never empty; every row they
give is marked as sample data (invented content, a handful of items per task). Run from the repository root:

    .venv/bin/python spaces/leaderboard/make_seed.py
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from nycc_bench.builders import build_dataset
from nycc_bench.cli import SAMPLE_DIR
from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.store import LocalStore
from nycc_bench.leaderboard.worker import SCHEMA_VERSION, evaluate_task
from nycc_bench.systems import make_system
from nycc_bench.tasks import TASKS

HERE = Path(__file__).resolve().parent
DATASET_LABEL = "out/dataset"
BUILD = f"nycc-bench build --source sample --out {DATASET_LABEL}"
BASELINES = {
    "random": {"name": "random", "url": None, "params": None},
    "length": {"name": "length", "url": None, "params": None},
    "sbert:all-MiniLM-L6-v2": {"name": "sbert:all-MiniLM-L6-v2", "params": 22_713_216,
                               "url": "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2"},
}


def seed_result(spec: str, dataset: str, store: LocalStore, settings: Settings) -> dict:
    """One baseline on every task it can answer, as a result the leaderboard reads."""
    run_id = "seed-" + spec.split(":")[0]
    system = make_system(spec, dataset)
    tasks = {}
    for task in TASKS:
        try:
            entry = evaluate_task(task, system, spec, store.predictions_dir(run_id), settings, DATASET_LABEL,
                                  "baseline", {})
        except ValueError as err:  # the baseline does not do this task (length: generation; sbert: pixels)
            print(f"{spec} skips {task}: {err}")
            continue
        entry["command"] = f"{BUILD} && \\\n{entry['command']}"
        tasks[task] = entry
    model = {**BASELINES[spec], "spec": spec, "source": "baseline", "revision": None, "commit": None,
             "license": "n/a (baseline)", "type": "baseline"}
    return {"schema_version": SCHEMA_VERSION, "run_id": run_id, "model": model, "options": {},
            "dataset": {"name": "embedded sample (nycc-bench build --source sample)", "sample": True},
            "tasks": tasks, "complete": True, "created_at": "seed"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=HERE / "seed", help="seed folder (replaced)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dataset = Path(tmp) / "dataset"
        build_dataset(SAMPLE_DIR, dataset, progress=False)
        shutil.rmtree(args.out, ignore_errors=True)
        store = LocalStore(args.out)
        settings = Settings(data_dir=args.out, dataset=str(dataset), sample_data=True)
        for spec in BASELINES:
            store.save_result(seed_result(spec, str(dataset), store, settings))
    (args.out / "requests.sqlite").unlink(missing_ok=True)
    for extra in args.out.glob("requests.sqlite-*"):
        extra.unlink()
    for meta in args.out.glob("predictions/*/*.meta.json"):  # the runner's sidecars name the temporary dataset
        meta.unlink()
    print(json.dumps({"seed": str(args.out), "results": sorted(p.name for p in args.out.glob("results/*.json"))}))


if __name__ == "__main__":
    main()
