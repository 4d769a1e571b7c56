"""`nycc-bench arena` and `nycc-bench judges`: the Caption Arena's parsers (`arena/cli.py`, which make the `judges`
group with `judges agree`) with the judge options the other commands share, and beside `agree` `judges
report|stress|train`: a judge scored on real human and published verdicts, played against texts that are not
captions, and the offline judges trained on the public data (one module: the two commands share the `judges` group)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .options import dataset_default, judge_options


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `arena` and `judges` commands and their options."""
    from ..arena.cli import add_arena_parsers

    add_arena_parsers(sub, judge_options=judge_options)
    add_judges_parsers(sub)


def _group(sub: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """The subcommands of `judges` (made by the arena's parsers, else here)."""
    parent = sub.choices.get("judges") or sub.add_parser("judges", help="judges measured against people")
    found = [a for a in parent._actions if isinstance(a, argparse._SubParsersAction)]
    return found[0] if found else parent.add_subparsers(dest="judges_command", required=True)


def default_source() -> str:
    """`NYCC_BENCH_UPSTREAM_DIR` (an offline mirror of the upstream files), else the shared upstream data beside the
    checkout, else the current folder."""
    import os

    if os.environ.get("NYCC_BENCH_UPSTREAM_DIR"):
        return os.environ["NYCC_BENCH_UPSTREAM_DIR"]
    here = Path.cwd()
    for folder in (here / ".." / "shared" / "data", here / "shared" / "data"):
        if folder.is_dir():
            return str(folder.resolve())
    return "."


def add_judges_parsers(sub: argparse._SubParsersAction) -> None:
    """`judges report`, `judges stress` and `judges train` beside `judges agree`."""
    group = _group(sub)
    r = group.add_parser("report", help="a judge scored on crowd ratings, HumorBench's human labels, GPT-4o's "
                                        "stored verdicts and (with --votes) the arena: one table with n and intervals")
    judge_options(r, required=True)
    r.add_argument("--source", default=None, metavar="DIR",
                   help="folder with the upstream files (default: $NYCC_BENCH_UPSTREAM_DIR, else ../shared/data)")
    r.add_argument("--votes", metavar="VOTES.parquet", help="also the arena's counted votes (`arena export`)")
    r.add_argument("--include-simulated", action="store_true",
                   help="with --votes: count simulated votes too (a rehearsal arena; people's votes only otherwise)")
    r.add_argument("--max-rows", type=int, help="grade at most this many rows of each HumorBench file set")
    r.add_argument("--out", metavar="FILE.json", help="also write the report (the About tab shows the reports of "
                                                      "a leaderboard data folder's judges/reports/)")
    r.set_defaults(func=cmd_report)
    s = group.add_parser("stress", help="texts that are not captions (random letters, garbage, copies, another "
                                        "language, a news sentence, ...) against a judge: each must lose and FAIL")
    judge_options(s, required=True)
    s.add_argument("--dataset", default=dataset_default(), help="dataset folder or Hub repo (its held-out contests "
                                                                "and HumorBench rows)")
    s.add_argument("--case", action="append", help="only this case (repeatable; default: all)")
    s.add_argument("-n", type=int, default=5, help="contests and HumorBench captions per case (default 5)")
    s.set_defaults(func=cmd_stress)
    t = group.add_parser("train", help="train the offline judges on the public data (rating summaries, HumorBench's "
                                       "human rubric labels): reward:public and embedding:public")
    t.add_argument("--source", action="append", metavar="DIR",
                   help="folder with the upstream files (default: $NYCC_BENCH_UPSTREAM_DIR, else ../shared/data); "
                        "repeatable: the rating summaries of every folder, the rubric wherever it is")
    t.add_argument("--max-per-contest", type=int, metavar="N",
                   help="the reward model embeds at most N captions per train contest (the 100 best ranked and a "
                        "seeded sample of the rest; default 600), recorded in its card: the bound on the slow step")
    t.add_argument("--out", metavar="DIR", help="where to write them (default: where reward:public and "
                                                "embedding:public are looked up, in the cache)")
    t.set_defaults(func=cmd_train)


def _spec(args: argparse.Namespace):  # -> JudgeSpec
    from ..judging import JudgeSpec

    return JudgeSpec.parse(args.judge, base_url=args.judge_base_url, cache_dir=args.cache_dir,
                           max_concurrency=args.max_concurrency, dry_run=args.dry_run, timeout_s=args.judge_timeout)


def cmd_report(args: argparse.Namespace) -> int:
    """Print the table, then the report as one JSON line."""
    from ..judges_report import report, table_lines

    result = report(_spec(args), args.source or default_source(), votes=args.votes, max_rows=args.max_rows,
                    include_simulated=args.include_simulated)
    print("\n".join(table_lines(result)))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    print(json.dumps(result, default=str))
    return 0


def cmd_stress(args: argparse.Namespace) -> int:
    """Print the table and the JSON line; exit 1 when any case won a comparison or passed an element."""
    from ..judge_stress import stress, stress_lines

    result = stress(_spec(args), args.dataset, cases=args.case, n=args.n)
    print("\n".join(stress_lines(result)))
    print(json.dumps(result, default=str))
    return 1 if result["fooled"] else 0


def cmd_train(args: argparse.Namespace) -> int:
    """Train both judges on the public data; print each card's held-out figures, then one JSON line."""
    from ..sample_judges import train_public_judges

    folders = train_public_judges(args.source or [default_source()], Path(args.out) if args.out else None,
                                  max_per_contest=args.max_per_contest)
    summary = {}
    for backend, folder in folders.items():
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        held = config.get("metrics") or config.get("cross_validation") or {}
        training = config.get("training") or {"n_rows": config.get("n_train")}
        summary[backend] = {"folder": str(folder), "held_out": {k: v for k, v in held.items() if k != "thresholds"},
                            "training": {k: v for k, v in training.items() if k != "contests"}}
        print(f"{backend}:{folder} (card: {folder / 'README.md'})")
        print("\n".join(f"{backend}: held out: {line}" for line in held_out_lines(held)))
    print(json.dumps(summary, default=str))
    return 0


def held_out_lines(held: dict) -> list[str]:
    """One line per held-out figure of a card (accuracy % [95% interval], n): the reward model's checks on contests
    it was not trained on, the grader's cross-validated agreement with the human labels."""
    def line(name: str, m: dict) -> str:
        low, high = m.get("ci_low"), m.get("ci_high")
        interval = f" [{100 * low:.1f}, {100 * high:.1f}]" if low is not None and high is not None else ""
        extra = f", {m['n_contests']} contests" if m.get("n_contests") else ""
        return f"{name}: {100 * m['accuracy']:.1f}{interval} (n={m.get('n')}{extra})"

    if "accuracy" in held and isinstance(held.get("accuracy"), float):  # the grader: one pooled figure
        return [line(f"human rubric labels, {held.get('n_folds')}-fold cross-validated", held)]
    return [line(name, m) for name, m in held.items() if isinstance(m, dict) and m.get("accuracy") is not None]
