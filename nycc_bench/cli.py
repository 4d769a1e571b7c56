"""The `nycc-bench` command line: build the dataset, list tasks, evaluate systems, score, judge, publish.

Heavy libraries are imported inside the commands that use them, so `nycc-bench --help` and `nycc-bench tasks`
answer at once. Bad input ends with one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import BatchPending, DryRun, NyccBenchError


def _include_path(p: argparse.ArgumentParser) -> None:
    """`--include-path DIR` (repeatable): task folders outside the package, beside NYCC_BENCH_TASK_PATH."""
    p.add_argument("--include-path", action="append", metavar="DIR",
                   help="a folder of outside tasks (<family>/<task>.yaml, prompt files, optional kinds.py); repeatable")


@contextlib.contextmanager
def _outside_tasks(args: argparse.Namespace) -> Iterator[None]:
    """The command's `--include-path` folders are known inside, to child processes too (the leaderboard's
    worker) through NYCC_BENCH_TASK_PATH, restored afterwards."""
    from .tasks.path import ENV_TASK_PATH, include_tasks

    with include_tasks(getattr(args, "include_path", None)) as folders:
        if not folders:
            yield
            return
        old = os.environ.get(ENV_TASK_PATH)
        os.environ[ENV_TASK_PATH] = os.pathsep.join([*([old] if old else []), *map(str, folders)])
        try:
            yield
        finally:
            if old is None:
                os.environ.pop(ENV_TASK_PATH, None)
            else:
                os.environ[ENV_TASK_PATH] = old


def _dataset_default() -> str:
    """The dataset a command reads by default (`NYCC_DATASET`, else the Hub repo; see `kinds.instances`)."""
    from .kinds.instances import DEFAULT_DATASET

    return DEFAULT_DATASET


def parse_options(pairs: list[str] | None, what: str = "system-option") -> dict[str, object]:
    """`key=value` pairs as keyword arguments; values that read as JSON (numbers, true) are typed."""
    out: dict[str, object] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise NyccBenchError(f"{what}: expected KEY=VALUE, got {pair!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def parse_task_options(pairs: list[str] | None) -> dict[str, dict[str, object]]:
    """`TASK.KEY=VALUE` pairs as {task: {key: value}}."""
    out: dict[str, dict[str, object]] = {}
    for key, value in parse_options(pairs, "task-option").items():
        task, dot, name = key.partition(".")
        if not dot or not name:
            raise NyccBenchError(f"task-option: expected TASK.KEY=VALUE (e.g. humorbench.unit=caption), got {key!r}")
        out.setdefault(task, {})[name] = value
    return out


def parse_folds(text: str | None) -> list[int] | None:
    """`0,1,2` as fold numbers."""
    if not text:
        return None
    try:
        return [int(f) for f in text.split(",") if f.strip()]
    except ValueError:
        raise NyccBenchError(f"folds: expected comma-separated fold numbers such as 0,1,2,3,4, got {text!r}") from None


def judge_spec(args: argparse.Namespace, dry_run: bool | None = None) -> Any:
    """The --judge options as a spec; keys are never options, they come from the environment."""
    if not getattr(args, "judge", None):
        return None
    from .judging import JudgeSpec

    return JudgeSpec.parse(args.judge, base_url=args.judge_base_url, cache_dir=args.cache_dir,
                           max_concurrency=args.max_concurrency,
                           dry_run=getattr(args, "dry_run", False) if dry_run is None else dry_run,
                           timeout_s=args.judge_timeout, batch=args.judge_batch, batch_wait_s=args.batch_wait)


def cmd_build(args: argparse.Namespace) -> int:
    """Build the dataset repo from a source and print what was written."""
    from .builders import BuildOptions, build_dataset
    from .building import resolve_source, source_label, summary_table

    if args.dry_run:
        if args.source != "upstream":
            raise NyccBenchError("dry-run: only `--source upstream` downloads anything; a folder is read as it is")
        from .builders.download import format_sources, planned_sources

        print(format_sources(planned_sources(resolve=False)))
        return 0
    if not args.out:
        raise NyccBenchError("out: pass --out DIR, the folder the dataset repo is written to")
    report = build_dataset(resolve_source(args.source, not args.quiet), Path(args.out), args.configs,
                           progress=not args.quiet,
                           options=BuildOptions(pair_rule=args.pair_rule, humorbench_labels=args.humorbench_labels),
                           label=source_label(args.source), replace=args.replace)
    print(summary_table(report))
    return 0


def cmd_sources(args: argparse.Namespace) -> int:
    """List every pinned upstream source, its revision and the files `--source upstream` fetches."""
    from .builders.download import format_sources, planned_sources

    print(format_sources(planned_sources(resolve=args.resolve)))
    return 0


def cmd_tasks(args: argparse.Namespace) -> int:
    """List the tasks, or print one task's whole definition."""
    from .tasks import all_tasks, get_task
    from .tasks.families import groups

    if args.action == "show":
        if not args.name:
            raise NyccBenchError("name: `nycc-bench tasks show NAME`; `nycc-bench tasks` lists the names")
        task = get_task(args.name)
        described = task.describe()
        for role, prompt in described["prompts"].items():
            prompt["text"] = task.prompts[role]
        from .runner import for_system_kind
        from .systems.api import OpenAISystem

        api = OpenAISystem("gpt-4o")
        api_task, api_options = for_system_kind(task, api, task.default_effective()["options"])
        effective = {**task.default_effective(), "options": api_options,
                     "system": {"kind": "openai", **api.effective(api_task)}}
        described["deviations"] = task.computed_deviations(effective)  # those of a default run of an API system
        described["deviations_of"] = "a default run of an OpenAI-compatible system (nycc-bench evaluate --system " \
                                     "openai:MODEL)"
        if protocol := described["judge"].get("protocol"):
            from .judge.protocols.settings import protocol_settings
            from .judging import PAPER_PARSE_RETRIES

            settings = protocol_settings(protocol)  # with the paper's judge
            described["judge"]["settings"] = settings
            described["judge"]["default_parse_retries"] = PAPER_PARSE_RETRIES.get(protocol, 2)
            described["deviations"] += settings["deviations"]
        if args.json:
            print(json.dumps(described, indent=2, ensure_ascii=False))
        else:
            print(_show(described))
        return 0
    if args.action == "check":
        return _check_tasks(args)
    tasks = all_tasks()
    if args.json:
        print(json.dumps({n: t.describe() for n, t in tasks.items()}, ensure_ascii=False))
        return 0
    print(f"{'task':<26}{'family':<12}{'kind':<12}{'judge':<7}summary")
    for name, task in tasks.items():
        print(f"{name:<26}{task.family:<12}{task.kind:<12}{'yes' if task.needs_judge else '-':<7}{task.summary}")
    print(f"\ngroups: {', '.join(groups())}   (`nycc-bench tasks show NAME [--json]` for a definition)")
    return 0


def _check_tasks(args: argparse.Namespace) -> int:
    """Check one or every task file: schema (on load), names, and a random run whose scores all resolve."""
    import tempfile

    from .checking import check_run
    from .paths import SAMPLE_DIR
    from .tasks import all_tasks, get_task

    names = [get_task(args.name).name] if args.name else list(all_tasks())  # loading a task checks its file
    with tempfile.TemporaryDirectory(prefix="nycc-check-") as tmp:
        dataset = args.dataset
        if dataset is None:
            from .builders import build_dataset

            dataset = str(Path(tmp) / "sample")
            build_dataset(SAMPLE_DIR, dataset, progress=False)
        judges = None
        if args.offline_judges:
            from .offline_judges import train_offline_judges

            judges = train_offline_judges(dataset, Path(tmp) / "judges",
                                          SAMPLE_DIR / "humorbench_reubennarad" / "rubric")
        failed = 0
        for name in names:
            try:
                found = check_run(name, dataset, judges)
            except NyccBenchError as err:
                failed += 1
                print(f"FAIL {name}: {err}")
                continue
            unchecked = f"; not checked without a judge: {', '.join(found['unchecked'])}" if found["unchecked"] else ""
            print(f"ok   {name}: {found['n']} instances, scores {', '.join(found['scores'])}{unchecked}")
    return 1 if failed else 0


def _show(d: dict[str, Any], indent: str = "") -> str:
    """A task definition as indented text."""
    lines = []
    for key, value in d.items():
        if isinstance(value, dict) and value:
            lines.append(f"{indent}{key}:")
            lines.append(_show(value, indent + "  "))
        elif isinstance(value, list) and value and any(isinstance(v, str) and len(v) > 40 for v in value):
            lines.append(f"{indent}{key}:")
            lines += [f"{indent}  - {v}" for v in value]
        else:
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            lines.append(f"{indent}{key}: {shown}")
    return "\n".join(lines)


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Run and score every task with one system; write RUN_DIR/results.json; print a score table."""
    from .evaluation import evaluate
    from .publish.push_cli import check_push_to_hub, push_after_evaluate
    from .report import score_lines

    check_push_to_hub(args)
    options = parse_options(args.system_option)
    if options.get("batch") and args.batch_wait is not None:  # --batch-wait bounds the system's batches too
        options.setdefault("batch_wait_s", args.batch_wait)
    result = evaluate(args.system, args.tasks, dataset=args.dataset, judge=judge_spec(args, dry_run=False),
                      folds=parse_folds(args.folds), split=args.split, out=args.out, limit=args.limit,
                      base_url=args.base_url, task_options=parse_task_options(args.task_option),
                      progress=not args.quiet, dry_run=args.dry_run,
                      overwrite=[t for t in (args.overwrite or "").split(",") if t.strip()], **options)
    if args.dry_run:  # a plan: nothing was called or written
        print(result)
        print(json.dumps({"dry_run": result.to_dict()}))
        return 0
    print("\n".join(score_lines(result.record)))
    print(f"results: {result.path}")
    for task, why in result.no_judge.items():
        print(f"no judge: {task}: {why}", file=sys.stderr)
    push_after_evaluate(args, args.out)
    if incomplete := result.incomplete:
        for task, why in incomplete.items():
            print(f"incomplete: {task}: {why}", file=sys.stderr)
        if not args.allow_incomplete:
            print(f"{len(incomplete)} task(s) incomplete; re-run the same command to retry the failed items, or pass "
                  "--allow-incomplete to accept them", file=sys.stderr)
            return 1
    return 0


def cmd_submission(args: argparse.Namespace) -> int:
    """Check a Hessel leaderboard submission, or make one from raw replies (JSONL)."""
    from . import submission

    if args.action == "check":
        ids = submission.leaderboard_ids(args.dataset, args.task) if args.dataset else None
        data = submission.read(args.file)
        problems = submission.check(data, args.task, ids)
        for line in problems:
            print(f"{args.file}: {line}")
        if not problems:
            scope = f"the {len(ids)} ids of {args.dataset}" if ids is not None else "no id set (pass --dataset)"
            print(f"{args.file}: ok, {len(data)} {args.task} predictions; checked against {scope}")
        return 1 if problems else 0
    made = submission.from_responses(submission.read_responses(args.file), args.task, args.parser)
    out = submission.write(made.submission, args.out or Path(args.file).with_suffix(".submission.json"))
    last = "the default letter" if args.parser == "litellm" else "a random letter"
    print(f"{out}: {len(made.submission)} letters read by the {args.parser} reader; {len(made.unparsed)} replies "
          f"without a readable answer got its {last}" + (f" ({', '.join(made.unparsed[:3])})" if made.unparsed else ""))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """Run a system on a task and write predictions (resumable)."""
    from .run_lock import file_lock
    from .runner import run_task

    task_options = parse_task_options(args.task_option)
    if unknown := sorted(set(task_options) - {args.task}):
        raise NyccBenchError(f"task-option: {unknown[0]!r} is not the task run ({args.task}); "
                             f"use {args.task}.NAME=VALUE")
    options = task_options.get(args.task, {})
    for name in ("shots", "seed"):  # --shots/--seed are the task options of those names (0 is a value, not unset)
        value = getattr(args, name)
        if value is not None:
            if options.get(name, value) != value:
                raise NyccBenchError(f"{name}: --{name} {value} and --task-option {args.task}.{name}="
                                     f"{options[name]} disagree; give one")
            options[name] = value
    with file_lock(args.out):  # one writer per run folder
        summary = run_task(args.task, args.system, args.out, dataset=args.dataset, split=args.split,
                           fold=args.fold, base_url=args.base_url, limit=args.limit, progress=not args.quiet,
                           system_options=parse_options(args.system_option), task_options=options)
    print(f"{summary.out}: {summary.total} instances, {summary.answered} answered now, {summary.resumed} "
          f"already there, {summary.unparsed} unparseable, {summary.failed} failed (re-run to retry)")
    return 1 if summary.failed else 0


def cmd_score(args: argparse.Namespace) -> int:
    """Score predictions; the last printed line is the task's result entry as one JSON object."""
    from .score import score

    options = parse_task_options(args.task_option).get(args.task, {})
    if args.protocol:
        options["protocol"] = args.protocol
    result = score(args.task, args.predictions, dataset=args.dataset, split=args.split, folds=args.fold,
                   judge=judge_spec(args), task_options=options, last_k_tokens=args.last_k_tokens)
    text = json.dumps(result, ensure_ascii=False, default=str)
    if args.out:
        from .run_lock import file_lock
        from .secrets import scrub_data

        with file_lock(args.out) as out:
            out.write_text(json.dumps(scrub_data(result), indent=2, ensure_ascii=False, default=str) + "\n",
                           encoding="utf-8")
    print(text)
    return 0


def cmd_reliability(args: argparse.Namespace) -> int:
    """Zhang's judge-reliability protocol (Table 2)."""
    from .reliability import reliability

    print(json.dumps(reliability(judge_spec(args), dataset=args.dataset, protocol=args.protocol or "overall",
                                 n_contests=args.n_contests, vision=not args.no_vision, rule=args.rule), default=str))
    return 0


def cmd_reward(args: argparse.Namespace) -> int:
    """Train or evaluate the offline judges; the last printed line is one JSON object."""
    from . import reward

    needed = {"train": ["out"], "evaluate": ["model"], "train-grader": ["rubric", "out"]}[args.action]
    if missing := [name for name in needed if getattr(args, name) is None]:
        raise NyccBenchError(f"{', '.join(missing)}: `nycc-bench reward {args.action}` needs --{' --'.join(missing)}")
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

    outputs = run_demo(Path(args.out), quiet=args.quiet)
    print("\nDone. Outputs:")
    for name, path in outputs.items():
        print(f"  {name:<12} {path}")
    print(f"\nOpen the report: file://{Path(outputs['report']).resolve()}\nOpen the leaderboard: nycc-bench "
          f"leaderboard --data-dir {outputs['leaderboard']} --dataset {outputs['dataset']} --port 7860  "
          "(then http://127.0.0.1:7860)")
    return 0


def cmd_cards(args: argparse.Namespace) -> int:
    """Model cards from results records (and, with --systems, evaluate the baselines first)."""
    from .publish.cards import make_cards

    for path in make_cards(args.results, args.out, systems=args.systems, source=args.source, work=args.work):
        print(path)
    return 0


def cmd_seed(args: argparse.Namespace) -> int:
    """Regenerate the leaderboard's seed results (the baselines on the embedded sample)."""
    from .leaderboard.seed import make_seed

    print(json.dumps(make_seed(Path(args.out) if args.out else None)))
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    """`upload.py`: stage and push the dataset, metric Spaces, leaderboard and model cards."""
    from .publish.cli import main as publish

    return publish(args.rest)


def _judge_options(p: argparse.ArgumentParser, required: bool = False) -> None:
    """The options every judged command shares."""
    shipped = sorted(path.stem for path in (Path(__file__).parent / "judges").glob("*.yaml"))  # no import
    p.add_argument("--judge", required=required, metavar="SPEC",
                   help=f"a judge configuration ({', '.join(shipped)}; a NYCC_BENCH_JUDGE_PATH folder's, "
                        "or a .yaml path), openai:MODEL, transformers:PATH, reward:PATH (offline humor reward "
                        "model) or embedding:PATH (offline HumorBench grader); API keys come from OPENAI_API_KEY")
    p.add_argument("--judge-base-url", help="OpenAI-compatible endpoint of the judge")
    p.add_argument("--cache-dir", help="judge cache folder (default ~/.cache/nycc_bench/judge)")
    p.add_argument("--max-concurrency", type=int, default=16, help="parallel judge calls")
    p.add_argument("--judge-timeout", type=float, metavar="SECONDS",
                   help="seconds one judge call may take, from connecting to the last byte, before it is abandoned "
                        "and retried (default 120); a reply that drips in slower than this is cut off too")
    p.add_argument("--dry-run", action="store_true",
                   help="print the calls still needed (after the cache and what is already predicted) and their "
                        "estimated tokens and cost per stage; make no call, spend nothing")
    p.add_argument("--no-cache", action="store_true",
                   help="ask every LLM call again instead of reading the answer cache (answers are still stored)")
    p.add_argument("--judge-batch", action="store_true",
                   help="openai judges: send the calls through the OpenAI Batch API at half the price (answered within "
                        "24 h; the batch id is kept in the run folder, so a stopped run collects it when run again)")
    p.add_argument("--batch-wait", type=float, metavar="SECONDS",
                   help="with --judge-batch or --batch: stop waiting for pending batches after SECONDS (0: submit "
                        "them all and return, exit 3); the same command again collects them")


def _system_options(p: argparse.ArgumentParser) -> None:
    """The options every command that runs a system shares."""
    from .systems import SPECS  # the registry: built-in systems and any a user module registered
    from .systems.registry import options_line

    p.add_argument("--system", required=True, help=f"system spec: {', '.join(SPECS)}".replace("%", "%%"))
    p.add_argument("--dataset", default=_dataset_default(), help="dataset folder or Hub repo "
                                                                 f"(default {_dataset_default()})")
    p.add_argument("--split", help="split (default: each task's, test); `leaderboard`: Hessel's hidden-label sets, "
                   "written as submissions/<task>.json, not scored")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint for openai:<model> (vLLM, TGI, Ollama, ...)")
    p.add_argument("--system-option", action="append", metavar="KEY=VALUE",
                   help=f"system setting, repeatable ({options_line()}), e.g. batch_size=4 (hf: auto on CUDA), "
                        "compile=true|false, batching=continuous|static, dtype=bfloat16, mc_mode=generate; decoding "
                        "(temperature, top_p, repetition_penalty, seed, max_new_tokens) overrides the task's "
                        "paper defaults and is recorded as a deviation; trust_remote_code=true is for operators")
    p.add_argument("--task-option", action="append", metavar="TASK.KEY=VALUE",
                   help="a task's named option (see `nycc-bench tasks show TASK`), e.g. humorbench.unit=caption")
    p.add_argument("--batch", dest="system_option", action="append_const", const="batch=true",
                   help="openai: systems: send the calls through the OpenAI Batch API at half the price (the same as "
                        "--system-option batch=true; the batch id is kept in the run folder)")
    p.add_argument("--limit", type=int, help="only the first N instances of each task, in a fixed order (recorded "
                   "as the deviation 'subset: N of M instances')")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    from .cli_parser import ForgivingParser

    p = ForgivingParser(prog="nycc-bench", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build the Hub dataset repo (parquet + card) from upstream raw files")
    b.add_argument("--source", default="sample",
                   help="'sample' (embedded), 'upstream' (download the real sources) or a folder holding "
                        "upstream files under their upstream names (default: sample)")
    b.add_argument("--out", help="output folder; into an existing dataset only the configs built are added or "
                                 "replaced, the others are kept")
    b.add_argument("--configs", nargs="+", metavar="CONFIG", help="only these configs (default: all)")
    b.add_argument("--pair-rule", choices=["upstream", "distinct"], default="upstream",
                   help="preference_pairs draw: 'upstream' = Zhang et al.'s preprocess_dpo (with replacement, seed "
                        "2024, train contests 530-889); 'distinct' = unique pairs, every train contest")
    b.add_argument("--humorbench-labels", choices=["paper", "leaderboard"], default="paper",
                   help="HumorBench element categories: 'paper' = upstream's labels at 41cacd4 (Table 3); "
                        "'leaderboard' = the later labels at cc99276 (a results record lists them as a deviation)")
    b.add_argument("--replace", action="store_true",
                   help="replace configs of --out that were built from another source (refused without it)")
    b.add_argument("--dry-run", action="store_true",
                   help="with --source upstream: list the pinned sources and the files they would fetch; no download")
    b.add_argument("--quiet", action="store_true", help="no progress bars")
    b.set_defaults(func=cmd_build)

    so = sub.add_parser("sources", help="list the pinned upstream sources and the files `--source upstream` fetches")
    so.add_argument("--resolve", action="store_true",
                    help="ask GitHub and the Hub for the exact file lists (needs the network); default: the patterns")
    so.set_defaults(func=cmd_sources)

    t = sub.add_parser("tasks", help="list the tasks; `tasks show NAME [--json]` prints one task's definition")
    t.add_argument("action", nargs="?", choices=["list", "show", "check"], default="list")
    t.add_argument("name", nargs="?", help="the task to show or check (check: default every task)")
    t.add_argument("--dataset",
                   help="check: the dataset of the random run (default: the sample, built to a temp folder)")
    t.add_argument("--offline-judges", action="store_true",
                   help="check: train the offline judges on the sample so judged scores are checked too (slower)")
    t.add_argument("--json", action="store_true", help="as JSON")
    _include_path(t)
    t.set_defaults(func=cmd_tasks)

    e = sub.add_parser("evaluate", help="run and score many tasks with one system into RUN_DIR/results.json")
    _system_options(e)
    e.add_argument("--allow-incomplete", action="store_true",
                   help="exit 0 even when a task has failed items or judge errors (it is still recorded incomplete)")
    from .tasks.families import groups

    e.add_argument("--tasks", default="all", help=f"comma-separated tasks or groups: {', '.join(groups())}")
    e.add_argument("--folds", help="Hessel folds, e.g. 0,1,2,3,4 (default: every fold the dataset has)")
    e.add_argument("--out", required=True, help="run folder: results.json and predictions/ (resumable; the tasks "
                                                "not run now are kept)")
    e.add_argument("--overwrite", metavar="TASK[,TASK]",
                   help="replace these tasks' predictions and results in --out (needed when they were made by "
                        "another system, endpoint, checkpoint or code version)")
    _judge_options(e)
    _include_path(e)
    from .publish.push_cli import add_push_parser, add_push_to_hub

    add_push_to_hub(e)
    add_push_parser(sub)
    e.set_defaults(func=cmd_evaluate)

    sm = sub.add_parser("submission", help="Hessel leaderboard submissions: `check FILE`, `from-responses FILE.jsonl`")
    sm.add_argument("action", choices=["check", "from-responses"])
    sm.add_argument("file", help="a submission JSON {instance_id: letter}, or replies JSONL {instance_id, response}")
    from .submission import BOARDS

    sm.add_argument("--task", choices=list(BOARDS), default=next(iter(BOARDS)), help="which leaderboard")
    sm.add_argument("--dataset", help="a built dataset with the leaderboard config: check the complete id set")
    sm.add_argument("--parser", choices=["litellm", "gpt4v"], default="litellm",
                    help="from-responses: upstream's answer reader: litellm (lite_llm_leaderboard) or gpt4v (Hessel's "
                         "\"Answer: X\"); on the GPT-4V replies they differ on 119 of 830")
    sm.add_argument("--out", help="from-responses: where to write the submission (default: FILE.submission.json)")
    sm.set_defaults(func=cmd_submission)

    r = sub.add_parser("run", help="run a system on one task; writes predictions JSONL (resumable)")
    _system_options(r)
    r.add_argument("--task", required=True, help="a task name (`nycc-bench tasks`)")
    r.add_argument("--out", required=True, help="predictions file (JSONL); an existing one is resumed")
    r.add_argument("--fold", type=int, default=0, help="cross-validation fold 0..4 of the Hessel tasks")
    r.add_argument("--shots", type=int, default=None,
                   help="the task option shots: in-context examples from train (Hessel, from description)")
    r.add_argument("--seed", type=int, default=None, help="the task option seed: seed of the shots' draw")
    r.add_argument("--no-cache", action="store_true", help="ask every LLM call again instead of reading the cache")
    r.set_defaults(func=cmd_run)

    s = sub.add_parser("score", help="score one task's predictions (JSON on the last line)")
    s.add_argument("--task", required=True, help="a task name (`nycc-bench tasks`)")
    s.add_argument("--predictions", required=True, nargs="+", metavar="FILE",
                   help="runner JSONL or Hessel-style JSON ({instance_id: letter}); one file per --fold")
    s.add_argument("--fold", type=int, nargs="+", help="the fold of each predictions file (averaged as Hessel does)")
    s.add_argument("--dataset", default=_dataset_default(), help="dataset folder or Hub repo")
    s.add_argument("--split", help="split (default: the task's, test)")
    s.add_argument("--protocol", choices=["overall", "best_pick"], help="Zhang group comparison protocol")
    s.add_argument("--task-option", action="append", metavar="TASK.KEY=VALUE", help="a task's scoring option")
    s.add_argument("--last-k-tokens", type=int, help="HumorBench: grade only the last k tokens of an explanation")
    s.add_argument("--out", help="also write the result JSON here (folders are created)")
    _judge_options(s)
    _include_path(s)
    s.set_defaults(func=cmd_score)

    j = sub.add_parser("reliability", help="Zhang's judge-reliability check (Table 2): top 10 vs #1000-1009")
    j.add_argument("--dataset", default=_dataset_default(), help="dataset folder or Hub repo")
    j.add_argument("--protocol", choices=["overall", "best_pick"], default="overall", help="group protocol")
    j.add_argument("--n-contests", type=int, default=100, help="contests, each judged in both orders (paper: 100)")
    j.add_argument("--no-vision", action="store_true", help="Best Pick without the cartoon (the paper shows it)")
    j.add_argument("--rule", help="how a reply is read (default: upstream's; Overall zhang_top2 or letters_topk, "
                                  "Best Pick exact_letter, last_char or last_letter)")
    _judge_options(j, required=True)
    j.set_defaults(func=cmd_reliability)

    w = sub.add_parser("reward", help="offline judges: train/evaluate the humor reward model, train the grader")
    w.add_argument("action", choices=["train", "evaluate", "train-grader"],
                   help="train: fit on caption_ratings train contests; evaluate: Zhang's reliability protocol and "
                        "pairwise checks on held-out contests; train-grader: fit the HumorBench element grader")
    w.add_argument("--dataset", default=_dataset_default(), help="dataset folder or Hub repo (train, evaluate)")
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
    _include_path(lb)
    lb.set_defaults(func=cmd_leaderboard)

    c = sub.add_parser("cards", help="model cards from results records (optionally evaluating the baselines)")
    c.add_argument("--results", required=True, help="folder of results records (*.json)")
    c.add_argument("--out", required=True, help="where <slug>/README.md cards go")
    c.add_argument("--systems", nargs="*", help="evaluate these systems first (e.g. random length), into --results")
    c.add_argument("--source", default="sample", help="data for --systems: sample, upstream or a folder")
    c.add_argument("--work", help="keep the dataset and runs of --systems here (default: a temporary folder)")
    c.set_defaults(func=cmd_cards)

    sd = sub.add_parser("seed", help="regenerate the leaderboard's seed results (baselines on the sample)")
    sd.add_argument("--out", help="seed folder (default: the package's leaderboard/seed)")
    sd.set_defaults(func=cmd_seed)

    from .novelty.cli import add_novelty_parser

    add_novelty_parser(sub)
    from .lmeval.cli import add_lmeval_parsers
    from .show import add_show_parser

    add_lmeval_parsers(sub)
    add_show_parser(sub)
    from .viewer.cli import add_view_parser

    add_view_parser(sub)
    from .arena.cli import add_arena_parsers

    add_arena_parsers(sub, _judge_options)

    from .reproducing.command import add_reproduce_parser

    add_reproduce_parser(sub)

    d = sub.add_parser("demo", help="run the main job on the embedded sample")
    d.add_argument("--out", default="out/demo", help="output folder (default: out/demo)")
    d.add_argument("--quiet", action="store_true", help="no progress bars")
    d.set_defaults(func=cmd_demo)

    pb = sub.add_parser("publish", help="stage and push to the Hub (upload.py; `publish --help` for options)",
                        add_help=False)
    pb.add_argument("rest", nargs=argparse.REMAINDER)
    pb.set_defaults(func=cmd_publish)
    from .cache_command import add_parser as add_cache_parser

    add_cache_parser(sub)
    return p


def family_main(family: str, argv: list[str] | None = None) -> int:
    """`dataset_scripts/<family>.py`: `nycc-bench build` restricted to one family's configs."""
    from .builders import ALL_CONFIGS

    configs = [name for name, key in ALL_CONFIGS.items() if key == family]
    args = list(sys.argv[1:] if argv is None else argv)
    return main(["build", *args, "--configs", *configs])


def main(argv: list[str] | None = None) -> int:
    """Entry point: bad input ends with one clear line on stderr and exit status 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["publish"]:  # upload.py's own parser takes every option that follows
        from .publish.cli import main as publish

        return publish(argv[1:])
    from .secrets import hold_argv, scrub_logs

    hold_argv(argv)  # an --api-key value and URL passwords or keys never echo back (stderr, logs, files)
    scrub_logs()
    args = parser().parse_args(argv)
    if getattr(args, "quiet", False):
        import datasets

        datasets.disable_progress_bars()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from .cache_command import cache_reads

    try:
        with _outside_tasks(args), _quiet(args), cache_reads(not getattr(args, "no_cache", False)):
            return args.func(args)
    except DryRun as stop:
        print(stop)
        estimate = stop.estimate
        print(json.dumps({"dry_run": estimate.to_dict() if hasattr(estimate, "to_dict") else str(estimate)}))
        return 0
    except BatchPending as pending:  # not an error: the batch is being answered; the same command collects it
        print(f"nycc-bench {args.command}: {_one_line(pending)}", file=sys.stderr)
        return 3
    except NyccBenchError as err:
        print(f"nycc-bench {args.command}: error: {_one_line(err)}", file=sys.stderr)
        return 2
    except ValueError as err:  # a library's bad-input error (datasets, evaluate): still one line
        print(f"nycc-bench {args.command}: error: {_one_line(err)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `nycc-bench tasks show X | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print(f"nycc-bench {args.command}: interrupted; re-run the same command to resume", file=sys.stderr)
        return 130


@contextlib.contextmanager
def _quiet(args: argparse.Namespace) -> Iterator[None]:
    """With --quiet, none of nycc-bench's own step and byte bars while the command runs."""
    if not getattr(args, "quiet", False):
        yield
        return
    from .progress import quiet

    with quiet():
        yield


def _one_line(err: BaseException) -> str:
    """An error message on one line (a multi-line message keeps its first line and says how many follow)."""
    from .secrets import scrub

    lines = scrub(str(err)).strip().splitlines() or [type(err).__name__]
    return lines[0] if len(lines) == 1 else f"{lines[0]} (+{len(lines) - 1} lines: " + " | ".join(lines[1:4]) + ")"


if __name__ == "__main__":
    sys.exit(main())
