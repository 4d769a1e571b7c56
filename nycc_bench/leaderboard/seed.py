"""The leaderboard's seed: every baseline evaluated on the embedded sample through `nycc_bench.evaluate`, judged by
the offline judges trained on the sample, so a fresh leaderboard shows a number in every headline cell. Every
row is labelled sample data; `nycc-bench seed` regenerates it (package data under `leaderboard/seed/`). It is the
offline demo's seed: a board built on the real data (`nycc-bench leaderboard --source upstream|DIR`) seeds itself
with the papers' published runs instead (`seed_published`)."""

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


def seed_published(store: Any, source: str, folder: Path, sbert: bool = True) -> int:
    """Seed an empty store with the papers' published runs (`nycc-bench import published`), imported into `folder`
    once: each run's record (predictions paths under `predictions/<run id>/`) and its predictions and stored
    verdicts. The sample seed is for the offline demo; a board on the real data starts from these."""
    from ..predictions import judged_path
    from ..published.importer import import_published
    from ..results import read_results
    from .worker import store_paths

    if store.results():
        return 0
    folder = Path(folder)
    if not any(folder.glob("*/results.json")):  # imported once; a later start reads the same runs
        import_published(source, folder, sbert=sbert, command=["nycc-bench", "import", "published", "--source",
                                                               "upstream" if source == "upstream" else "MIRROR",
                                                               "--out", "OUT"])
    n = 0
    for run in sorted(p for p in folder.iterdir() if (p / "results.json").is_file()):
        record = read_results(run)
        for entry in record["tasks"].values():
            for relative in entry["predictions"]:
                for path in (run / relative, judged_path(run / relative)):
                    if path.is_file():
                        target = store.resolve(f"predictions/{run.name}/{path.relative_to(run).as_posix()}")
                        target.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(path, target)
        store.save_result(store_paths(record, run.name))
        n += 1
    return n


def published_board_lines(data_dir: Path, source: str, sbert: bool = True) -> list[str]:
    """What a board seeded from the published runs shows, as text: each family tab's table (value [interval]) and
    its reported rows apart (`nycc-bench leaderboard --source DIR --print-rows`, `make demo-real`)."""
    import pandas as pd

    from ..published.reported import reported_note, reported_rows
    from ..standings import Filters, build_frame, tab_table
    from ..tasks.scores import family_list
    from .store import LocalStore

    store = LocalStore(Path(data_dir))
    seed_published(store, source, Path(data_dir) / "published", sbert=sbert)
    results = store.results()
    frame = build_frame(results)
    lines = []
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 48):
        for family in family_list():
            table = tab_table(frame, family.key, Filters())
            lines += [f"== {family.title}: published runs (ranked)", table.texts.to_string(index=False)
                      if not table.empty else "(none)"]
            if reported := reported_rows(family.key, results):
                rows = pd.DataFrame(reported).drop(columns=["Source"])
                lines += [f"-- {family.title}: reported by the authors ({reported[0]['Source']}; not ranked, no "
                          "interval)", rows.to_string(index=False)]
            if left_out := reported_note(family.key, results):
                lines.append(f"-- {family.title}: {left_out}")
    return lines
