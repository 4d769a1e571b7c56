"""What the exported lm-evaluation-harness tasks call at run time: nycc-bench's own instances, prompts, parsers
and metrics, so a task run under `lm_eval` has no second copy of any of them.

The generated `utils.py` binds these functions to each task (`custom_dataset`, `process_results`, the metrics'
`aggregation`). A doc is one nycc-bench instance of one fold: its id, fold, the prompt as plain text (what the
`hf:` system sends a model without a chat template), the letters and the gold index (choice tasks), and the
reference fields the task's metric reads. A per-doc metric item is `{"id", "fold", "prediction", "reference"}`,
so the aggregation is nycc-bench's scorer over every item: folds scored one by one and averaged, as in the paper.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import NyccBenchError
from ..tasks import Task, get_task

DATASET_ENV = "NYCC_BENCH_DATASET"


def dataset_path(kwargs: Mapping[str, Any]) -> str:
    """The built dataset: the task's `dataset_kwargs: {path: ...}`, else $NYCC_BENCH_DATASET."""
    path = kwargs.get("path") or os.environ.get(DATASET_ENV)
    if not path:
        raise NyccBenchError(f"dataset: set {DATASET_ENV} to a dataset folder built by `nycc-bench build` (or a Hub "
                             "id), or export the tasks with `nycc-bench lm-eval export DIR --dataset PATH`")
    return str(path)


def reference_fields(task: Task) -> list[str]:
    """The instance reference fields the task's metric reads (everything its arguments map, but the prediction)."""
    return [name for name in task.arguments.values() if name != "prediction"]


def load_docs(task_name: str, **kwargs: Any) -> dict[str, Any]:
    """`custom_dataset`: every instance of every fold the dataset has, as lm-eval docs (a `test` split)."""
    import datasets

    from ..evaluation import available_folds
    from ..kinds.instances import build_instances
    from ..systems.hf_causal import plain_choice_context

    task = get_task(task_name)
    dataset = dataset_path(kwargs)
    docs = []
    for fold in available_folds(task.name, dataset, None):
        for inst in build_instances(task, dataset, task.split, fold, task.option_values()):
            reference = {k: inst.reference.get(k) for k in reference_fields(task)}
            text = inst.text()
            docs.append({"id": inst.instance_id, "fold": fold,
                         "prompt": plain_choice_context(text) if task.kind == "choice" else text,
                         "choices": list(inst.letters),
                         "gold": inst.letters.index(inst.reference["label"]) if task.kind == "choice" else -1,
                         "reference": json.dumps(reference, ensure_ascii=False)})
    return {"test": datasets.Dataset.from_list(docs)}


def _item(doc: Mapping[str, Any], prediction: Any) -> dict[str, Any]:
    return {"id": doc["id"], "fold": doc["fold"], "prediction": prediction, "reference": json.loads(doc["reference"])}


def choice_results(task_name: str, doc: Mapping[str, Any], results: Sequence[tuple[float, bool]]) -> dict[str, Any]:
    """`process_results` of a choice task: the letter with the highest summed log-likelihood (nycc-bench's `hf:`
    rule, lm-eval's `acc`), as one item per reported score."""
    lls = [float(ll) for ll, _ in results]
    letter = doc["choices"][max(range(len(lls)), key=lls.__getitem__)]
    item = {**_item(doc, letter), "loglikelihoods": dict(zip(doc["choices"], lls, strict=True))}
    return {key: dict(item) for key in score_keys(task_name)}


def generation_results(task_name: str, doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """`process_results` of a generation task: the reply read by the task's parser (unreadable: empty, scored as
    nycc-bench scores it), as one item per reported score."""
    from ..kinds import parsers

    task = get_task(task_name)
    raw = results[0] if results else None
    prediction = parsers()[task.parser](raw, task.letters)
    return {key: {**_item(doc, prediction), "raw": raw} for key in score_keys(task_name)}


def score_keys(task_name: str) -> list[str]:
    """The task's scores that need no judge (those lm-eval reports)."""
    return [s.key for s in get_task(task_name).scores if not s.judged]


def details(task_name: str, items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """nycc-bench's metric output over lm-eval's items (the task's scorer, folds averaged), no judge."""
    from ..kinds import Instance, scorers

    task = get_task(task_name)
    instances = [Instance(instance_id=i["id"], user="", reference=dict(i["reference"])) for i in items]
    return scorers()[task.scorer](task, instances, [i["prediction"] for i in items], [int(i["fold"]) for i in items],
                                None, task.option_values())


def aggregate(task_name: str, key: str, items: Sequence[Mapping[str, Any]]) -> float:
    """One reported score (`key` of the task's `scores:`) over every item."""
    from ..tasks.lookup import extract

    score = next(s for s in get_task(task_name).scores if s.key == key)
    found = extract(score, details(task_name, items))
    if found is None:
        raise NyccBenchError(f"metric: {task_name}'s metric gave no {key}")
    return found["value"]
