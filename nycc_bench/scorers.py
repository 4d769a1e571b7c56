"""Task scorers, by a task file's `scorer:` name: join predictions with references and call the task's metric.

Each scorer takes the task, its instances (every fold concatenated), the predictions in instance order (None
for unparsed and failed items: they count as wrong, never dropped), the fold of each instance, the judge, the
option values and the keywords `dataset` and `last_k_tokens` (used by those that need them), and returns the
metric's output. Which output numbers are reported is the task file's
`scores:` list, read by `score.py`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .errors import JudgeRequired, NyccBenchError
from .groups import HUMAN_GROUPS
from .judging import JudgeSpec, element_judgments, group_judgments
from .metrics import load_metric
from .systems.api import image_url
from .tasks import Task
from .tasks.instances import Instance, load_split

log = logging.getLogger("nycc_bench")


def _field(name: str, inst: Instance, prediction: Any) -> Any:
    """An instance field a task file's metric arguments name (`prediction` is the system's answer)."""
    return prediction if name == "prediction" else inst.reference[name]


def _arguments(task: Task, instances: Sequence[Instance], preds: Sequence[Any]) -> dict[str, list[Any]]:
    """The metric's arguments as the task file maps them."""
    return {arg: [_field(name, i, p) for i, p in zip(instances, preds, strict=True)]
            for arg, name in task.arguments.items()}


def _folds(fold_ids: Sequence[int]) -> list[int] | None:
    """The per-item folds, when more than one fold is scored (the metric then averages the folds)."""
    return list(fold_ids) if len(set(fold_ids)) > 1 else None


def score_metric(task: Task, instances: Sequence[Instance], preds: Sequence[Any], fold_ids: Sequence[int],
                 judge: JudgeSpec | None, options: Mapping[str, Any], **_: Any) -> dict[str, Any]:
    """A multiple-choice metric over the mapped arguments, folds averaged as Hessel does."""
    return load_metric(task.metric).compute(**_arguments(task, instances, preds), folds=_folds(fold_ids),
                                            **task.metric_options)


def score_explanation(task: Task, instances: Sequence[Instance], preds: Sequence[Any], fold_ids: Sequence[int],
                      judge: JudgeSpec | None, options: Mapping[str, Any], **_: Any) -> dict[str, Any]:
    """BLEU-4 / ROUGE-L against the annotated explanation and, with an LLM judge, the pairwise win rate."""
    args = _arguments(task, instances, [p or "" for p in preds])
    judged = {} if judge is None else {
        "descriptions": [i.reference["description"] for i in instances],
        "captions": [i.choices[0] for i in instances], **judge.metric_kwargs()}
    return load_metric(task.metric).compute(**args, folds=list(fold_ids), **judged)  # per fold, then the mean


def zhang_judge_shots(dataset: str, contests: Sequence[int], images: bool = False) -> tuple[dict[int, list], dict]:
    """The group judge's examples per contest, drawn as upstream draws them (`zhang_shots`) from the dataset's
    Hessel `ranking` train split, and the record of that draw; zero-shot (recorded) where the data lacks it."""
    from .judge.protocols.zhang_format import RankingExample
    from .judge.protocols.zhang_shots import ShotDraw, draw

    try:
        rows = load_split(dataset, "ranking", "train")
    except ValueError:
        log.warning("no Hessel ranking train split in %s: the group judge runs zero-shot", dataset)
        return {}, ShotDraw({}, f"{dataset}: ranking train", 0, "the dataset has no Hessel ranking train "
                            "split, so the judge runs zero-shot").describe()
    pool = (f"{dataset}: Hessel ranking train, fold 0, all {len(rows)} rows in order (upstream's pool is the "
            "Hub's shard train-00000-of-00002 alone: the same draw when the split is that shard)")
    drawn = draw(contests, len(rows), pool)
    if not drawn.rows:
        log.warning("%s", drawn.zero_shot_reason)
    wanted = sorted({k for ks in drawn.rows.values() for k in ks})
    picked = rows.select(wanted) if wanted else []
    if wanted and not images:
        picked = picked.remove_columns("image")
    example = {k: RankingExample.from_hessel_row(r, image_url=image_url(r["image"]) if images else None)
               for k, r in zip(wanted, picked, strict=True)}
    return {c: [example[k] for k in ks] for c, ks in drawn.rows.items()}, drawn.describe()


def _losses(contests: Sequence[int], protocol: str) -> list[dict[str, Any]]:
    """Both orders of a contest the model gave no caption for, as judgments the model lost (Zhang counts them)."""
    return [{"contest_number": c, "model_position": pos, "verdict": "B" if pos == "A" else "A",
             "delta_logprob": None, "protocol": protocol, "missing_output": True}
            for c in contests for pos in ("A", "B")]


def score_caption_groups(task: Task, instances: Sequence[Instance], preds: Sequence[Any], fold_ids: Sequence[int],
                         judge: JudgeSpec | None, options: Mapping[str, Any], dataset: str = "",
                         **_: Any) -> dict[str, Any]:
    """Diversity of the caption groups and, with a judge, the win rate against each human group (both orders).

    A contest without a parseable caption list loses every comparison (option `missing=count`, the paper's
    rule) or is left out (`missing=drop`); either way it is counted in `n_missing`.
    """
    answered = [(p, i) for p, i in zip(preds, instances, strict=True) if p]
    missing = [i.reference["contest_number"] for p, i in zip(preds, instances, strict=True) if not p]
    if not answered:
        raise NyccBenchError("predictions: no contest has a parseable caption list; nothing can be scored")
    scores: dict[str, Any] = load_metric("ead_diversity").compute(predictions=[p for p, _ in answered])
    scores["n_missing"] = len(missing)
    if judge is None:
        return scores
    protocol = options.get("protocol", "overall")
    groups = {g: [i.reference[g] for _, i in answered] for g in HUMAN_GROUPS}
    groups = {g: v for g, v in groups.items() if all(v)}  # a contest too small for #1000 has no such group
    contests = [i.reference["contest_number"] for _, i in answered]
    shots, shot_record = zhang_judge_shots(dataset, contests, images=protocol == "best_pick") if judge.is_llm \
        else ({}, None)
    records = group_judgments(judge, [p for p, _ in answered], groups, contests,
                              [i.reference["judge_description"] for _, i in answered], protocol,
                              shots if judge.is_llm else None,
                              [image_url(i.reference["judge_image"]) for _, i in answered], rule=options.get("rule"))
    lost = _losses(missing, protocol) if options.get("missing", "count") == "count" else []
    metric = load_metric(task.judge.get("judged_metric", "group_win_rate"))
    scores["win_rate"] = {g: metric.compute(judgments=[{k: r[k] for k in ("contest_number", "model_position",
                                                                           "verdict", "delta_logprob")}
                                                       for r in [*records, *lost] if r.get("human_group", g) == g])
                          for g in groups}
    scores["judge"] = {"judge": judge.name, "protocol": protocol, "missing": options.get("missing", "count"),
                       "rule": next((r.get("rule") for r in records if r.get("rule")), None), "shots": shot_record,
                       "n_shots": (shot_record or {}).get("n_shots"),
                       "shots_source": (shot_record or {}).get("pool") if (shot_record or {}).get("n_shots") else None}
    return scores


def score_elements(task: Task, instances: Sequence[Instance], preds: Sequence[Any], fold_ids: Sequence[int],
                   judge: JudgeSpec | None, options: Mapping[str, Any], last_k_tokens: int | None = None,
                   **_: Any) -> dict[str, Any]:
    """HumorBench: every (explanation, element) row graded, then element accuracy and its breakdowns."""
    if judge is None:
        raise JudgeRequired("judge: HumorBench is scored by an autograder; pass --judge (e.g. openai:gpt-4o, or "
                             "embedding:<grader folder> for the offline grader)")
    from .metrics.element_autograder import MAX_LAST_K_TOKENS
    from .scoring.checks import check_int

    rows = [(p or "", i, k) for p, i in zip(preds, instances, strict=True) for k in range(len(i.reference["elements"]))]
    has_hard = instances[0].reference["element_in_hard"] is not None
    ref = lambda key: [i.reference[key][k] for _, i, k in rows]  # noqa: E731
    if last_k_tokens is not None:
        check_int(last_k_tokens, "last_k_tokens", 1, MAX_LAST_K_TOKENS)
    # graded here, then scored from the verdicts, so the record keeps each element's verdict (the leaderboard's
    # "Hard, leaderboard rule" pools them over runs: leaderboard/hard_rule.py)
    verdicts = [r["verdict"] for r in element_judgments(
        judge, [i.reference["description"] for _, i, _ in rows], [i.reference["caption"] for _, i, _ in rows],
        ref("elements"), [p for p, _, _ in rows], last_k_tokens)]
    scores = load_metric(task.metric).compute(
        predictions=[p for p, _, _ in rows], references=ref("elements"), judgments=verdicts,
        caption_ids=[i.reference["caption_id"] for _, i, _ in rows],
        categories=ref("element_categories"), hard=ref("element_in_hard") if has_hard else None)
    scores["element_verdicts"] = {f"{i.reference['caption_id']}/{i.reference['element_ids'][k]}": v
                                  for (_, i, k), v in zip(rows, verdicts, strict=True)}
    return scores


Scorer = Callable[..., dict[str, Any]]
SCORERS: dict[str, Scorer] = {"metric": score_metric, "explanation": score_explanation,
                              "caption_groups": score_caption_groups, "elements": score_elements}
