"""Regenerate the baseline results files and every model card: build the data, run and score each baseline.

    python model_cards/make_cards.py                      # the embedded sample: sample-data figures, labelled so
    python model_cards/make_cards.py --source upstream    # the real data (downloads it): benchmark figures

In a work folder (temporary unless --work is given) it builds the dataset, runs every baseline on every task it
can answer (`length` answers multiple choice only; `sbert:` needs a text description, so never from pixels),
scores each run with `nycc_bench.score.score`, writes `results/<slug>.json` beside this script, then a card per
results file (`<slug>/README.md`), including results files of other systems already in `results/`. Every
command recorded in a results file is the command line of what was run, relative to the work folder.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shlex
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import datasets

from nycc_bench.builders import build_dataset
from nycc_bench.cli import resolve_source
from nycc_bench.publish.cards import slug, write_cards
from nycc_bench.results import make_results, model_ref, write_results
from nycc_bench.runner import run_task
from nycc_bench.score import score
from nycc_bench.systems import make_system
from nycc_bench.tasks import TASKS, config_name

HERE = Path(__file__).resolve().parent
BASELINES = {
    "random": "Random baseline",
    "length": "Longest-caption baseline",
    "sbert:sentence-transformers/all-MiniLM-L6-v2": "SBERT similarity baseline (all-MiniLM-L6-v2)",
}


@contextlib.contextmanager
def working_dir(path: Path) -> Iterator[None]:
    """Run inside the work folder, so the recorded paths are the short relative ones of the commands."""
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def cmd(*words: object) -> str:
    return shlex.join(str(w) for w in words)


def run_system(spec: str, name: str, dataset: str, built: set[str], sample: bool, build_cmd: str) -> dict:
    """Run and score one system on every task built; what it cannot answer or score offline becomes a note."""
    system = make_system(spec, dataset)  # one instance, so a model is loaded once
    results, commands, cannot, unjudged = [], [build_cmd], [], []
    for task in TASKS.values():
        folds = [f for f in (range(5) if task.folds else [0]) if config_name(task, f) in built]
        if not folds:
            continue
        files, runs = [], []
        try:
            for fold in folds:
                out = f"predictions/{slug(spec)}/{config_name(task, fold)}.jsonl"
                run_task(task.name, spec, out, dataset=dataset, fold=fold, progress=False, system=system)
                files.append(out)
                runs.append(cmd("nycc-bench", "run", "--task", task.name, "--system", spec, "--dataset", dataset,
                                *(["--fold", fold] if task.folds else []), "--out", out))
            results.append(score(task.name, files, dataset=dataset, folds=folds))
        except ValueError as err:
            if not str(err).startswith(("system:", "judge:")):
                raise
            (cannot if str(err).startswith("system:") else unjudged).append(task.name)
            continue
        commands += [*runs, cmd("nycc-bench", "score", "--task", task.name, "--dataset", dataset, "--predictions",
                                *files, *(["--fold", *folds] if task.folds else []))]
    notes = []
    if cannot:
        notes.append(f"Not run: {', '.join(cannot)} (tasks this system cannot answer).")
    if unjudged:
        notes.append(f"Not scored: {', '.join(unjudged)} (scored only by an LLM autograder: `nycc-bench score "
                     "--judge ...`).")
    return make_results(model_ref(spec, name), dataset, results, commands, sample_data=sample, notes=notes)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", default="sample", help="sample (default), upstream, or a folder of upstream files")
    p.add_argument("--out", default=str(HERE), help="where results/ and the cards go (default: this folder)")
    p.add_argument("--work", help="keep the dataset and predictions in this folder (default: a temporary one)")
    p.add_argument("--systems", nargs="+", default=list(BASELINES), help="system specs (default: the baselines)")
    args = p.parse_args(argv)
    datasets.disable_progress_bars()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    out = Path(args.out).resolve()
    sample = args.source == "sample"
    source = resolve_source(args.source, progress=False)
    with contextlib.ExitStack() as stack:
        work = Path(args.work).resolve() if args.work else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        work.mkdir(parents=True, exist_ok=True)
        stack.enter_context(working_dir(work))
        dataset = "sample-dataset" if sample else "dataset"
        report = build_dataset(source, Path(dataset), progress=False)
        build_cmd = cmd("nycc-bench", "build", "--source", args.source, "--out", dataset)
        for spec in args.systems:
            data = run_system(spec, BASELINES.get(spec, spec), dataset, set(report.rows), sample, build_cmd)
            print(write_results(out / "results" / f"{slug(spec)}.json", data))
    for card in write_cards(out / "results", out):
        print(card)
    return 0


if __name__ == "__main__":
    sys.exit(main())
