"""`nycc-bench score`: join one task's predictions with the dataset's references and score them.

Predictions come as the runner's JSONL (with its `.meta.json` sidecar) or as Hessel's leaderboard format
(`{"<instance_id>": "A", ...}`). Predictions made for another task, split, fold or dataset are refused, naming
the mismatch; every instance of the split must have a record (a missing one is an error, never a silent skip).
Unparsed and failed items count as wrong and are reported (`n_unparsed`, `n_failed`). Nothing is written to
the predictions read. The result is one task entry of the results record (`nycc_bench.results`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .code_version import code_version
from .errors import NyccBenchError
from .judging import JudgeSpec, ResolvedJudge
from .kinds import ITEM_JUDGMENTS, Instance, hooks, scorers
from .kinds.instances import DEFAULT_DATASET, build, subset
from .predictions import FAILED, UNPARSED, read_meta, read_predictions
from .run_folder import same_dataset
from .task_judge import resolve_task_judge
from .tasks import Task, config_name, get_task
from .tasks.lookup import extract_scores
from .tasks.path import IncludePath
from .tasks.registry import with_include_path
from .urls import redact_url

log = logging.getLogger("nycc_bench")


def load_predictions(path: str | Path) -> dict[str, dict[str, Any]]:
    """instance_id -> record, from runner JSONL or a Hessel-style JSON object (read only)."""
    path = Path(path)
    if not path.exists():
        raise NyccBenchError(f"predictions: {path} does not exist; run `nycc-bench run` (or evaluate) first")
    if not _starts_with_a_record(path):  # a Hessel-style object is small: read whole
        head = path.read_text(encoding="utf-8", errors="replace").lstrip()
        if head.startswith("{") and "\n{" not in head.strip():
            try:
                data = json.loads(head)
            except json.JSONDecodeError as err:
                raise NyccBenchError(f"predictions: {path} is not JSON ({err})") from None
            if "instance_id" not in data:  # {"<id>": "A", ...}
                return {str(k): {"instance_id": str(k), "status": "ok" if v is not None else UNPARSED,
                                 "prediction": v} for k, v in data.items()}
    return check_one_run(read_predictions(path), path)


def _starts_with_a_record(path: Path) -> bool:
    """Whether the first non-blank line is a runner record (a JSON object with instance_id): then the file is
    JSONL and is streamed."""
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                try:
                    first = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return False
                return isinstance(first, dict) and "instance_id" in first
    return False


def check_one_run(records: dict[str, dict[str, Any]], path: Path) -> dict[str, dict[str, Any]]:
    """Refuse a predictions file whose records come from two systems or two prompt versions (two runs mixed)."""
    for key in ("system", "prompt_version", "nycc_bench"):
        if len(seen := sorted({str(r[key]) for r in records.values() if r.get(key) is not None})) > 1:
            raise NyccBenchError(f"predictions: {path} mixes records of {len(seen)} runs ({key} "
                                 f"{', '.join(map(repr, seen[:3]))}); score each run's own file (run them into "
                                 "separate --out folders)")
    return records


def check_meta(meta: Mapping[str, Any] | None, task: Task, config: str, split: str, dataset: str,
               path: str | Path) -> None:
    """Refuse predictions whose sidecar names another task, config (fold), split or dataset."""
    if meta is None:
        return
    expected = {"task": task.name, "config": config, "split": split}
    for key, value in expected.items():
        if meta.get(key) != value:
            raise NyccBenchError(f"predictions: {path} was made for {key} {meta.get(key)!r}, not {value!r}; "
                                 f"score it with --{'task' if key == 'task' else key} {meta.get(key)}"
                                 if key != "config" else
                                 f"predictions: {path} was made for config {meta.get(key)!r}, not {value!r}; "
                                 "check --fold")
    if not same_dataset(str(meta.get("dataset")), dataset):
        raise NyccBenchError(f"predictions: {path} was made on dataset {meta.get('dataset')!r}, not {dataset!r}; "
                             "pass the same --dataset")
    if meta.get("prompt_version") != task.prompt_version:
        raise NyccBenchError(f"predictions: {path} was made with prompt {meta.get('prompt_version')!r}, but "
                             f"{task.name} now uses {task.prompt_version!r}; re-run the task")
    if meta.get("code_version") != (now := code_version(task)):
        raise NyccBenchError(f"predictions: {path} was made with code_version {meta.get('code_version')!r}, but "
                             f"{task.name}'s builder, parser, scorer and judge code is now {now!r}; re-run the task "
                             "into a new --out")


def _join(task: Task, instances: list[Instance], records: dict[str, dict[str, Any]], path: str,
          limited: bool = False) -> list[dict]:
    """Records in instance order; missing or foreign ids are errors that name a few of them (with a limit, the
    predictions may hold more than the first instances)."""
    ids = [i.instance_id for i in instances]
    if missing := [i for i in ids if i not in records]:
        raise NyccBenchError(f"predictions: {path} has no prediction for {len(missing)} of {len(ids)} {task.name} "
                             f"instances (e.g. {', '.join(missing[:3])}); finish the run (`nycc-bench run` resumes)")
    if not limited and (extra := sorted(set(records) - set(ids))):
        raise NyccBenchError(f"predictions: {path} has {len(extra)} ids that are not in this split (e.g. "
                             f"{', '.join(extra[:3])}); predictions of another task, split or fold")
    return [records[i] for i in ids]


def _count_errors(details: Any) -> int:
    """Judge ERROR verdicts anywhere in a metric's output (`n_error` keys, summed)."""
    if isinstance(details, Mapping):
        return sum(v if k == "n_error" and isinstance(v, int) else _count_errors(v) for k, v in details.items())
    return 0


@with_include_path
def score(task_name: str, prediction_files: Sequence[str | Path], dataset: str = DEFAULT_DATASET,
          split: str | None = None, folds: Sequence[int] | None = None,
          judge: JudgeSpec | ResolvedJudge | None = None,
          task_options: Mapping[str, Any] | None = None, last_k_tokens: int | None = None,
          limit: int | None = None, *, include_path: IncludePath = None, keep_judged: bool = False,
          covered_only: bool = False) -> dict[str, Any]:
    """Score one task: one predictions file per fold (`folds` lists them; Hessel's folds are averaged);
    `include_path` adds task folders outside the package; `keep_judged` adds the judge's per-item verdicts as
    `judged_items` (predictions file -> instance id -> verdicts), which `evaluate` keeps beside the predictions.
    `covered_only`: score only the dataset's items the predictions answer (a published run, whose authors
    published outputs for some items): the coverage is then partial, decided by the one wholeness rule."""
    task = get_task(task_name)
    split = split or task.split
    folds = list(folds) if folds is not None else [0] * len(prediction_files)
    if len(folds) != len(prediction_files):
        raise NyccBenchError(f"fold: {len(prediction_files)} predictions files need as many folds, got {len(folds)}")
    if len(set(folds)) != len(folds):
        raise NyccBenchError(f"fold: each fold once, got {folds}")
    if last_k_tokens is not None and "last_k_tokens" in task.options:  # the task's option, so it is recorded
        task_options = {**(task_options or {}), "last_k_tokens": last_k_tokens}
    metas = [read_meta(p) for p in prediction_files]
    run_options = next((m["options"] for m in metas if m and "options" in m), None)
    chosen = {**(run_options or {}), **(task_options or {})}
    judge = resolve_task_judge(task, judge, chosen)  # as given when `evaluate` resolved it already
    values = task.option_values({**(judge.task_options if judge is not None else {}), **chosen})
    if run_options is not None and (clash := {k: v for k, v in task.run_options(values).items()
                                               if run_options.get(k, v) != v}):
        raise NyccBenchError(f"task-option: the predictions were made with {run_options}; {clash} changes the "
                             "predictions themselves, so re-run instead")
    instances: list[Instance] = []
    records: list[dict] = []
    fold_ids: list[int] = []
    unprompted: list[Any] = []
    absent: list[Any] = []
    total = given_n = 0
    for path, fold, meta in zip(prediction_files, folds, metas, strict=True):
        check_meta(meta, task, config_name(task, fold), split, dataset, path)
        made = build(task, dataset, split, fold, values)
        every, unprompted, absent = made.instances, [*unprompted, *made.skipped], [*absent, *made.absent]
        built = subset(every, limit)
        total += len(every)
        given = load_predictions(path)
        given_n += len(given)
        if covered_only:
            built = [i for i in built if i.instance_id in given]
            if not built:
                raise NyccBenchError(f"predictions: {path} answers none of the {len(every)} {task.name} items of "
                                     f"{dataset}; pass the --dataset the run was made on")
        records += _join(task, built, given, str(path), limited=limit is not None or covered_only)
        instances += built
        fold_ids += [fold] * len(built)
    # an unparsed reply is scored as what the task's reading made of it: None (wrong), or Hessel's extracted or
    # seeded letter (upstream's scheme); either way it is counted in n_unparsed
    preds = [r.get("prediction") if r["status"] != FAILED else None for r in records]
    n_failed = sum(r["status"] == FAILED for r in records)
    if n_failed:
        log.warning("%s: %d of %d items failed (no reply); they count as wrong here. Re-run the same command to "
                    "retry them.", task.name, n_failed, len(records))
    details = scorers()[task.scorer](task, instances, preds, fold_ids, judge, values, dataset=dataset,
                                   last_k_tokens=last_k_tokens)
    judged = judged_items(task, instances, fold_ids, details.pop(ITEM_JUDGMENTS, None), folds, prediction_files)
    decoding = next((m.get("decoding") for m in metas if m), None)
    system_effective = next((m.get("effective") for m in metas if m and "effective" in m), None)
    subset_note = {"n": len(records), "of": total} if limit is not None and len(records) < total else None
    if covered_only and len(records) < given_n:  # the predictions answer items this dataset does not hold
        subset_note = {"n": len(records), "of": given_n, "why": "the predictions' items this dataset holds"}
    config = task_config(task, values, decoding, folds, split, judge, system=system_effective, subset=subset_note,
                         judge_used=details.get("judge") if isinstance(details.get("judge"), Mapping) else None)
    if cap := next((m.get("reply_cap_chars") for m in metas if m and m.get("reply_cap_chars")), None):
        config["effective"]["reply_cap_chars"] = cap  # longer replies were cut and counted as unparsed
    config["deviations"] += details.pop("deviations", None) or []  # what the scorer could not do as the paper did
    if "novelty" in task.checks:
        details["novelty"] = novelty_summary(prediction_files, dataset, config["deviations"])
    if unprompted:
        more = f" and {len(unprompted) - 10} more" if len(unprompted) > 10 else ""
        config["deviations"].append(f"{len(unprompted)} dataset rows cannot be prompted (no description) and are "
                                    f"not evaluated: {', '.join(map(str, unprompted[:10]))}{more}.")
    if absent:
        more = f" and {len(absent) - 10} more" if len(absent) > 10 else ""
        config["deviations"].append(f"{len(absent)} dataset rows hold no description of any kind (not items of this "
                                    f"dataset, outside its coverage): {', '.join(map(str, absent[:10]))}{more}.")
    family = hooks(task)  # what the task's family adds: settings read from its instances, and their deviations
    if family.effective is not None:
        config["effective"].update(family.effective(task, instances, values, judge))
    if family.deviations is not None:
        config["deviations"] += [d for d in family.deviations(task, instances, values, judge, config["effective"])
                                 if d not in config["deviations"]]
    asked = len(records) if limit is not None else total + len(unprompted)  # a --limit: the subset asked for
    coverage = {"n": len(records), "of": asked,
                **({"why": f"{len(unprompted)} dataset rows cannot be prompted"} if unprompted and limit is None
                   else {})}
    if covered_only:
        coverage.update(partial=True, why="the items the published predictions answer")
    data: dict[str, set] = {}  # what the dataset rows say of their own provenance (`reference["data"]`)
    for inst in instances:
        for key, value in (inst.reference.get("data") or {}).items():
            data.setdefault(key, set()).add(value)
    if data:  # one value, or the sorted values when rows differ: read by the task's `paper:` settings (`data.*`)
        config["effective"]["data"] = {k: next(iter(v)) if len(v) == 1 else sorted(v, key=str) for k, v in data.items()}
        config["deviations"] += [d for d in task.computed_deviations({"data": config["effective"]["data"]})
                                 if d not in config["deviations"]]
    return {
        "task": task.name, "config": config, "coverage": coverage,
        "scores": extract_scores(task, details), "n": len(records),
        "n_unparsed": sum(r["status"] == UNPARSED for r in records), "n_failed": n_failed,
        "n_error": _count_errors(details), "details": details,
        "predictions": [str(p) for p in prediction_files],
        **({"judged_items": judged} if keep_judged else {}),
    }


def judged_items(task: Task, instances: Sequence[Instance], fold_ids: Sequence[int], per_item: Any,
                 folds: Sequence[int], files: Sequence[str | Path]) -> dict[str, dict[str, dict[str, Any]]]:
    """predictions file -> instance id -> {judge verdicts, correct}: the scorer's per-item judgments (HumorBench's
    item is correct when every element passes; a group comparison has no single verdict)."""
    if per_item is None:
        return {}
    where = {fold: str(path) for fold, path in zip(folds, files, strict=True)}
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for inst, fold, verdicts in zip(instances, fold_ids, per_item, strict=True):
        marks = [v.get("verdict") for v in verdicts]
        correct = all(m == "PASS" for m in marks) if marks and set(marks) <= {"PASS", "FAIL"} else None
        out.setdefault(where[fold], {})[inst.instance_id] = {"correct": correct, "verdicts": verdicts}
    return out


def novelty_summary(files: Sequence[str | Path], dataset: str, deviations: list[str]) -> dict[str, Any] | None:
    """The share of generated captions that copy a human submission (exact / near, same contest / any), by
    group, with a few examples (`nycc-bench novelty` has the full report); None, with a deviation, when the
    check cannot run here."""
    try:
        from .novelty import novelty_report

        # the first run builds the index of every human caption (minutes at full size): its bars show
        report = novelty_report([str(f) for f in files], dataset, progress=True, max_examples=5)
    except (ImportError, NyccBenchError) as err:
        deviations.append(f"Novelty check not run: {str(err).splitlines()[0]}")
        return None
    models = report["models"]
    matches = {kind: sum(m["matches"][kind]["count"] for m in models) for kind in models[0]["matches"]}
    n = sum(m["n_captions"] for m in models)
    return {**{kind: (count / n if n else None) for kind, count in matches.items()}, "n": n,
            "counts": matches, "groups": {kind: models[0]["matches"][kind]["groups"] for kind in matches},
            "examples": [e for m in models for e in m["examples"]][:5], "settings": report["settings"]}


def task_config(task: Task, values: Mapping[str, Any], decoding: Mapping[str, Any] | None, folds: Sequence[int],
                split: str, judge: ResolvedJudge | None, *, system: Mapping[str, Any] | None = None,
                subset: Mapping[str, int] | None = None, judge_used: Mapping[str, Any] | None = None
                ) -> dict[str, Any]:
    """Everything that affects a task's number: its definition, the options, decoding, folds, judge, what was
    actually sent (`effective`) and every way that differs from the paper (`deviations`, computed from
    `effective` and the task file's `paper:` block, then the judge protocol's own comparison)."""
    described = task.describe()
    judge_record: dict[str, Any] = {**dict(task.judge), **(judge.describe() if judge else {"name": None})}
    if judge_record.get("base_url"):
        judge_record["base_url"] = redact_url(judge_record["base_url"])
    protocol = values.get("protocol") or task.judge.get("protocol")
    effective: dict[str, Any] = {"options": dict(values), "split": split, "folds": sorted(folds),
                                 "subset": dict(subset or {}) or None,
                                 "system": dict(system) if system is not None else None, "judge": None}
    judge_deviations: list[str] = []
    if task.needs_judge and judge is None:
        judge_deviations.append("No judge: the judged scores are absent.")
    elif judge is not None and not judge.is_llm:
        judge_deviations.append(f"Judged by the offline judge {judge.name}, not the paper's LLM judge.")
        effective["judge"] = {"name": judge.name, "backend": judge.backend}
    elif judge is not None and judge.protocol:
        protocol, engine = judge.protocol, judge.config
        settings = judge.settings(n_shots=(judge_used or {}).get("n_shots"))
        judge_record["protocol"], judge_record["settings"] = protocol, settings
        effective["judge"] = {"name": judge.name, "protocol": protocol, "sent": settings["sampling_sent"],
                              "endpoint": judge.endpoint(),
                              "n_shots": settings["n_shots"], "shots_source": (judge_used or {}).get("shots_source"),
                              "parse_retries": settings["parse_retries"], "retries": engine.retries,
                              "timeout_s": engine.timeout_s, "rule": settings["rule"]}
        judge_deviations += settings["deviations"]
    deviations = [*task.computed_deviations(effective), *judge_deviations]
    if "folds" not in task.paper_settings and sorted(folds) != sorted(task.folds):
        deviations.append(f"Scored on folds {sorted(folds)} of {list(task.folds)}.")
    covered = {p.at.rpartition(".")[2] for p in task.paper_settings.values() if p.at.startswith("system.request.")}
    for key, value in ((system or {}).get("request") or {}).items():
        default = task.decoding.get("max_new_tokens" if key == "max_tokens" else key)
        if key not in covered and default is not None and value != default:
            deviations.append(f"Decoding {key}={value!r} instead of the task's {default!r}.")
    if split != task.split:
        deviations.append(f"Evaluated on the {split} split; the task (and the paper) report {task.split}.")
    if subset:
        deviations.append(f"subset: {subset['n']} of {subset['of']} instances (--limit).")
    return {**{k: described[k] for k in ("name", "version", "family", "paper", "follows", "task_file", "kind",
                                         "instances", "parser", "prompts", "prompt_version", "scorer")},
            "code_version": code_version(task),
            "dataset": {"config": task.config, "split": split, "folds": sorted(folds)},
            "options": dict(values), "decoding": dict(decoding) if decoding is not None else None,
            "judge": judge_record, "effective": effective,
            "deviations": deviations}
