"""The leaderboard's seed: every baseline evaluated on the embedded sample through `nycc_bench.evaluate`, judged by
the offline judges trained on the sample, so a fresh leaderboard shows a number in every headline cell. Every
row is labelled sample data; `nycc-bench seed` regenerates it (package data under `leaderboard/seed/`)."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..paths import SAMPLE_DIR, SEED_DIR

SAMPLE_LABEL = "embedded sample (nycc-bench build --source sample)"


def _relabel(record: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """The record with the temporary folders replaced by what they were (the sample, its offline judges)."""
    text = json.dumps(record)
    text = text.replace(json.dumps(str(tmp / "dataset"))[1:-1], "SAMPLE_DATASET")
    text = text.replace(json.dumps(str(tmp / "judges"))[1:-1], "SAMPLE_JUDGES")
    text = text.replace(json.dumps(str(tmp))[1:-1], "SAMPLE_RUN")
    out = json.loads(text)
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
    """Rebuild the seed folder: `results/seed-<baseline>.json` and the predictions they name."""
    from ..builders import build_dataset
    from ..evaluation import evaluate
    from ..offline_judges import train_offline_judges
    from ..results import write_results
    from ..systems import BASELINES
    from .worker import store_paths

    out = Path(out or SEED_DIR)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        build_dataset(SAMPLE_DIR, tmp / "dataset", progress=False)
        judges = train_offline_judges(tmp / "dataset", tmp / "judges",
                                      SAMPLE_DIR / "humorbench_reubennarad" / "rubric")
        shutil.rmtree(out / "results", ignore_errors=True)
        shutil.rmtree(out / "predictions", ignore_errors=True)
        written = []
        for spec, title in BASELINES.items():
            run = "seed-" + spec.split(":")[0]
            result = evaluate(spec, "all", dataset=str(tmp / "dataset"), judge=judges, out=tmp / "runs" / run,
                              progress=False, model={"name": spec, "type": "baseline", "license": "n/a (baseline)",
                                                     "title": title},
                              extra={"run_id": run, "options": {}})
            record = store_paths(_relabel(result.record, tmp), run)
            for entry in result.record["tasks"].values():
                for rel in entry["predictions"]:
                    target = out / "predictions" / run / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(tmp / "runs" / run / rel, target)
            write_results(out / "results" / f"{run}.json", record)
            written.append(run)
        write_arena_seed(out, tmp / "dataset", tmp / "arena")
    return {"seed": str(out), "results": written}
