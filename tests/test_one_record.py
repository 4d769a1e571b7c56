"""One record shape everywhere: the same system on the same data gives the same numbers through the demo, the
leaderboard worker and the leaderboard seed (all of them call `nycc_bench.evaluate`; the model cards are rendered
from the seed's records)."""

from __future__ import annotations

from pathlib import Path

from float_tolerance import assert_scores_match

from nycc_bench.demo import evaluate_baselines
from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.store import Job, LocalStore
from nycc_bench.leaderboard.worker import run_worker_once
from nycc_bench.paths import SEED_DIR
from nycc_bench.results import read_results


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
    for task in seed["tasks"]:  # the seed was written on another machine, the worker runs in a child process with
        # its own torch threads: each float at its source's tolerance (tests/float_tolerance.py)
        assert_scores_match(demo["tasks"][task]["scores"], worker["tasks"][task]["scores"], task)
        assert_scores_match(demo["tasks"][task]["scores"], seed["tasks"][task]["scores"], task)
    for record in (demo, worker, seed):
        assert record["tasks"]["ranking"]["config"]["dataset"]["folds"] == [0, 1]
        assert record["tasks"]["caption_generation"]["scores"]["win_rate_top10"]["n"] == 8  # 4 contests, judged
