"""The generic scorer (`metric`) and the helpers every scorer shares; a family's own scorers live in its
module (`kinds/<family>.py`).

A scorer takes the task, its instances (every fold concatenated), the predictions in instance order (None for
unparsed and failed items: they count as wrong, never dropped), the fold of each instance, the judge, the option
values and the keywords `dataset` and `last_k_tokens` (used by those that need them), and returns the metric's
output. It calls the task file's `scorer.metric` with `scorer.arguments` (metric argument -> instance field) and
`scorer.options`; which output numbers are reported is the task file's `scores:` list, read by `score.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..tasks.definition import Task
from .registry import Instance, register_scorer


def instance_field(name: str, inst: Instance, prediction: Any) -> Any:
    """An instance field a task file's metric arguments name: `prediction` (the system's answer), else a key of
    the instance's `reference`."""
    return prediction if name == "prediction" else inst.reference[name]


def gold(task: Task, inst: Instance) -> Any:
    """The reference an instance's answer is scored against (the field the task's metric reads as `references`),
    kept in its predictions record so a viewer or a dataframe needs no dataset; None for a task scored without one
    (Zhang's generation is judged against human groups)."""
    name = task.arguments.get("references")
    return inst.reference.get(name) if name else None


def item_correct(task: Task, record: Mapping[str, Any], reference: Any) -> bool | None:
    """Whether one answer is right, where a single item has a verdict of its own: a choice task's answer against
    its gold letter (an unparsed reply as it is scored, its fallback letter or wrong); None for a failed item (no
    answer yet) and for tasks scored over all items or by a judge (the judge's per-item verdict is kept beside the
    predictions, `predictions.write_judged`)."""
    if task.kind != "choice" or record.get("status") == "failed" or reference is None:
        return None
    return record.get("prediction") == reference


def metric_arguments(task: Task, instances: Sequence[Instance], preds: Sequence[Any]) -> dict[str, list[Any]]:
    """The metric's arguments as the task file's `scorer.arguments` maps them, one list entry per instance."""
    return {arg: [instance_field(name, i, p) for i, p in zip(instances, preds, strict=True)]
            for arg, name in task.arguments.items()}


def fold_list(fold_ids: Sequence[int]) -> list[int] | None:
    """The per-item folds, when more than one fold is scored (the metric then averages the folds)."""
    return list(fold_ids) if len(set(fold_ids)) > 1 else None


@register_scorer("metric")
def score_metric(task: Task, instances: Sequence[Instance], preds: Sequence[Any], fold_ids: Sequence[int],
                 judge: Any, options: Mapping[str, Any], **_: Any) -> dict[str, Any]:
    """The task's metric over the mapped arguments, folds averaged as Hessel does."""
    from ..metrics import compute_metric

    return compute_metric(task.metric, **metric_arguments(task, instances, preds), folds=fold_list(fold_ids),
                                            **task.metric_options)
