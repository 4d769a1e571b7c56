"""`nycc_bench.evaluate`: run and score every task with one system, into one traceable results record.

    from nycc_bench import evaluate
    run = evaluate(system="random", tasks=["matching", "humorbench"], dataset="out/dataset",
                   judge="embedding:judges/grader", out="runs/random")
    run.scores["matching"]["accuracy"]   # {"value": ..., "ci_low": ..., "ci_high": ..., "n": ...}

`out` holds `results.json` and `predictions/<task>[_fold<k>].jsonl`; the same call again resumes (answers only
what is missing, retries what failed; LLM judges answer from their cache). The CLI's `nycc-bench evaluate`, the
demo, the leaderboard worker and seed, and the model cards all run through here.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__
from .errors import BatchPending, JudgeRequired, NyccBenchError
from .judging import JudgeSpec, ResolvedJudge
from .kinds.check import check_task
from .kinds.instances import DEFAULT_DATASET, LEADERBOARD_SPLIT
from .kinds.registry import exit_error
from .predictions import write_judged
from .provenance import dataset_record, environment, git_commit, model_record
from .results import SCHEMA, read_results, validate_results, write_results
from .run_folder import (
    available_folds,
    check_previous,
    merged,
    predictions_path,
    previous_record,
    remove_task,
)
from .run_folder import (
    judged as was_judged,
)
from .run_lock import locks_out
from .submission import write_from_predictions
from .systems import System, SystemCannotAnswer, make_system
from .task_judge import JudgeArg, judge_words, judges_for, resolve_task_judge
from .tasks import config_name, get_task, resolve_tasks
from .tasks.path import IncludePath, task_path
from .tasks.registry import with_include_path
from .urls import redact_url
from .wholeness import INCOMPLETE, NO_JUDGE, judge_flag, judge_status

log = logging.getLogger("nycc_bench")


@dataclass
class RunResult:
    """One system's results record, with shortcuts to its scores."""

    record: dict[str, Any]
    path: Path | None = None

    @property
    def incomplete(self) -> dict[str, str]:
        """task -> why it is incomplete (failed items, judge errors, missing scores); empty when all are complete."""
        return {t: e.get("status_reason") or INCOMPLETE for t, e in self.record["tasks"].items()
                if e.get("status") == INCOMPLETE}

    @property
    def no_judge(self) -> dict[str, str]:
        """task -> which judged scores were not computed for want of a judge, and the flag to add."""
        return {t: e.get("status_reason") or NO_JUDGE for t, e in self.record["tasks"].items()
                if e.get("status") == NO_JUDGE}

    @property
    def scores(self) -> dict[str, dict[str, dict[str, Any]]]:
        """task -> score -> {value, ci_low, ci_high, n}."""
        return {t: e["scores"] for t, e in self.record["tasks"].items()}

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data."""
        return self.record

    def to_pandas(self) -> Any:
        """One row per score (the run and its folder, task, score, label, value, ci_low, ci_high, n, status and
        what made it), for comparing runs in a dataframe: `pd.concat([load_results(d).to_pandas() for d in dirs])`
        (`run`: the leaderboard's run id, else the run folder's name)."""
        import pandas as pd

        from .results import run_id
        from .tasks import get_task

        model, dataset = self.record.get("model") or {}, self.record.get("dataset") or {}
        folder = str(self.path.parent) if self.path is not None else None
        run = run_id(self.record) or (self.path.parent.name if self.path is not None else None) or \
            f"{model.get('spec')}@{self.record.get('created_at')}"
        rows = []
        for task, entry in self.record["tasks"].items():
            try:
                labels = {s.key: s.label for s in get_task(task).scores}
            except NyccBenchError:  # a task of a folder not on the include path now
                labels = {}
            config = entry.get("config") or {}
            for key, value in entry["scores"].items():
                rows.append({"run": run, "folder": folder, "task": task, "score": key, "label": labels.get(key, key),
                             "value": value.get("value"),
                             "ci_low": value.get("ci_low"), "ci_high": value.get("ci_high"), "n": value.get("n"),
                             "status": entry.get("status"), "n_unparsed": entry.get("n_unparsed"),
                             "n_failed": entry.get("n_failed"), "model": model.get("name"),
                             "system": model.get("spec"), "revision": model.get("revision"),
                             "prompt_version": config.get("prompt_version"),
                             "dataset_fingerprint": dataset.get("fingerprint"),
                             "deviations": len(config.get("deviations") or []),
                             "created_at": self.record.get("created_at")})
        columns = ["run", "folder", "task", "score", "label", "value", "ci_low", "ci_high", "n", "status",
                   "n_unparsed", "n_failed", "model", "system", "revision", "prompt_version", "dataset_fingerprint",
                   "deviations", "created_at"]
        return pd.DataFrame(rows, columns=columns)

    def save(self, path: str | Path | None = None) -> Path:
        """Write the record (validated, atomically) to `path` or where it came from."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise NyccBenchError("path: this result has no file yet; pass save(path)")
        self.path = write_results(target, self.record)
        return self.path


def load_results(path: str | Path) -> RunResult:
    """A results record (a `results.json` or its run folder), upgraded from older schemas and validated."""
    path = Path(path)
    return RunResult(read_results(path), path / "results.json" if path.is_dir() else path)


def _command(system: str, tasks: Sequence[str], dataset: str, judges: Mapping[str, ResolvedJudge | None],
             folds: Sequence[int] | None, split: str | None, limit: int | None, options: Mapping[str, Any], out: Path,
             base_url: str | None = None, include_path: Sequence[Path] = ()) -> str:
    """The `nycc-bench evaluate` line that reproduces this run, each task's judge named (endpoints without
    credentials)."""
    words = ["nycc-bench", "evaluate", "--system", system, "--tasks", ",".join(tasks), "--dataset", dataset]
    if base_url:
        words += ["--base-url", str(redact_url(base_url))]
    words += judge_words(judges, tasks)
    if folds is not None:
        words += ["--folds", ",".join(map(str, folds))]
    if split:
        words += ["--split", split]
    if limit:
        words += ["--limit", str(limit)]
    for k, v in options.items():
        words += ["--system-option", f"{k}={v}"]
    for folder in include_path:
        words += ["--include-path", str(folder)]
    return shlex.join([*words, "--out", str(out)])


def keep_batches_in(judge: JudgeSpec | None, out: Path) -> JudgeSpec | None:
    """A Batch API judge keeps its pending batch ids in the run folder (unless told another), so the next run of
    the folder collects them."""
    if judge is None or not judge.batch or judge.batch_dir is not None:
        return judge
    from dataclasses import replace

    return replace(judge, batch_dir=str(out))


def evaluate(system: str | System, tasks: str | Sequence[str] = "all", dataset: str = DEFAULT_DATASET,
             judge: JudgeArg | Mapping[str, JudgeArg] = None, folds: Sequence[int] | None = None,
             split: str | None = None, out: str | Path = "runs/run", limit: int | None = None, *,
             base_url: str | None = None, task_options: Mapping[str, Mapping[str, Any]] | None = None,
             progress: bool = True, extra: Mapping[str, Any] | None = None, model: Mapping[str, Any] | None = None,
             on_task: Callable[[str, int, int], None] | None = None, raise_errors: bool = True,
             include_path: IncludePath = None, no_cache: bool = False, dry_run: bool = False,
             overwrite: Sequence[str] = (), **system_options: Any) -> Any:
    """Run and score every task (names or groups: all, hessel, zhang, humorbench) with one system.

    `judge` is one judge for every task or a mapping task -> judge. A task the system cannot answer, or that
    cannot be scored without a judge, is listed in `skipped` with the reason (its predictions are kept).
    `folds` None runs every fold of the Hessel tasks the dataset has. With `raise_errors=False` (the
    leaderboard worker) a task that fails is recorded in `errors` and the others still run. `include_path` (a
    folder or several, beside `NYCC_BENCH_TASK_PATH`) adds the task folders outside the package.

    Into an `out` that holds an earlier run of the same system, the tasks not run now are kept; predictions made
    by another system, endpoint, served checkpoint or code version are refused unless `overwrite` names their
    task (its predictions and entry are then replaced). `no_cache` asks every LLM call again instead of reading
    the cache. `dry_run` makes no call and writes nothing: it returns the `dry_run.Plan` of what the run would
    still call and cost, per task and stage.
    """
    from .cache_command import cache_reads

    with cache_reads(not no_cache):
        if dry_run:
            from .dry_run import plan_run

            return plan_run(system, tasks, dataset, judge, folds, split, out, limit, base_url=base_url,
                            task_options=task_options, include_path=include_path, **system_options)
        return _evaluate(system, tasks, dataset, judge, folds, split, out, limit, base_url=base_url,
                         task_options=task_options, progress=progress, extra=extra, model=model, on_task=on_task,
                         raise_errors=raise_errors, include_path=include_path, overwrite=overwrite,
                         **system_options)


@locks_out  # one writer per run folder
@with_include_path  # the tasks of `include_path`'s folders are known for the whole run
def _evaluate(system: str | System, tasks: str | Sequence[str], dataset: str,
              judge: JudgeArg | Mapping[str, JudgeArg], folds: Sequence[int] | None, split: str | None,
              out: str | Path, limit: int | None, *, base_url: str | None,
              task_options: Mapping[str, Mapping[str, Any]] | None, progress: bool,
              extra: Mapping[str, Any] | None, model: Mapping[str, Any] | None,
              on_task: Callable[[str, int, int], None] | None, raise_errors: bool, include_path: IncludePath,
              overwrite: Sequence[str], **system_options: Any) -> RunResult:
    """`evaluate` holding the run folder's lock (see there)."""
    from .runner import run_task
    from .score import score

    names = resolve_tasks(tasks if isinstance(tasks, str) else list(tasks))
    out = Path(out)
    from .progress import working

    with working("preflight: the data, keys, judges and disk the run needs", enable=progress):
        aliased, chosen, judges, unresolved, sys_obj = _prepare(system, names, dataset, judge, folds, split, out,
                                                                limit, base_url, task_options, raise_errors,
                                                                system_options)
    spec = sys_obj.spec if isinstance(system, System) else system
    overwrite = resolve_tasks(list(overwrite)) if overwrite else []
    if identify := getattr(sys_obj, "identify", None):  # what the endpoint serves: recorded and compared
        identify()
    model_rec = {**model_record(sys_obj.describe()), **dict(model or {})}
    previous = previous_record(out)
    check_previous(out, previous, model_rec, dataset, overwrite)
    for name in overwrite:
        remove_task(out, name)
    entries: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    errors: dict[str, str] = {}
    if getattr(sys_obj, "batch", False) and getattr(sys_obj, "batch_dir", None) is None:
        sys_obj.batch_dir = str(out)  # a pending Batch API batch is collected by the next run of this folder
    pending: list[str] = []  # Batch API batches still answered: the other tasks go on, then the run stops
    configs: list[str] = [config_name(get_task(t), f) for t, e in (previous or {}).get("tasks", {}).items()
                          if t not in names and t not in overwrite for f in e["config"]["dataset"]["folds"]]
    notes = [f"--limit {limit}: only the first {limit} items of each task and fold were run (a task of k folds "
             f"has up to {limit}×k items, and its n says so)."] if limit else []
    for index, name in enumerate(names, 1):
        if on_task is not None:
            on_task(name, index, len(names))
        answered: list[int] = []
        if name in unresolved:  # its judge cannot play it (the leaderboard worker: the other tasks still run)
            errors[name] = unresolved[name]
            continue
        try:
            entry = _evaluate_task(name, sys_obj, spec, dataset, judges[name], folds, split, out, limit, progress,
                                   chosen[name], run_task, score, answered)
            old = (previous or {}).get("tasks", {}).get(name)
            if (old and judges[name] is None and was_judged(old) and (isinstance(entry, str) or not was_judged(entry))
                    and not sum(answered) and name not in overwrite):  # same predictions: keep their judged scores
                entry = old
                notes.append(f"{name}: kept the judged entry of the earlier run (its predictions are unchanged); "
                             "pass --judge to score it again.")
        except SystemExit as exited:  # outside code (a task folder's kinds.py) that exits is an error naming it
            err = exit_error(exited, name)
            if raise_errors:
                raise err from None
            errors[name] = f"{type(err).__name__}: {err}"[:500]
            continue
        except BatchPending as wait:
            pending.append(f"{name}: {wait}")
            continue
        except Exception as err:
            if raise_errors:
                raise
            log.exception("%s failed", name)
            errors[name] = f"{type(err).__name__}: {err}"[:500]
            continue
        if isinstance(entry, str):
            skipped[name] = entry
            continue
        entries[name] = entry
        task = get_task(name)
        configs += [config_name(task, f) for f in entry["config"]["dataset"]["folds"]]
    if pending:
        raise BatchPending(" | ".join(pending))
    if limit:
        log.warning("--limit %d: scores cover only the first %d items of each task and fold", limit, limit)
    judge_names = {n: j.describe() for n, j in judges.items() if j is not None}
    distinct = {json.dumps(j, sort_keys=True) for j in judge_names.values()}
    with working("writing the record (dataset fingerprint, environment)", enable=progress):
        return _write_record(out, previous, names, overwrite, {
            "schema": SCHEMA, "nycc_bench_version": __version__, "git_commit": git_commit(),
            "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "model": model_rec,
            "dataset": dataset_record(dataset, configs), "environment": environment(),
            "judge": (next(iter(judge_names.values())) if len(distinct) == 1 else judge_names) if judge_names
            else None,
            "tasks": entries, "skipped": skipped, "errors": errors,
            "commands": [_command(spec, names, dataset, judges, folds, split, limit,
                                  {**system_options, **aliased}, out, base_url, task_path())],
            "notes": notes,
            **({"extra": dict(extra)} if extra else {}),
        })


def _write_record(out: Path, previous: dict | None, names: list[str], overwrite: Sequence[str],
                  record: dict[str, Any]) -> RunResult:
    """The run's record merged into the folder's earlier one, validated and saved as `out/results.json`."""
    result = RunResult(validate_results(merged(previous, record, names, overwrite)))  # JSON-normal, as it reads back
    result.save(out / "results.json")
    return result


def _prepare(system: str | System, names: list[str], dataset: str, judge: JudgeArg | Mapping[str, JudgeArg],
             folds: Sequence[int] | None, split: str | None, out: Path, limit: int | None, base_url: str | None,
             task_options: Mapping[str, Mapping[str, Any]] | None, raise_errors: bool,
             system_options: dict[str, Any]) -> tuple[dict, dict, dict, dict, System]:
    """The preflight of a run: the tasks' files, options and judges, the system, then every check of `preflight`;
    every problem found is one line of one `PreflightFailed`, before anything is answered or written. Returns
    (aliased system options, each task's options, each task's judge, judges that cannot play their task (the
    worker's per-task errors), the system)."""
    from .preflight import preflight, raise_problems
    from .runner import choose_task_options

    found: list[str] = []
    if unknown := sorted(set(task_options or {}) - set(names)):
        found.append(f"task-option: {unknown[0]!r} is not among the tasks run ({', '.join(names)}); name a task "
                     f"you run: --task-option {names[0]}.KEY=VALUE")
    for name in names:
        try:
            check_task(get_task(name))
        except NyccBenchError as err:
            found.append(str(err))
    # system options that are task options (a family's `Hooks.option_aliases`) leave before the system is built
    aliased, chosen = choose_task_options(names, system_options, task_options)
    # each task's judge resolved once, before anything runs: a judge that cannot play a task fails here
    judges: dict[str, ResolvedJudge | None] = {}
    unresolved: dict[str, str] = {}
    for name, given in judges_for(judge, names).items():
        try:
            judges[name] = resolve_task_judge(get_task(name), keep_batches_in(given, out), chosen.get(name))
        except NyccBenchError as err:
            judges[name] = None
            if raise_errors:
                found.append(str(err))
            else:
                unresolved[name] = f"{type(err).__name__}: {err}"[:500]
    sys_obj: System | None = system if isinstance(system, System) else None
    if sys_obj is None:
        try:
            sys_obj = make_system(str(system), dataset, base_url=base_url, **dict(system_options))
        except ValueError as err:  # a NyccBenchError, or a system's own bad-argument error
            found.append(str(err))
    raise_problems(preflight(names, dataset, sys_obj, judges, folds, split, out, limit), found)
    assert sys_obj is not None  # a system that could not be made is a problem raised above
    return aliased, chosen, judges, unresolved, sys_obj


def _evaluate_task(name: str, system: System, spec: str, dataset: str, judge: ResolvedJudge | None,
                   folds: Sequence[int] | None, split: str | None, out: Path, limit: int | None, progress: bool,
                   options: dict[str, Any], run_task: Callable[..., Any], score: Callable[..., dict],
                   answered: list[int] | None = None) -> dict[str, Any] | str:
    """Run every fold of one task and score it; a reason string when it is skipped. `answered` receives how many
    items each fold answered (or failed) now."""
    run_folds = [0] if split == LEADERBOARD_SPLIT else available_folds(name, dataset, folds)  # one set, no folds
    files = [predictions_path(out, name, f) for f in run_folds]
    waiting = []
    try:
        for fold, path in zip(run_folds, files, strict=True):
            try:
                done = run_task(name, spec, path, dataset=dataset, split=split, fold=fold, limit=limit,
                                progress=progress, system=system, task_options=options)
            except BatchPending as wait:  # the next folds' batches are submitted too; one run collects them all
                waiting.append(str(wait))
                continue
            if answered is not None:
                answered.append(done.answered + done.failed)
    except SystemCannotAnswer as err:
        return str(err)
    if waiting:
        raise BatchPending(" | ".join(waiting))
    if split == LEADERBOARD_SPLIT:  # Hessel's hidden-label sets: a submission file instead of scores
        return write_from_predictions(name, files[0], out)
    from .progress import working

    try:
        with working(f"{name}: scoring" + (f" (judge {judge.name})" if judge else ""), enable=progress):
            entry = score(name, files, dataset=dataset, split=split, folds=run_folds, judge=judge,
                          task_options=options, limit=limit, keep_judged=True)
    except JudgeRequired:
        return f"needs a judge: add {judge_flag(get_task(name))}; the predictions are kept and can be scored later"
    judged = entry.pop("judged_items")
    for path in files:  # the judge's per-item verdicts beside the predictions (stale ones removed)
        write_judged(path, {k: {"judge": judge.name if judge else None, **v}
                            for k, v in judged.get(str(path), {}).items()})
    entry["predictions"] = [p.relative_to(out).as_posix() for p in files]
    entry.pop("task")
    entry.update(judge_status(get_task(name), entry, judge, files).fields())
    return entry
