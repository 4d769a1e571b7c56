"""The options several commands share (`--include-path`, the judge's, the system's) and the readers of their
values: one home, so every command spells and parses them the same way."""

from __future__ import annotations

import argparse
import difflib
import json
import re
from pathlib import Path
from typing import Any

from ..errors import NyccBenchError


def include_path(p: argparse.ArgumentParser) -> None:
    """`--include-path DIR` (repeatable): task folders outside the package, beside NYCC_BENCH_TASK_PATH."""
    p.add_argument("--include-path", action="append", metavar="DIR",
                   help="a folder of outside tasks (<family>/<task>.yaml, prompt files, optional kinds.py); repeatable")


def dataset_default() -> str:
    """The dataset a command reads by default (`NYCC_DATASET`, else the Hub repo; see `kinds.instances`)."""
    from ..kinds.instances import DEFAULT_DATASET

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
    """The --judge options as a spec; keys are never options, they come from the environment. A repeatable
    `--judge` (evaluate) gives a mapping task -> spec when any value is `TASK=SPEC` (a plain SPEC is every other
    task's judge)."""
    given = getattr(args, "judge", None)
    if not given:
        return None
    from ..judging import JudgeSpec

    def parse(spec: str) -> Any:
        return JudgeSpec.parse(spec, base_url=args.judge_base_url, cache_dir=args.cache_dir,
                               max_concurrency=args.max_concurrency,
                               dry_run=getattr(args, "dry_run", False) if dry_run is None else dry_run,
                               timeout_s=args.judge_timeout, batch=args.judge_batch, batch_wait_s=args.batch_wait)

    if isinstance(given, str):
        return parse(given)
    plain = [value for value in given if task_of(value) is None]
    if len(plain) > 1:
        raise NyccBenchError(f"judge: {len(plain)} judges for every task ({', '.join(plain)}); give one --judge SPEC "
                             "and the others as --judge TASK=SPEC")
    per_task: dict[str, str] = {}
    for value in given:
        if (task := task_of(value)) is not None:
            if task in per_task:
                raise NyccBenchError(f"judge: two judges for {task} ({per_task[task]}, {value.partition('=')[2]}); "
                                     f"give one --judge {task}=SPEC")
            per_task[task] = value.partition("=")[2]
    default = parse(plain[0]) if plain else None
    if not per_task:
        return default
    from ..tasks import resolve_tasks

    names = resolve_tasks(args.tasks)
    if unknown := [t for t in per_task if t not in names]:
        near = difflib.get_close_matches(unknown[0], names, n=1)
        raise NyccBenchError(f"judge: {unknown[0]!r} is not a task run ({', '.join(names)}); --judge TASK=SPEC names "
                             + (f"one of them: did you mean {near[0]}={per_task[unknown[0]]}?" if near else
                                "one of them, or add the task to --tasks"))
    return {name: parse(per_task[name]) if name in per_task else default for name in names}


def task_of(value: str) -> str | None:
    """The task of a `--judge TASK=SPEC` value, or None for a plain SPEC (a configuration name, backend:model, or
    a path, which may hold `=` after a `/` or `:`)."""
    task, sep, spec = value.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z0-9_.-]*", task):
        return None
    if not task or not spec:
        raise NyccBenchError(f"judge: expected SPEC or TASK=SPEC (e.g. humorbench=embedding:DIR), got {value!r}")
    return task


def judge_options(p: argparse.ArgumentParser, required: bool = False, per_task: bool = False) -> None:
    """The options every judged command shares (`per_task`: `--judge` repeats, `TASK=SPEC` for one task)."""
    shipped = sorted(path.stem for path in (Path(__file__).parents[1] / "judges").glob("*.yaml"))  # no import
    p.add_argument("--judge", required=required, metavar="SPEC", action="append" if per_task else "store",
                   help=f"a judge configuration ({', '.join(shipped)}; a NYCC_BENCH_JUDGE_PATH folder's, "
                        "or a .yaml path), openai:MODEL, transformers:PATH, reward:PATH (offline humor reward "
                        "model) or embedding:PATH (offline HumorBench grader); API keys come from OPENAI_API_KEY"
                        + ("; repeatable: TASK=SPEC gives one task its own judge (e.g. humorbench=embedding:DIR), "
                           "a plain SPEC judges the other tasks" if per_task else ""))
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


def system_options(p: argparse.ArgumentParser, system_required: bool = True) -> None:
    """The options every command that runs a system shares (`--system` optional where another option stands in
    for it: `evaluate --judge-only`)."""
    from ..systems import SPECS  # the registry: built-in systems and any a user module registered
    from ..systems.registry import options_line

    p.add_argument("--system", required=system_required, help=f"system spec: {', '.join(SPECS)}".replace("%", "%%"))
    p.add_argument("--dataset", default=dataset_default(), help="dataset folder or Hub repo "
                                                                f"(default {dataset_default()})")
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
    p.add_argument("--limit", type=int, help="only the first N instances of each task and fold (per fold: a task "
                   "of two folds runs 2N), in a fixed order (recorded as the deviation 'subset: N of M instances')")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
