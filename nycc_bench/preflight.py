"""The preflight: everything a run will need, checked before the system answers anything, every problem at once.

`evaluate` (and `run`, `score`, the leaderboard's worker) call `preflight` before the first call: every dataset
config and split the tasks, the system and the judges read; every API key the system and the judges need; each
offline judge's model folder; the disk space the predictions will take. Each problem is one line naming the field
and the fix; `PreflightFailed` carries them all (the CLI prints each and exits 2), and nothing has been called or
written. `--dry-run` prints the same checks (`Check` lines) above its plan.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import NyccBenchError

DISK_MARGIN = 8_000_000
"""Bytes the disk check asks for beyond its estimate (the record, the locks, a cache's growth)."""
PER_ITEM = 16_000
"""An item's predictions on disk, about (record, reply, its share of the prompt store), where the dataset's own
size is unknown (a Hub repo)."""


@dataclass(frozen=True)
class Check:
    """One preflight check: what was checked and, when it fails, the one line that says why and the fix."""

    what: str  # dataset, credentials, judge, disk, ...
    ok: str  # what passed (shown by --dry-run)
    problem: str | None = None

    def __str__(self) -> str:
        return f"check {self.what}: {self.problem or 'ok (' + self.ok + ')'}"


class PreflightFailed(NyccBenchError):
    """A run stopped before its first call: every problem found, one line each (the CLI prints them all)."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def problems(checks: Iterable[Check]) -> list[str]:
    """The failed checks' lines, each once, in order."""
    return list(dict.fromkeys(c.problem for c in checks if c.problem))


def raise_problems(checks: Iterable[Check], extra: Sequence[str] = ()) -> None:
    """Stop the run with every problem (`extra`: problems found before the checks) when there is one."""
    if found := list(dict.fromkeys([*extra, *problems(checks)])):
        raise PreflightFailed(found)


def dataset_checks(dataset: str, reads: Mapping[tuple[str, str], list[str]]) -> list[Check]:
    """Every (config, split) the run reads, each with the tasks that read it: present in a local dataset folder
    (a Hub repo is asked when it loads)."""
    from .kinds.instances import missing_split

    root = Path(dataset)
    if not root.exists() and (dataset.startswith((".", "/", "~")) or root.suffix or len(root.parts) > 2):
        first = next(iter(reads), ("the task's config", ""))[0]
        return [Check("dataset", "", f"dataset: cannot load config {first!r} from {dataset}: it is not a folder; "
                                     f"build one with `nycc-bench build --source sample --out {dataset}` or pass "
                                     "--dataset DIR")]
    checks = []
    for (config, split), users in reads.items():
        problem = missing_split(dataset, config, split)
        checks.append(Check("dataset", f"{config}/{split}",
                            f"{problem} (read by {', '.join(dict.fromkeys(users))})" if problem else None))
    return checks


def credential_check(who: str, config: Any) -> Check:
    """An OpenAI-compatible endpoint's key: set, or not needed (a local server)."""
    if config is None or getattr(config, "backend", "openai") != "openai":
        return Check("credentials", f"{who}: none needed")
    from .llm.backends.openai_backend import missing_key

    problem = missing_key(config)
    return Check("credentials", f"{who}: key found or not needed", f"{who}: {problem}" if problem else None)


def offline_judge_check(task: str, judge: Any) -> Check:
    """An offline judge's model: the sample's (trained on first use), an existing folder, or a Hub id (asked when
    it loads); a path that names no folder is a problem."""
    model = str(judge.model)
    if model == "sample" or Path(model).expanduser().is_dir():
        return Check("judge", f"{task}: {judge.name}")
    looks_like_path = model.startswith((".", "/", "~")) or model.count("/") != 1
    return Check("judge", f"{task}: {judge.name} (a Hub model, asked when it loads)",
                 f"judge: {judge.name} ({task}): no model folder {model}; train one with `nycc-bench reward train`, "
                 f"or pass {judge.backend}:sample or a folder that holds one" if looks_like_path else None)


def disk_check(out: Path, need: int) -> Check:
    """Free space where `out` will be written: at least `need` bytes."""
    where = out
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free
    problem = None if free >= need else (f"disk: {where} has {free / 1e6:.1f} MB free and the run needs about "
                                         f"{need / 1e6:.1f} MB; free some space or pass another --out")
    return Check("disk", f"{free / 1e9:.1f} GB free, about {need / 1e6:.0f} MB needed", problem)


def task_reads(task: Any, folds: Sequence[int], split: str | None) -> list[tuple[str, str]]:
    """The (config, split) pairs a task's own instances read."""
    from .kinds.instances import LEADERBOARD_SPLIT, leaderboard_set
    from .tasks import config_name

    if split == LEADERBOARD_SPLIT:
        return [leaderboard_set(task, f) for f in folds]
    return [(config_name(task, f), split or task.split) for f in folds]


def preflight(names: Sequence[str], dataset: str, system: Any, judges: Mapping[str, Any], folds: Sequence[int] | None,
              split: str | None, out: Path | None, limit: int | None) -> list[Check]:
    """Every check of a run of `system` (a built `System`, or None when it is not built: a model is never loaded
    for a check) on `names` with each task's resolved judge (see the module docstring)."""
    from .run_folder import available_folds
    from .tasks import get_task

    reads: dict[tuple[str, str], list[str]] = {}
    checks: list[Check] = []
    items = 0
    for name in names:
        task = get_task(name)
        try:
            run_folds = [0] if split == "leaderboard" else available_folds(name, dataset, folds)
            for pair in task_reads(task, run_folds, split):
                reads.setdefault(pair, []).append(name)
        except NyccBenchError as err:
            checks.append(Check("dataset", "", str(err)))
            continue
        items += (limit or 1000) * len(run_folds)
        answers = system is not None and type(system).can_answer(task)
        for pair in system.reads(task) if answers else []:
            reads.setdefault(pair, []).append(f"{name} ({system.spec})")
        if answers and callable(config := getattr(system, "config", None)):
            checks.append(credential_check(f"system {system.spec}", config(task)))
        judge = judges.get(name)
        if judge is not None and any(s.judged for s in task.scores):
            checks.append(credential_check(f"judge {judge.name}", judge.config) if judge.is_llm
                          else offline_judge_check(name, judge))
    checks = dataset_checks(dataset, reads) + checks
    if out is not None:
        checks.append(disk_check(out, predictions_bytes(dataset, [pair for pair, users in reads.items()
                                                                   if any(u in names for u in users)], items)))
    return checks


def predictions_bytes(dataset: str, reads: list[tuple[str, str]], items: int) -> int:
    """What a run's predictions may take: twice the parquet files of the splits its tasks read (the prompts and
    replies are about their size), or PER_ITEM an item for a dataset that is not a local folder; and a margin."""
    root = Path(dataset) / "data"
    if not root.is_dir():
        return items * PER_ITEM + DISK_MARGIN
    files = [f for config, split in reads for part in split.split("+") for f in (root / config).glob(f"{part}-*")]
    return 2 * sum(f.stat().st_size for f in files) + DISK_MARGIN


def check_judged_run(tasks: Sequence[str], dataset: str, judge: Any, folds: Sequence[int] | None = None,
                     split: str | None = None, out: Path | None = None, limit: int | None = None,
                     system: Any = None) -> None:
    """Stop with every problem of a run whose system is not built yet (the leaderboard's worker, before a model
    loads) or that has no system (`score`): its tasks' judges resolved (`judge`: one for all, or task -> judge),
    then `preflight`."""
    from .task_judge import judges_for, resolve_task_judge
    from .tasks import get_task, resolve_tasks

    names = resolve_tasks(list(tasks))
    found, judges = [], {}
    for name, given in judges_for(judge, names).items():
        try:
            judges[name] = resolve_task_judge(get_task(name), given)
        except NyccBenchError as err:
            found.append(str(err))
    raise_problems(preflight(names, dataset, system, judges, folds, split, out, limit), found)
