"""The `nycc-bench` command line: `build` the Hub dataset repo and run the `demo`."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from .builders import ALL_CONFIGS, BuildReport, SourceError, build_dataset
from .errors import NyccBenchError
from .judging import DryRun, JudgeSpec

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"


def resolve_source(source: str, progress: bool = True) -> list[Path]:
    """`sample` → the embedded sample; `upstream` → download the real sources; anything else is a folder."""
    if source == "sample":
        if not SAMPLE_DIR.is_dir():
            raise SourceError(SAMPLE_DIR, "the embedded sample is not here",
                              "run from a source checkout of nycc-bench, or pass a folder to --source")
        return [SAMPLE_DIR]
    if source == "upstream":
        from .builders.download import fetch_upstream

        return fetch_upstream(progress=progress)
    return [Path(source)]


def summary_table(report: BuildReport) -> str:
    """A plain-text table of configs and their split sizes, as printed after a build."""
    splits = ("train", "validation", "test")
    header = f"{'config':<28}" + "".join(f"{s:>12}" for s in splits)
    lines = [header, "-" * len(header)]
    for name, rows in report.rows.items():
        lines.append(f"{name:<28}" + "".join(f"{rows[s]:>12,}" if s in rows else f"{'-':>12}" for s in splits))
    if report.skipped:
        lines.append(f"no source for: {', '.join(report.skipped)}")
    lines.append(f"written to {report.out_dir}  (load with datasets.load_dataset({str(report.out_dir)!r}, CONFIG))")
    return "\n".join(lines)


def cmd_build(args: argparse.Namespace) -> int:
    """Build the dataset repo from a source and print what was written."""
    report = build_dataset(resolve_source(args.source, not args.quiet), Path(args.out), args.configs,
                           progress=not args.quiet)
    print(summary_table(report))
    return 0


def parse_options(pairs: list[str] | None) -> dict[str, object]:
    """`key=value` pairs as keyword arguments; values that read as JSON (numbers, true) are typed."""
    out: dict[str, object] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"system-option: expected KEY=VALUE, got {pair!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def cmd_run(args: argparse.Namespace) -> int:
    """Run a system on a task and write predictions (resumable)."""
    from .runner import run_task

    summary = run_task(args.task, args.system, args.out, dataset=args.dataset, split=args.split, fold=args.fold,
                       shots=args.shots, seed=args.seed, base_url=args.base_url, limit=args.limit,
                       progress=not args.quiet, system_options=parse_options(args.system_option))
    print(f"{summary.out}: {summary.total} instances, {summary.answered} answered now, {summary.resumed} "
          f"already there, {summary.unparsed} unparseable")
    return 0


def judge_spec(args: argparse.Namespace) -> JudgeSpec | None:
    """The --judge options as a spec; keys are never options, they come from the environment."""
    if not args.judge:
        return None
    return JudgeSpec.parse(args.judge, base_url=args.judge_base_url, cache_dir=args.cache_dir,
                           max_concurrency=args.max_concurrency, dry_run=args.dry_run)


def cmd_score(args: argparse.Namespace) -> int:
    """Score predictions; the last printed line is the scores as one JSON object."""
    from .score import score

    result = score(args.task, args.predictions, dataset=args.dataset, split=args.split, folds=args.fold,
                   judge=judge_spec(args), protocol=args.protocol, last_k_tokens=args.last_k_tokens)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))
    print(json.dumps(result))
    return 0


def cmd_reliability(args: argparse.Namespace) -> int:
    """Zhang's judge-reliability protocol on the dataset's held-out contests."""
    from .score import reliability

    result = reliability(judge_spec(args), dataset=args.dataset, split=args.split, protocol=args.protocol)
    print(json.dumps(result))
    return 0


def cmd_reward(args: argparse.Namespace) -> int:
    """Train or evaluate the offline judges; the last printed line is one JSON object."""
    from . import reward

    needed = {"train": ["out"], "evaluate": ["model"], "train-grader": ["rubric", "out"]}[args.action]
    if missing := [name for name in needed if getattr(args, name) is None]:
        raise ValueError(f"{', '.join(missing)}: `nycc-bench reward {args.action}` needs --{' --'.join(missing)}")
    if args.action == "train":
        result = reward.train(args.dataset, args.out, args.embedding_model)
    elif args.action == "evaluate":
        result = reward.evaluate(args.model, args.dataset, splits=args.splits)
    else:
        result = reward.train_grader(args.rubric, args.out, args.embedding_model)
    print(json.dumps(result, default=str))
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """Serve the leaderboard Space locally (blocks until interrupted)."""
    from .leaderboard import serve

    serve(args.data_dir, args.port, dataset=args.dataset, host=args.host)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job on the embedded sample, end to end; prints where every output is."""
    from .demo import run_demo

    outputs = run_demo(Path(args.out), resolve_source("sample")[0], quiet=args.quiet)
    print("\nDone. Outputs:")
    for name, path in outputs.items():
        print(f"  {name:<12} {path}")
    print(f"\nOpen the report: file://{Path(outputs['report']).resolve()}\nOpen the leaderboard: nycc-bench "
          f"leaderboard --data-dir {outputs['leaderboard']} --dataset {outputs['dataset']} --port 7860  "
          "(then http://127.0.0.1:7860)")
    return 0


def parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    p = argparse.ArgumentParser(prog="nycc-bench", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build the Hub dataset repo (parquet + card) from upstream raw files")
    b.add_argument("--source", default="sample",
                   help="'sample' (embedded), 'upstream' (download the real sources) or a folder holding "
                        "upstream files under their upstream names (default: sample)")
    b.add_argument("--out", required=True, help="output folder (its data/ is replaced)")
    b.add_argument("--configs", nargs="+", metavar="CONFIG",
                   help=f"only these configs (default: all): {', '.join(ALL_CONFIGS)}")
    b.add_argument("--quiet", action="store_true", help="no progress bars")
    b.set_defaults(func=cmd_build)
    from .systems import SPECS
    from .tasks import TASKS
    from .tasks.instances import DEFAULT_DATASET

    r = sub.add_parser("run", help="run a system on a task; writes predictions JSONL (resumable)",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="systems:\n" + "\n".join(f"  {k:<26} {v}" for k, v in SPECS.items()))
    r.add_argument("--task", required=True, help=f"one of: {', '.join(TASKS)}")
    r.add_argument("--system", required=True, help="system spec, e.g. random, sbert:MODEL, hf:MODEL, openai:MODEL")
    r.add_argument("--out", required=True, help="predictions file (JSONL); an existing one is resumed")
    r.add_argument("--dataset", default=DEFAULT_DATASET, help=f"dataset folder or Hub repo (default {DEFAULT_DATASET})")
    r.add_argument("--split", help="split (default: test)")
    r.add_argument("--fold", type=int, default=0, help="cross-validation fold 0..4 of the Hessel tasks")
    r.add_argument("--shots", type=int, default=0, help="in-context examples from train (Hessel, from description)")
    r.add_argument("--seed", type=int, default=0, help="seed of the shots")
    r.add_argument("--base-url", help="OpenAI-compatible endpoint for openai:<model> (vLLM, TGI, Ollama, ...)")
    r.add_argument("--system-option", action="append", metavar="KEY=VALUE",
                   help="system setting, repeatable: batch_size=4, dtype=bfloat16, max_new_tokens=128, "
                        "mc_mode=generate, trust_remote_code=true (operators only)")
    r.add_argument("--limit", type=int, help="only the first N instances (a smoke test)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=cmd_run)
    def judge_options(p: argparse.ArgumentParser, required: bool = False) -> None:
        p.add_argument("--judge", required=required, metavar="SPEC",
                       help="openai:MODEL, transformers:PATH, reward:PATH (offline humor reward model) or "
                            "embedding:PATH (offline HumorBench grader); API keys come from OPENAI_API_KEY")
        p.add_argument("--judge-base-url", help="OpenAI-compatible endpoint of the judge")
        p.add_argument("--protocol", choices=["overall", "best_pick"], default="overall",
                       help="group comparison protocol (Zhang 2024)")
        p.add_argument("--cache-dir", help="judge cache folder (default ~/.cache/nycc_bench/judge)")
        p.add_argument("--max-concurrency", type=int, default=16, help="parallel judge calls")
        p.add_argument("--dry-run", action="store_true",
                       help="print the judge calls still needed (after the cache) and their estimated cost; "
                            "spend nothing")

    s = sub.add_parser("score", help="score predictions through the evaluate modules (JSON on the last line)")
    s.add_argument("--task", required=True, help=f"one of: {', '.join(TASKS)}")
    s.add_argument("--predictions", required=True, nargs="+", metavar="FILE",
                   help="runner JSONL or Hessel-style JSON ({instance_id: letter}); one file per --fold")
    s.add_argument("--fold", type=int, nargs="+", help="the fold of each predictions file (averaged as Hessel does)")
    s.add_argument("--dataset", default=DEFAULT_DATASET, help="dataset folder or Hub repo")
    s.add_argument("--split", help="split (default: test)")
    s.add_argument("--last-k-tokens", type=int, help="HumorBench: grade only the last k tokens of an explanation")
    s.add_argument("--out", help="also write the result JSON here")
    judge_options(s)
    s.set_defaults(func=cmd_score)
    j = sub.add_parser("reliability", help="Zhang's judge-reliability check: human top10 vs #1000-1009")
    j.add_argument("--dataset", default=DEFAULT_DATASET, help="dataset folder or Hub repo")
    j.add_argument("--split", default="test", help="held-out split (validation or test)")
    judge_options(j, required=True)
    j.set_defaults(func=cmd_reliability)
    w = sub.add_parser("reward", help="offline judges: train/evaluate the humor reward model, train the grader")
    w.add_argument("action", choices=["train", "evaluate", "train-grader"],
                   help="train: fit on caption_ratings train contests; evaluate: Zhang's reliability protocol and "
                        "pairwise checks on held-out contests; train-grader: fit the HumorBench element grader")
    w.add_argument("--dataset", default=DEFAULT_DATASET, help="dataset folder or Hub repo (train, evaluate)")
    w.add_argument("--model", help="reward model folder or Hub repo (evaluate)")
    w.add_argument("--splits", nargs="+", default=["validation", "test"], help="held-out splits (evaluate)")
    w.add_argument("--rubric", help="HumorBench rubric folder or CSV files with human labels (train-grader)")
    w.add_argument("--out", help="output folder (train, train-grader)")
    w.add_argument("--embedding-model", default="all-MiniLM-L6-v2", help="sentence-transformers model or folder")
    w.set_defaults(func=cmd_reward)
    lb = sub.add_parser("leaderboard", help="serve the leaderboard (the Space's app) locally")
    lb.add_argument("--data-dir", default="leaderboard-data", help="local store: requests, results, predictions")
    lb.add_argument("--port", type=int, default=7860)
    lb.add_argument("--host", default="127.0.0.1")
    lb.add_argument("--dataset", help="dataset folder or Hub repo the worker and the Browse tab read")
    lb.set_defaults(func=cmd_leaderboard)
    d = sub.add_parser("demo", help="run the main job on the embedded sample")
    d.add_argument("--out", default="out/demo", help="output folder (default: out/demo)")
    d.add_argument("--quiet", action="store_true", help="no progress bars")
    d.set_defaults(func=cmd_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point: bad input ends with one clear line on stderr and exit status 2."""
    args = parser().parse_args(argv)
    if getattr(args, "quiet", False):
        import datasets

        datasets.disable_progress_bars()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return args.func(args)
    except DryRun as stop:
        print(stop)
        print(json.dumps({"dry_run": stop.estimate.to_dict()}))
        return 0
    except (NyccBenchError, ValueError) as err:
        print(f"nycc-bench {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
