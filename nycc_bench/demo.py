"""`make demo` / `nycc-bench demo`: the whole toolkit on the embedded sample, offline, in a few minutes.

build the dataset → run the baselines on every task → score through the `evaluate` modules (judged scores with
the offline judges, labelled as such) → results files and an HTML report → a seeded local leaderboard → the
upload staged with `--dry-run`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .builders import build_dataset
from .cli import summary_table
from .judging import JudgeSpec
from .leaderboard.benchmarks import METRICS
from .report import write_report
from .runner import run_task
from .score import score
from .tasks import TASKS

MINILM = "all-MiniLM-L6-v2"
# The baselines and the tasks each can answer (length: choice only; sbert: needs a text description).
BASELINES: dict[str, list[str]] = {
    "random": list(TASKS),
    "length": [t for t, task in TASKS.items() if task.kind == "choice"],
    f"sbert:{MINILM}": [t for t, task in TASKS.items() if not task.from_pixels],
}


def _step(title: str, quiet: bool) -> None:
    """Announce a stage of the demo."""
    if not quiet:
        print(f"\n== {title}", flush=True)


def train_offline_judges(dataset: Path, out: Path, sample_dir: Path) -> dict[str, JudgeSpec]:
    """The humor reward model and the embedding element grader, trained on the sample (free, offline)."""
    from .reward import train_grader, train_reward_model

    reward_dir, grader_dir = out / "reward_model", out / "element_grader"
    train_reward_model(str(dataset), MINILM, reward_dir)
    # balanced: the sample rubric is mostly PASS, so plain accuracy would fit a threshold that passes everything
    train_grader(sample_dir / "humorbench_reubennarad" / "rubric", grader_dir, MINILM, objective="balanced")
    return {"reward": JudgeSpec("reward", str(reward_dir)), "embedding": JudgeSpec("embedding", str(grader_dir))}


def run_baselines(dataset: Path, out: Path, judges: dict[str, JudgeSpec], quiet: bool) -> list[dict[str, Any]]:
    """Every baseline on every task it supports, scored; judged tasks use the offline judges."""
    results = []
    for system, tasks in BASELINES.items():
        for task in tasks:
            predictions = out / "predictions" / system.replace(":", "_").replace("/", "_") / f"{task}.jsonl"
            run_task(task, system, predictions, dataset=str(dataset), progress=not quiet)
            judge = judges["embedding"] if task == "humorbench" else judges["reward"]
            result = score(task, [predictions], dataset=str(dataset),
                           judge=judge if task in ("caption_generation", "humorbench") else None)
            results.append({"system": system, "predictions": str(predictions), **result})
    return results


def run_demo(out: Path, sample_dir: Path, quiet: bool = False) -> dict[str, str]:
    """Run every stage; return where each output is."""
    out.mkdir(parents=True, exist_ok=True)
    dataset = out / "dataset"
    _step("1/6 build the dataset from the embedded sample", quiet)
    report = build_dataset(sample_dir, dataset, progress=not quiet)
    print(summary_table(report))
    _step("2/6 train the offline judges (humor reward model, embedding element grader)", quiet)
    judges = train_offline_judges(dataset, out / "judges", sample_dir)
    _step("3/6 run the baselines on every task and score them", quiet)
    results = run_baselines(dataset, out, judges, quiet)
    results_path = out / "results.json"
    results_path.write_text(json.dumps(results, indent=2, default=str))
    print(score_table(results))
    _step("4/6 write the report", quiet)
    html_report = write_report(results, out / "report.html", judges={k: v.name for k, v in judges.items()})
    _step("5/6 seed a local leaderboard", quiet)
    leaderboard = seed_leaderboard(out / "leaderboard", dataset)
    _step("6/6 stage the upload (dry run: nothing leaves this machine)", quiet)
    staged = stage_upload(out / "staged", dataset)
    return {"dataset": str(dataset), "judges": str(out / "judges"), "predictions": str(out / "predictions"),
            "results": str(results_path), "report": str(html_report), "leaderboard": str(leaderboard),
            "staged": str(staged)}


def score_table(results: list[dict[str, Any]]) -> str:
    """One line per (system, task): the task's scores with intervals and counts, as the leaderboard shows them."""
    lines = [f"{'system':<24}{'task':<26}scores"]
    for r in results:
        shown = [f"{m.label} {m.format(r['scores'])}" for m in METRICS
                 if m.task == r["task"] and m.extract(r["scores"])[0] is not None]
        lines.append(f"{r['system']:<24}{r['task']:<26}{'; '.join(shown) or '—'}")
    return "\n".join(lines)


def seed_leaderboard(data_dir: Path, dataset: Path) -> Path:
    """Open a local leaderboard store and seed it with the shipped baseline results, as a fresh Space does."""
    from .leaderboard import SEED_DIR, Settings, open_store

    store = open_store(Settings.from_env(data_dir=data_dir, dataset=str(dataset)))
    store.seed(SEED_DIR)
    if not store.results():
        raise RuntimeError(f"leaderboard: seeding {data_dir} from {SEED_DIR} left it empty")
    return data_dir


def stage_upload(out: Path, dataset: Path) -> Path:
    """`upload.py --dry-run`: stage every repo the push would create (the sample is labelled as such)."""
    from .publish.cli import main as upload

    if upload(["--dry-run", "--out", str(out), "--dataset-dir", str(dataset), "--allow-sample"]) != 0:
        raise RuntimeError(f"upload: staging into {out} failed")
    return out
