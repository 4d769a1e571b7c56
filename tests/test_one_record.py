"""One record shape everywhere: the same system on the same data gives the same numbers through the demo, the
leaderboard worker and the leaderboard seed (all of them call `nycc_bench.evaluate`; the model cards are rendered
from the seed's records)."""

from __future__ import annotations

from pathlib import Path

from nycc_bench.demo import evaluate_baselines
from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.store import Job, LocalStore
from nycc_bench.leaderboard.worker import run_worker_once
from nycc_bench.paths import SEED_DIR
from nycc_bench.results import read_results


def _scores(record: dict) -> dict:
    """Each task's scores, numbers to 12 significant digits: the records were written on other machines, and
    float sums can differ in the last digit between Python versions (3.12's `sum` is compensated)."""
    def rounded(value: object) -> object:
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        return float(f"{value:.12g}") if isinstance(value, float) else value

    return {task: rounded(entry["scores"]) for task, entry in record["tasks"].items()}


def test_demo_worker_and_seed_agree(sample_dataset: str, sample_judges: dict, tmp_path: Path) -> None:
    (demo,) = evaluate_baselines(Path(sample_dataset), sample_judges, tmp_path / "runs", ["random"], quiet=True)
    store = LocalStore(tmp_path / "lb")
    settings = Settings(data_dir=tmp_path / "lb", dataset=sample_dataset,
                        judges={task: spec.name for task, spec in sample_judges.items()})
    store.add_job(Job(id="job-1", model="random", spec="random", source="baseline", tasks=list(demo["tasks"]),
                      user="u", run_key="k"), 10, 1e9)
    run_worker_once(store, settings)
    (worker,) = store.results()
    seed = read_results(SEED_DIR / "results" / "seed-random.json")
    assert set(demo["tasks"]) == set(worker["tasks"]) == set(seed["tasks"])
    assert _scores(demo) == _scores(worker) == _scores(seed)
    for record in (demo, worker, seed):
        assert record["tasks"]["ranking"]["config"]["dataset"]["folds"] == [0, 1]
        assert record["tasks"]["caption_generation"]["scores"]["win_rate_top10"]["n"] == 8  # 4 contests, judged
