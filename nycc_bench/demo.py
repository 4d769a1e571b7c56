"""`make demo` / `nycc-bench demo`: the whole toolkit on the embedded sample, offline, in a few minutes.

build the dataset → the offline judges (`reward:sample`, `embedding:sample`: trained into the cache on first
use) → every baseline on every task it answers (`baselines.run_baselines`, as the seed and the cards; one results
record each) → an HTML report → a seeded local leaderboard → an arena round of simulated voters (ratings, and
the reward model's agreement with them) → the upload staged with `--dry-run`. The seed, the simulated votes and
the staging need only the dataset: a second process does them while this one trains the judges and runs the
baselines (`_Beside`), and their lines are printed at their stages.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from .baselines import run_baselines
from .building import summary_table
from .offline_judges import sample_judges, train_offline_judges
from .paths import SAMPLE_DIR
from .publish.cards import slug
from .report import score_lines, write_report
from .systems import BASELINES

STAGES: list[tuple[str, float, float]] = []
"""(title, wall clock, CPU clock) at the start of each stage of the last demo run in this process (`stage_times`)."""


def _step(title: str, quiet: bool) -> None:
    """Announce a stage of the demo and note when it began."""
    STAGES.append((title, time.perf_counter(), time.process_time()))
    if not quiet:
        print(f"\n== {title}", flush=True)


def stage_times(stages: list[tuple[str, float, float]], end: tuple[float, float]) -> str:
    """The closing note's line: the whole time (wall and CPU: on a shared machine the wall is mostly waiting for a
    core) and each stage's wall time, from the stages' starts and the `end` clocks."""
    if not stages:
        return ""
    bounds = [*(s[1] for s in stages[1:]), end[0]]
    names = [next(w for w in [*title.split()[1:], title] if w not in ("the", "an", "a")) for title, _, _ in stages]
    each = ", ".join(f"{name} {b - began:.0f} s" for name, (_, began, _), b in zip(names, stages, bounds, strict=True))
    return (f"Done in {end[0] - stages[0][1]:.0f} s ({end[1] - stages[0][2]:.0f} CPU s of this process); stages: "
            f"{each}")


def run_demo(out: Path, sample_dir: Path = SAMPLE_DIR, quiet: bool = False) -> dict[str, str]:
    """Run every stage; return where each output is."""
    from .builders import build_dataset

    out.mkdir(parents=True, exist_ok=True)
    STAGES.clear()
    dataset = out / "dataset"
    _step("1/7 build the dataset from the embedded sample", quiet)
    print(summary_table(build_dataset(sample_dir, dataset, progress=not quiet)))
    with _Beside(out, dataset) as beside:  # stages 5-7's work that needs only the dataset, from here on
        _step("2/7 the offline judges (humor reward model, embedding element grader)", quiet)
        judges = sample_judges(dataset) if sample_dir == SAMPLE_DIR else \
            train_offline_judges(dataset, out / "judges", sample_dir / "humorbench_reubennarad" / "rubric")
        print("\n".join(f"  {task}: {spec.name}" for task, spec in judges.items()))
        _step("3/7 evaluate the baselines on every task each answers (nycc_bench.evaluate)", quiet)
        records = evaluate_baselines(dataset, judges, out / "runs", list(BASELINES), quiet)
        _step("4/7 write the report", quiet)
        written = beside.submit(write_report, records, out / "report.html")  # drawn beside the arena's statistics
        _step("5/7 seed a local leaderboard", quiet)
        done = beside.result()
        print(done["seed"], end="")
        leaderboard = Path(done["leaderboard"])
        _step("6/7 an arena round: simulated voters through the Arena tab's path (signed tokens, caps, gold probes)",
              quiet)
        print(done["votes"], end="")
        arena_report(leaderboard, dataset, judges)
        _step("7/7 stage the upload (dry run: nothing leaves this machine)", quiet)
        print(done["staged"], end="")
        html_report = written.result()
        print(f"(in a second process: the leaderboard's seed, the simulated votes and the staging beside stages 2-4, "
              f"{done['seconds']:.0f} s; the report beside stage 6)")
    return {"dataset": str(dataset), "judges": ", ".join(sorted({s.name for s in judges.values()})),
            "runs": str(out / "runs"), "report": str(html_report), "leaderboard": str(leaderboard),
            "staged": done["staged_dir"]}


class _Beside:
    """The demo's stages that need only the built dataset (the leaderboard's seed, the simulated arena votes, the
    staged upload) run in a second process while this one trains the judges and runs the baselines: on 2 cores
    that time is mostly one core's (importing torch and transformers, Python), so the other does these. `result`
    gives each stage's printed lines for the demo to print at its turn; its errors are raised there, whole."""

    def __init__(self, out: Path, dataset: Path) -> None:
        self.out, self.dataset = out, dataset

    def __enter__(self) -> _Beside:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawn: a fresh interpreter, never a fork of this one's threads (the build's progress monitor)
        self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        self._future = self._pool.submit(_beside_stages, self.out, self.dataset)
        return self

    def result(self) -> dict[str, Any]:
        """Wait for the second process; its stages' printed lines, where it put its outputs, its wall time."""
        return self._future.result()

    def submit(self, work: Any, *args: Any) -> Any:
        """`work(*args)` in the second process, after what it was given before (a future of its value)."""
        return self._pool.submit(work, *args)

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _beside_stages(out: Path, dataset: Path) -> dict[str, Any]:
    """In the second process: seed the leaderboard, cast the simulated arena votes, stage the upload, each one's
    printed lines (stdout and stderr, no progress bars) kept apart for the demo to print at its stage."""
    import contextlib
    import io
    import os

    from .progress import quiet

    os.environ["HF_DATASETS_DISABLE_PROGRESS_BARS"] = "1"
    began = time.perf_counter()
    printed: dict[str, Any] = {}

    def captured(name: str, work: Any) -> Any:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer), quiet():
            value = work()
        printed[name] = buffer.getvalue()
        return value

    leaderboard = captured("seed", lambda: seed_leaderboard(out / "leaderboard", dataset))
    captured("votes", lambda: arena_votes(leaderboard, dataset))
    staged = captured("staged", lambda: stage_upload(out / "staged", dataset))
    return {**printed, "leaderboard": str(leaderboard), "staged_dir": str(staged),
            "seconds": time.perf_counter() - began}


def evaluate_baselines(dataset: Path, judges: dict[str, Any], runs: Path, systems: list[str],
                       quiet: bool = False) -> list[dict[str, Any]]:
    """Every system on the tasks it answers (`run_baselines`: one run folder each), printing their scores."""
    records = [run.record for run in run_baselines(dataset, runs, judges, systems, progress=not quiet, run_id=slug)]
    for record in records:
        print("\n".join(score_lines(record)))
    return records


def seed_leaderboard(data_dir: Path, dataset: Path) -> Path:
    """Open a local leaderboard store and seed it with the shipped baseline results, as a fresh Space does."""
    from .leaderboard import Settings, open_store
    from .paths import SEED_DIR

    store = open_store(Settings.from_env(data_dir=data_dir, dataset=str(dataset)))
    store.seed(SEED_DIR)
    if not store.results():
        raise RuntimeError(f"leaderboard: seeding {data_dir} from {SEED_DIR} left it empty")
    return data_dir


def arena_round(data_dir: Path, dataset: Path, judges: dict[str, Any], n_votes: int = 600) -> dict[str, Any]:
    """Simulated voters with known caption strengths vote in the seeded leaderboard's arena; print the ratings and
    the offline reward model's agreement with the votes (saved where the About tab reads it)."""
    arena_votes(data_dir, dataset, n_votes)
    return arena_report(data_dir, dataset, judges)


def arena_votes(data_dir: Path, dataset: Path, n_votes: int = 600) -> None:
    """Simulated voters with known caption strengths vote in the seeded leaderboard's arena, through its own path."""
    from .arena.seed import dataset_pool, simulated_round
    from .leaderboard import Settings, open_store

    store = open_store(Settings.from_env(data_dir=data_dir, dataset=str(dataset)))
    pool = dataset_pool(str(dataset), store.results(), store.resolve)
    simulated_round(Path(store.root) / "arena", pool, n_votes)


def arena_report(data_dir: Path, dataset: Path, judges: dict[str, Any]) -> dict[str, Any]:
    """Print the arena's ratings from its votes and the offline reward model's agreement with them (saved where the
    About tab reads it)."""
    import json

    from .arena import VoteStore, agree, ratings, table_lines, vote_frame
    from .leaderboard import Settings, open_store

    store = open_store(Settings.from_env(data_dir=data_dir, dataset=str(dataset)))
    votes = VoteStore(Path(store.root) / "arena")
    frame = vote_frame(votes.votes(), include_simulated=True)  # simulated voters, said so below
    table = ratings(frame)
    print(f"{table.n_votes} counted votes of {len(frame)} (simulated voters; gold probes and the careless voter "
          "left out):")
    print(table.frame().to_string(index=False))
    reward = next(spec for spec in judges.values() if spec.backend == "reward")
    report = agree(frame, reward, dataset=str(dataset), rounds=200)
    print("\n".join(table_lines([report])))
    folder = Path(store.root) / "arena" / "judges"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reward.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return {"ratings": table.to_dict(), "agreement": report}


def stage_upload(out: Path, dataset: Path) -> Path:
    """`nycc-bench publish --dry-run`: stage every repo the push would create (the sample is labelled as such).

    Publishing needs a source checkout (the metric and leaderboard Space folders); from an installed wheel this
    stage says so and is skipped.
    """
    from .publish import ROOT
    from .publish.cli import main as upload

    if not (ROOT / "metrics").is_dir() or not (ROOT / "spaces").is_dir():
        print("staging skipped: publishing runs from a source checkout of nycc-bench (metrics/ and spaces/)")
        return out

    if upload(["--dry-run", "--out", str(out), "--dataset-dir", str(dataset), "--allow-sample"]) != 0:
        raise RuntimeError(f"upload: staging into {out} failed")
    return out
