"""`nycc-bench score`: join predictions with the dataset's references and score them through `metrics/`.

Predictions come as the runner's JSONL or as Hessel's leaderboard format (`{"instance_id": "A", ...}`).
Every instance of the split must have a prediction (a missing one is an error, never a silent skip); an
answer the runner could not parse counts as wrong and is reported as `n_unparsed`.
"""

from __future__ import annotations

import json
import logging
from functools import cache
from pathlib import Path
from typing import Any

import evaluate

from .judge.protocols.zhang_format import RankingExample
from .judging import JudgeSpec, group_judgments
from .runner import read_predictions
from .systems.api import image_url
from .tasks import Task, config_name, get_task
from .tasks.instances import DEFAULT_DATASET, Instance, build_instances, load_split

log = logging.getLogger("nycc_bench")
HUMAN_GROUPS = ("human_top10", "human_200", "human_1000", "human_median")

METRICS_DIR = Path(__file__).resolve().parents[1] / "metrics"


@cache
def load_metric(name: str) -> evaluate.EvaluationModule:
    """A metric module from this checkout's `metrics/` folder (offline), else from the Hub by name."""
    folder = METRICS_DIR / name
    return evaluate.load(str(folder) if folder.is_dir() else f"nycc-bench/{name}")


def load_predictions(path: str | Path) -> dict[str, Any]:
    """instance_id -> prediction, from runner JSONL or a Hessel-style JSON object."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"predictions: {path} does not exist")
    text = path.read_text(encoding="utf-8").lstrip()
    if text.startswith("{") and "\n{" not in text.strip():
        data = json.loads(text)
        if "instance_id" not in data:  # {"<id>": "A", ...}
            return dict(data)
    return {k: r["prediction"] for k, r in read_predictions(path).items()}


def _join(task: Task, instances: list[Instance], predictions: dict[str, Any], path: str) -> list[Any]:
    """Predictions in instance order; missing or foreign ids are errors that name a few of them."""
    ids = [i.instance_id for i in instances]
    if missing := [i for i in ids if i not in predictions]:
        raise ValueError(f"predictions: {path} has no prediction for {len(missing)} of {len(ids)} {task.name} "
                         f"instances (e.g. {', '.join(missing[:3])}); finish the run (`nycc-bench run` resumes)")
    if extra := sorted(set(predictions) - set(ids)):
        raise ValueError(f"predictions: {path} has {len(extra)} ids that are not in this split (e.g. "
                         f"{', '.join(extra[:3])}); check --split and --fold")
    return [predictions[i] for i in ids]


def ranking_shots(dataset: str, images: bool = False) -> list[RankingExample]:
    """Hessel `ranking` train items as the group judge's in-context examples (with their cartoons for Best
    Pick's vision form); none when the config is absent."""
    try:
        rows = load_split(dataset, "ranking", "train")
    except ValueError:
        log.warning("no Hessel ranking train split in %s: the group judge runs zero-shot", dataset)
        return []
    if not images:
        return [RankingExample.from_hessel_row(r) for r in rows.remove_columns("image")]
    return [RankingExample.from_hessel_row(r, image_url=image_url(r["image"])) for r in rows]


def _score_generation(preds: list[Any], instances: list[Instance], dataset: str, judge: JudgeSpec | None,
                      protocol: str) -> dict[str, Any]:
    """Diversity of the caption groups and, with a judge, the win rate against each human group."""
    answered = [(p, i) for p, i in zip(preds, instances, strict=True) if p]
    if not answered:
        raise ValueError("predictions: no contest has a parseable caption list")
    scores: dict[str, Any] = load_metric("ead_diversity").compute(predictions=[p for p, _ in answered])
    if judge is not None:
        groups = {g: [i.reference[g] for _, i in answered] for g in HUMAN_GROUPS}
        groups = {g: v for g, v in groups.items() if all(v)}  # a contest too small for #1000 has no such group
        records = group_judgments(judge, [p for p, _ in answered], groups,
                                  [i.reference["contest_number"] for _, i in answered],
                                  [i.reference["judge_description"] for _, i in answered], protocol,
                                  ranking_shots(dataset, images=protocol == "best_pick")
                                  if judge.backend in ("openai", "transformers") else None,
                                  [image_url(i.reference["judge_image"]) for _, i in answered])
        metric = load_metric("group_win_rate")
        scores["win_rate"] = {g: metric.compute(judgments=[r for r in records if r["human_group"] == g])
                              for g in groups}
        scores["judge"] = {"judge": judge.name, "protocol": protocol}
    return scores


def _score_humorbench(preds: list[Any], instances: list[Instance], judge: JudgeSpec | None,
                      last_k_tokens: int | None) -> dict[str, Any]:
    """HumorBench: every (explanation, element) row graded, then element accuracy and its breakdowns."""
    if judge is None:
        raise ValueError("judge: HumorBench is scored by an autograder; pass --judge (e.g. openai:gpt-4o, or "
                         "embedding:<grader folder> for the offline grader)")
    rows = [(p or "", i, k) for p, i in zip(preds, instances, strict=True) for k in range(len(i.reference["elements"]))]
    has_hard = instances[0].reference["element_in_hard"] is not None
    hard = [i.reference["element_in_hard"][k] for _, i, k in rows] if has_hard else None
    return {**load_metric("element_autograder").compute(
        predictions=[p for p, _, _ in rows], references=[i.reference["elements"][k] for _, i, k in rows],
        descriptions=[i.reference["description"] for _, i, _ in rows],
        captions=[i.reference["caption"] for _, i, _ in rows], caption_ids=[i.instance_id for _, i, _ in rows],
        categories=[i.reference["element_categories"][k] for _, i, k in rows], hard=hard,
        judge_model=judge.model, judge_backend=judge.backend, judge_base_url=judge.base_url,
        cache_dir=judge.cache_dir, max_concurrency=judge.max_concurrency, last_k_tokens=last_k_tokens),
        "judge": {"judge": judge.name, "last_k_tokens": last_k_tokens}}


def score(task_name: str, prediction_files: list[str | Path], dataset: str = DEFAULT_DATASET,
          split: str | None = None, folds: list[int] | None = None, judge: JudgeSpec | None = None,
          protocol: str = "overall", last_k_tokens: int | None = None) -> dict[str, Any]:
    """Score one task. Hessel tasks take one predictions file per fold (`folds` lists them) and average the
    folds' scores as the paper does; the others take one file. Caption generation and HumorBench are judged
    with `judge`; the explanation task adds a pairwise judge score when given one."""
    task = get_task(task_name)
    split = split or task.default_split
    folds = folds if folds is not None else [0] * len(prediction_files)
    if len(folds) != len(prediction_files):
        raise ValueError(f"fold: {len(prediction_files)} predictions files need as many folds, got {len(folds)}")
    preds: list[Any] = []
    instances: list[Instance] = []
    fold_ids: list[int] = []
    for path, fold in zip(prediction_files, folds, strict=True):
        built = build_instances(task, dataset, split, fold)
        preds += _join(task, built, load_predictions(path), str(path))
        instances += built
        fold_ids += [fold] * len(built)
    fold_arg = fold_ids if len(set(folds)) > 1 else None
    labels = [i.reference.get("label") for i in instances]
    if task.metric == "nycc_accuracy":
        scores = load_metric(task.metric).compute(predictions=preds, references=labels, folds=fold_arg,
                                                  invalid_as_wrong=True)
    elif task.metric == "crowd_ny_accuracy":
        scores = load_metric(task.metric).compute(
            predictions=preds, references=labels, winner_sources=[i.reference["winner_source"] for i in instances],
            folds=fold_arg, invalid_as_wrong=True)
    elif task.metric == "explanation_overlap":
        options = {} if judge is None else {
            "descriptions": [i.context for i in instances], "captions": [i.choices[0] for i in instances],
            "judge_model": judge.model, "judge_backend": judge.backend, "judge_base_url": judge.base_url,
            "cache_dir": judge.cache_dir, "max_concurrency": judge.max_concurrency}
        scores = load_metric(task.metric).compute(predictions=[p or "" for p in preds], references=labels, **options)
    elif task.name == "caption_generation":
        scores = _score_generation(preds, instances, dataset, judge, protocol)
    else:
        scores = _score_humorbench(preds, instances, judge, last_k_tokens)
    return {"task": task.name, "configs": sorted({config_name(task, f) for f in folds}), "split": split,
            "folds": sorted(set(folds)), "metric": task.metric, "prompt_version": task.prompt_version,
            "n": len(preds), "n_unparsed": sum(p is None for p in preds), "scores": scores}


def reliability(judge: JudgeSpec | None, dataset: str = DEFAULT_DATASET, split: str = "test",
                protocol: str = "overall") -> dict[str, Any]:
    """Zhang et al.'s Table 2 protocol: human top10 vs #1000–1009 of every held-out contest, both orders; the
    share of judgments picking the top group, with a bootstrap interval over contests."""
    if judge is None:
        raise ValueError("judge: name the judge to check (--judge)")
    rows = [r for r in load_split(dataset, "caption_generation", split).remove_columns("image")
            if r["human_top10"] and r["human_1000"] and (r["image_description"] or r["description"])]
    if not rows:
        raise ValueError(f"dataset: no {split} contest has a description and both a top-10 and a #1000-1009 group")
    descriptions = [(r["image_description"], r["image_uncanny_description"] or "") if r["image_description"]
                    else r["description"] or "" for r in rows]
    records = group_judgments(judge, [r["human_top10"] for r in rows], {"human_1000": [r["human_1000"] for r in rows]},
                              [r["contest_number"] for r in rows], descriptions, protocol,
                              ranking_shots(dataset) if judge.backend in ("openai", "transformers") else None)
    rate = load_metric("group_win_rate").compute(judgments=records)
    return {"judge": judge.name, "protocol": protocol, "split": split, "reliability": rate["win_rate"],
            **{k: v for k, v in rate.items() if k != "win_rate"}}
