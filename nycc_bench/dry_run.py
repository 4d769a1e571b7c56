"""`nycc-bench evaluate --dry-run` (`evaluate(..., dry_run=True)`): what a run would still call and cost, making no
call at all, system or judge, and writing nothing.

Per task it counts the items the system still has to answer (after what the run folder's predictions already
hold, the resume state) and, for an API system, the calls still needed after the answer cache, with estimated
tokens (about 4 characters a token) and cost; then the judge's calls for the whole task the same way (items not
answered yet are stood in for by a placeholder answer of `PLACEHOLDER_WORDS` words each, so the judge's prompts
have about the size they will have). Costs come from the price table (`llm.pricing`, with its source and date);
a model the table does not hold says "price unknown", never $0. A local model costs no API money.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from .errors import DryRun, NyccBenchError
from .judging import ResolvedJudge
from .kinds import Instance
from .kinds.instances import DEFAULT_DATASET, LEADERBOARD_SPLIT, build_instances, subset
from .llm.pricing import PRICE_TABLE_DATE, PRICE_TABLE_SOURCE, PRICE_UNKNOWN
from .preflight import Check, preflight, problems
from .run_folder import available_folds, identity_difference, predictions_path
from .task_judge import JudgeArg, judges_for, resolve_task_judge
from .tasks import Task, config_name, get_task, resolve_tasks
from .tasks.path import IncludePath
from .tasks.registry import with_include_path

PLACEHOLDER_WORDS = 60
"""The length of the stand-in answer of an item not answered yet, in words (a caption list has this per caption
line divided by the count): the judge's estimate is only as good as this guess."""


@dataclass
class Stage:
    """One stage of a task (the system answering, the judge scoring): calls still needed and their cost."""

    stage: str  # "system" or "judge"
    who: str
    calls: int = 0  # calls still to make after the cache and the resume state
    cached: int = 0  # answers the cache already holds
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0  # None: price unknown
    max_cost_usd: float | None = 0.0  # if every reply used its whole max_tokens
    note: str = ""

    def __str__(self) -> str:
        if self.note and not self.calls and not self.cached:
            return f"{self.stage} {self.who}: {self.note}"
        cost = PRICE_UNKNOWN if self.cost_usd is None else (
            f"≈ ${self.cost_usd:.4f} (at most ${self.max_cost_usd:.4f})" if self.max_cost_usd is not None
            else f"≈ ${self.cost_usd:.4f}")
        return (f"{self.stage} {self.who}: {self.calls} calls ({self.cached} cached), ≈ {self.prompt_tokens} input "
                f"+ {self.completion_tokens} output tokens, {cost}" + (f"; {self.note}" if self.note else ""))


@dataclass
class TaskPlan:
    """One task's plan: its items, how many are already answered, and its stages."""

    task: str
    items: int
    answered: int
    stages: list[Stage] = field(default_factory=list)
    note: str = ""

    def __str__(self) -> str:
        head = f"{self.task}: {self.items} items, {self.answered} already answered"
        return "\n".join([head + (f" ({self.note})" if self.note else ""), *(f"  {s}" for s in self.stages)])


@dataclass
class Plan:
    """What a run would still do and cost; nothing was called or written to make it."""

    tasks: list[TaskPlan]
    price_source: str = PRICE_TABLE_SOURCE
    price_date: str = PRICE_TABLE_DATE
    checks: list[Check] = field(default_factory=list)  # the preflight's (`preflight.py`), as a run would see them

    @property
    def problems(self) -> list[str]:
        """The preflight's problems: a run would stop on them (the plan then holds no task)."""
        return problems(self.checks)

    @property
    def calls(self) -> int:
        """Calls still needed, every task and stage."""
        return sum(s.calls for t in self.tasks for s in t.stages)

    @property
    def cost_usd(self) -> float | None:
        """The estimated total; None when any stage's price is unknown."""
        costs = [s.cost_usd for t in self.tasks for s in t.stages]
        return None if any(c is None for c in costs) else float(sum(c for c in costs if c is not None))

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "calls": self.calls, "cost_usd": self.cost_usd}

    def __str__(self) -> str:
        total = PRICE_UNKNOWN if self.cost_usd is None else f"≈ ${self.cost_usd:.4f}"
        return "\n".join([f"dry run: nothing was called or written. Prices: {self.price_source}, as of "
                          f"{self.price_date}; tokens are estimates (≈4 characters a token).",
                          *(str(c) for c in self.checks),
                          *([f"{len(self.problems)} problem(s): the run would stop before its first call"]
                            if self.problems else []),
                          *(str(t) for t in self.tasks),
                          f"total: {self.calls} calls still needed, {total}"])


def _estimate_stage(stage: str, who: str, jobs: list[Any], config: Any, note: str = "") -> Stage:
    """A stage from the engine's dry run of its jobs (cache-aware, no call)."""
    from .llm import LLMEngine

    engine = LLMEngine(config)
    try:
        estimate = engine.estimate(jobs)
    finally:
        engine.close()
    return Stage(stage, who, estimate.n_calls, estimate.n_cached, estimate.prompt_tokens, estimate.completion_tokens,
                 estimate.cost_usd, estimate.max_cost_usd, note)


def _placeholder(task: Task, inst: Instance) -> Any:
    """A stand-in prediction for an item not answered yet, read by the task's own parser."""
    from .kinds import parsers

    if task.kind == "choice":
        return inst.letters[0] if inst.letters else "A"
    count = task.outputs.count
    words = " ".join(["word"] * max(1, PLACEHOLDER_WORDS // count))
    raw = "\n".join(f"{k}. {words}" for k in range(1, count + 1)) if task.outputs.format == "numbered" else words
    return parsers()[task.parser](raw, inst.letters)


class _Spec:
    """What `for_system_kind` reads of a system that is not built (a local model is never loaded for a plan)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec


@with_include_path
def plan_run(system: Any, tasks: str | Sequence[str] = "all", dataset: str = DEFAULT_DATASET,
             judge: JudgeArg | Mapping[str, JudgeArg] = None, folds: Sequence[int] | None = None,
             split: str | None = None, out: str | Path = "runs/run", limit: int | None = None, *,
             base_url: str | None = None, task_options: Mapping[str, Mapping[str, Any]] | None = None,
             include_path: IncludePath = None, **system_options: Any) -> Plan:
    """The plan of `evaluate` with the same arguments (see the module docstring): no call, nothing written."""
    from .predictions import FAILED, read_meta, read_predictions
    from .runner import choose_task_options, for_system_kind
    from .systems import System, make_system
    from .systems.registry import lookup

    names = resolve_tasks(tasks if isinstance(tasks, str) else list(tasks))
    _aliased, chosen = choose_task_options(names, system_options, task_options)
    # each task's judge resolved once, as `evaluate` resolves it, in dry-run mode: its calls are counted, not made
    judges = {n: resolve_task_judge(get_task(n), replace(j, dry_run=True) if j is not None else None, chosen[n])
              for n, j in judges_for(judge, names).items()}
    spec = system.spec if isinstance(system, System) else str(system)
    api = hasattr(system, "jobs") if isinstance(system, System) else spec.partition(":")[0] == "openai"
    found: list[str] = []
    try:  # an API system or a baseline is built (no weights load); a local model never is, for a plan
        sys_obj = system if isinstance(system, System) else (
            make_system(spec, dataset, base_url=base_url, **system_options) if api or lookup(spec).baseline
            else _Spec(spec))
    except ValueError as err:
        sys_obj, found = _Spec(spec), [str(err)]
    out = Path(out)
    checks = [Check("system", spec, found[0] if found else None),
              *preflight(names, dataset, sys_obj if isinstance(sys_obj, System) else None, judges, folds, split,
                         out, limit)]
    if problems(c for c in checks if c.what not in ("credentials", "disk")):  # what the plan itself needs
        return Plan([], checks=checks)
    plans = []
    for name in names:
        task = get_task(name)
        options = task.run_options(task.option_values(chosen[name]))
        task, options = for_system_kind(task, sys_obj, options)  # type: ignore[arg-type]
        run_split = split or task.split
        run_folds = [0] if split == LEADERBOARD_SPLIT else available_folds(name, dataset, folds)
        items, answered, todo_all = 0, 0, []
        stages: list[Stage] = []
        per_fold: list[tuple[int, list[Instance], dict[str, Any]]] = []
        note = ""
        for fold in run_folds:
            instances = subset(build_instances(task, dataset, run_split, fold, options), limit)
            path = predictions_path(out, name, fold)
            meta = read_meta(path) if path.exists() else None
            described = sys_obj.describe() if api else {"spec": spec}  # type: ignore[union-attr]
            if meta and (difference := identity_difference(meta.get("system") or {}, described)):
                note = (f"the run would be refused: {path} holds predictions of another system ({difference}); "
                        f"pass a new --out, or --overwrite {name}")
            done = {k: r for k, r in (read_predictions(path) if path.exists() else {}).items()
                    if r["status"] != FAILED}
            todo = [i for i in instances if i.instance_id not in done]
            items, answered, todo_all = items + len(instances), answered + len(instances) - len(todo), todo_all + todo
            per_fold.append((fold, instances, done))
        if api and todo_all:
            config, jobs = sys_obj.jobs(task, todo_all)  # type: ignore[union-attr]
            stages.append(_estimate_stage("system", spec, jobs, config))
        else:
            stages.append(Stage("system", spec, note=f"{len(todo_all)} items to answer with a local model: no API "
                                                     "cost" if todo_all else "every item is answered already"))
        spec_judge = judges[name]
        if split != LEADERBOARD_SPLIT and (judging := _judge_stage(task, spec_judge, per_fold, dataset, run_split,
                                                                   options, limit, task_options, name)):
            stages.append(judging)
        plans.append(TaskPlan(name, items, answered, stages, note))
    return Plan(plans, checks=checks)


def _judge_stage(task: Task, judge: ResolvedJudge | None, per_fold: list[tuple[int, list[Instance], dict[str, Any]]],
                 dataset: str, split: str, options: Mapping[str, Any], limit: int | None,
                 task_options: Mapping[str, Mapping[str, Any]] | None, name: str) -> Stage | None:
    """The judge's calls for the whole task (placeholders for the items not answered yet), found by scoring a
    temporary copy of the predictions with the judge in dry-run mode: the same jobs a real run builds."""
    from .code_version import code_version
    from .score import score

    judged = [s for s in task.scores if s.judged]
    if not judged:
        return None
    if judge is None:
        from .wholeness import judge_flag

        return Stage("judge", "none", note=f"no judge given: {', '.join(s.label for s in judged)} will not be "
                                           f"computed (add {judge_flag(task)})")
    if not judge.is_llm:
        return Stage("judge", judge.name, note="an offline judge: no API cost")
    with tempfile.TemporaryDirectory(prefix="nycc-dry-run-") as tmp:
        files, fold_ids = [], []
        for fold, instances, done in per_fold:
            path = Path(tmp) / f"{name}_{fold}.jsonl"
            with open(path, "w", encoding="utf-8") as f:
                for inst in instances:
                    record = done.get(inst.instance_id) or {"instance_id": inst.instance_id, "status": "ok",
                                                            "prediction": _placeholder(task, inst)}
                    f.write(json.dumps({k: v for k, v in record.items() if k != "messages"}, default=str) + "\n")
            meta = {"task": task.name, "config": config_name(task, fold), "split": split, "fold": fold,
                    "dataset": str(dataset), "prompt_version": task.prompt_version, "code_version": code_version(task),
                    "options": dict(options)}
            Path(str(path) + ".meta.json").write_text(json.dumps(meta, default=str))
            files.append(path)
            fold_ids.append(fold)
        try:
            score(name, files, dataset=dataset, split=split, folds=fold_ids, judge=judge,
                  task_options=(task_options or {}).get(name), limit=limit)
        except DryRun as stop:
            estimate = stop.estimate
            return Stage("judge", judge.name, estimate.n_calls, estimate.n_cached, estimate.prompt_tokens,
                         estimate.completion_tokens, estimate.cost_usd, estimate.max_cost_usd,
                         "items not answered yet are estimated from placeholder answers" if any(
                             len(done) < len(instances) for _, instances, done in per_fold) else "")
        except NyccBenchError as err:
            return Stage("judge", judge.name, note=f"cannot be estimated ({str(err).splitlines()[0]})")
    return Stage("judge", judge.name, note="no judge call would be made")
