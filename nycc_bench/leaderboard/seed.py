"""The leaderboard's seed: every baseline evaluated on the embedded sample through `nycc_bench.evaluate`, judged by
the offline judges trained on the sample, so a fresh leaderboard shows a number in every headline cell. Every
row is labelled sample data; `nycc-bench seed` regenerates it (package data under `leaderboard/seed/`)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..paths import SAMPLE_DIR, SEED_DIR

SAMPLE_LABEL = "embedded sample (nycc-bench build --source sample)"


def _label(record: dict[str, Any], dataset: Path, runs: Path) -> dict[str, Any]:
    """The record as the seed ships it: its folders as placeholders, the sample named, no commit or date (so a
    regeneration changes only what the code changes)."""
    from ..baselines import placeholders

    out = placeholders(record, dataset, runs, "sample")
    out["dataset"]["name"] = SAMPLE_LABEL
    out["git_commit"] = None
    out["created_at"] = "seed"
    return out


def write_arena_seed(out: Path, dataset: Path, work: Path) -> Path:
    """The Arena tab's seed: a round of simulated voters over the sample's cartoons and the seeded runs."""
    from ..arena.seed import dataset_pool, simulated_round, write_seed
    from ..results import read_results

    results = [read_results(p) for p in sorted((out / "results").glob("*.json"))]
    pool = dataset_pool(str(dataset), results, lambda relative: out / relative)
    return write_seed(out, simulated_round(work, pool))


def make_seed(out: Path | None = None) -> dict[str, Any]:
    """Rebuild the seed folder: `results/seed-<baseline>.json` (every baseline on the tasks it answers, judged by
    `reward:sample` / `embedding:sample`) and the predictions they name."""
    from ..baselines import run_baselines
    from ..builders import build_dataset
    from ..offline_judges import sample_judges
    from ..results import write_results
    from .worker import store_paths

    out = Path(out or SEED_DIR)
    judges = sample_judges()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        build_dataset(SAMPLE_DIR, tmp / "dataset", progress=False)
        runs = run_baselines(tmp / "dataset", tmp / "runs", judges, run_id=lambda spec: "seed-" + spec.split(":")[0])
        shutil.rmtree(out / "results", ignore_errors=True)
        shutil.rmtree(out / "predictions", ignore_errors=True)
        for run in runs:
            for entry in run.record["tasks"].values():
                for rel in entry["predictions"]:
                    target = out / "predictions" / run.run_id / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(run.folder / rel, target)
            write_results(out / "results" / f"{run.run_id}.json",
                          store_paths(_label(run.record, tmp / "dataset", tmp / "runs"), run.run_id))
        write_arena_seed(out, tmp / "dataset", tmp / "arena")
    return {"seed": str(out), "results": [run.run_id for run in runs]}
