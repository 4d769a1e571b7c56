"""What `nycc-bench import lm-eval` checks before it scores an lm-eval output folder, so an edited or partial
folder is refused in one line instead of loading as a record.

- Counts: the samples file holds exactly the docs lm-eval says it evaluated (`n-samples`, effective), and every
  doc of the task (original) unless the run was `--limit`ed.
- lm-eval's own hashes: each sample's `doc_hash` and `target_hash` match its doc and target (lm-eval's rule: the
  sha256 of the doc's JSON, indent 2, and of `str(target)`), its target is the doc's gold, and its item is the doc's.
- Answers are re-read from the model's responses (`filtered_resps`: the highest log-likelihood letter, or the
  task's parser on the reply), never taken from the item lm-eval logged beside them.
- Ids: one sample per instance and fold; with `--dataset`, exactly the instances the dataset gives (no foreign
  or missing id), the docs identical to the dataset's, and the gold read from the dataset, never from the file.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import NyccBenchError
from ..tasks import Task

SHOWN = 3  # ids named in a message


def _hash(text: str) -> str:
    """lm-eval's `hash_string`."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def doc_hash(doc: Mapping[str, Any]) -> str:
    """lm-eval's `doc_hash` of a doc (its JSON, indent 2, non-ASCII kept)."""
    return _hash(json.dumps(doc, indent=2, ensure_ascii=False, default=str))


def _named(keys: Sequence[tuple[int, str]]) -> str:
    shown = ", ".join(f"{i} (fold {f})" for f, i in list(keys)[:SHOWN])
    return shown + (f" and {len(keys) - SHOWN} more" if len(keys) > SHOWN else "")


def check_counts(name: str, data: Mapping[str, Any], samples: Sequence[Any]) -> None:
    """The samples file against lm-eval's `n-samples` of the task (and its `--limit`)."""
    counts = (data.get("n-samples") or {}).get(name)
    if not isinstance(counts, Mapping) or not isinstance(counts.get("effective"), int):
        raise NyccBenchError(f"results-dir: {name} has no n-samples in its results file, so its samples cannot be "
                             "counted; use the results file lm_eval wrote (lm-eval 0.4 or later)")
    effective, original = counts["effective"], counts.get("original")
    if len(samples) != effective:
        raise NyccBenchError(f"results-dir: {name} has {len(samples)} samples but lm-eval evaluated {effective} "
                             "(n-samples); the samples file is cut short or edited: use the folder lm_eval wrote")
    limited = (data.get("config") or {}).get("limit")
    if isinstance(original, int) and effective < original and not limited:
        raise NyccBenchError(f"results-dir: {name}: lm-eval evaluated {effective} of {original} docs without "
                             "--limit; the run is incomplete: run lm_eval again")


def logged_item(sample: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The nycc-bench item lm-eval logged with a sample (the same under every metric key; see `runtime`)."""
    for key in sample.get("metrics", []):
        value = sample.get(key)
        if isinstance(value, dict) and {"id", "fold", "prediction", "reference"} <= set(value):
            return value
    raise NyccBenchError(f"results-dir: a {name} sample has no nycc-bench item; was it run with the tasks of "
                         "`nycc-bench lm-eval export`?")


def answer(task: Task, sample: Mapping[str, Any]) -> Any:
    """The answer read from the model's own responses: the letter of the highest summed log-likelihood, or the
    task's parser on the reply."""
    from ..kinds import parsers

    resps = sample.get("filtered_resps")
    doc = sample["doc"]
    if task.kind == "choice":
        try:
            lls = [float(r[0] if isinstance(r, list | tuple) else r) for r in resps]
        except (TypeError, ValueError, IndexError):
            raise NyccBenchError(f"results-dir: {task.name} sample {doc.get('id')}: filtered_resps holds no "
                                 "log-likelihoods; use the samples file lm_eval wrote") from None
        if len(lls) != len(doc["choices"]):
            raise NyccBenchError(f"results-dir: {task.name} sample {doc.get('id')}: {len(lls)} log-likelihoods for "
                                 f"{len(doc['choices'])} choices; the samples file is edited")
        return doc["choices"][max(range(len(lls)), key=lls.__getitem__)]
    raw = resps[0] if isinstance(resps, list) and resps else None
    return parsers()[task.parser](raw if isinstance(raw, str) else None, task.letters)


def verified_items(task: Task, name: str, samples: Sequence[Mapping[str, Any]],
                   expected: Mapping[tuple[int, str], Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """The nycc-bench items of a task's samples, each checked against lm-eval's hashes (and, given `expected`
    docs by (fold, id) from `--dataset`, against the dataset, whose gold they carry)."""
    keys = []
    for sample in samples:
        doc = sample.get("doc")
        if not isinstance(doc, Mapping) or "id" not in doc or "fold" not in doc:
            raise NyccBenchError(f"results-dir: a {name} sample has no nycc-bench doc; use the samples file lm_eval "
                                 "wrote with the tasks of `nycc-bench lm-eval export`")
        keys.append((int(doc["fold"]), str(doc["id"])))
    if repeated := sorted(k for k, n in Counter(keys).items() if n > 1):
        raise NyccBenchError(f"results-dir: {name} has duplicate samples of {_named(repeated)}; use the samples file "
                             "lm_eval wrote, once")
    if expected is not None:
        if foreign := sorted(set(keys) - set(expected)):
            raise NyccBenchError(f"results-dir: {name} has samples of ids the dataset does not have: "
                                 f"{_named(foreign)}; import with the --dataset lm_eval ran on")
        if missing := sorted(set(expected) - set(keys)):
            raise NyccBenchError(f"results-dir: {name} lacks samples of {len(missing)} of the dataset's "
                                 f"{len(expected)} instances: {_named(missing)}; run lm_eval on every doc")
    items = []
    for key, sample in zip(keys, samples, strict=True):
        doc, where = sample["doc"], f"results-dir: {name} sample {key[1]} (fold {key[0]})"
        if sample.get("doc_hash") != doc_hash(doc):
            raise NyccBenchError(f"{where}: its doc does not match lm-eval's doc_hash; the samples file is edited")
        if sample.get("target_hash") != _hash(str(sample.get("target"))):
            raise NyccBenchError(f"{where}: its target does not match lm-eval's target_hash; the samples file is "
                                 "edited")
        gold = doc.get("gold") if task.kind == "choice" else doc.get("reference")
        if str(sample.get("target")) != str(gold):  # lm-eval may log the gold index as text
            raise NyccBenchError(f"{where}: its target {sample.get('target')!r} is not its doc's gold; the samples "
                                 "file is edited")
        if expected is not None and dict(expected[key]) != dict(doc):
            raise NyccBenchError(f"{where}: its doc differs from the dataset's (prompt, choices or gold); import "
                                 "with the --dataset lm_eval ran on")
        item = logged_item(sample, name)
        if (str(item.get("id")), int(item.get("fold", -1))) != (key[1], key[0]) or \
                item.get("reference") != json.loads(doc["reference"]):
            raise NyccBenchError(f"{where}: its logged item is not its doc's; the samples file is edited")
        source = expected[key] if expected is not None else doc  # the gold comes from the dataset when given
        items.append({**item, "prediction": answer(task, sample), "reference": json.loads(source["reference"])})
    return items


def dataset_docs(task: Task, dataset: str) -> dict[tuple[int, str], dict[str, Any]]:
    """The docs the exported task reads from `dataset`, by (fold, id), as lm-eval logs them."""
    from .runtime import load_docs

    return {(int(d["fold"]), str(d["id"])): d for d in load_docs(task.name, path=dataset)["test"]}
