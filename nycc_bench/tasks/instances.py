"""Turn a task's dataset rows into prompts (instances) any system can answer; one builder per task file's
`instances:` name, never a branch on a task's name."""

from __future__ import annotations

import hashlib
import logging
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import NyccBenchError
from .definition import Task
from .registry import config_name

log = logging.getLogger("nycc_bench")
DEFAULT_DATASET = os.environ.get("NYCC_DATASET", "nycc-bench/newyorker-caption-contest")


@dataclass
class Instance:
    """One prompt: system and user text, an optional image, the answer choices and what scoring needs."""

    instance_id: str
    user: str
    system: str | None = None
    image: Any = None  # a PIL image, for the from-pixels tasks only (from description means text only)
    choices: list[str] = field(default_factory=list)
    letters: str = ""
    context: str = ""  # the cartoon's description, for similarity baselines
    reference: dict[str, Any] = field(default_factory=dict)


def load_split(dataset: str, config: str, split: str) -> Any:
    """One split of one config, from a local folder or a Hub repo, with a clear error for a missing split.

    A local folder's parquet files are read by absolute path (the `parquet` loader keys its cache on the files'
    paths and modification times), so a dataset rebuilt in place, or two folders of the same name, never give
    stale rows from the cache.
    """
    import datasets

    root = Path(dataset)
    if root.is_dir() and (root / "data").is_dir():
        folder = root / "data" / config
        files = sorted(str(f.resolve()) for f in folder.glob(f"{split}-*.parquet"))
        if not files:
            have = sorted({f.name.split("-")[0] for f in folder.glob("*.parquet")})
            if not have:
                raise NyccBenchError(f"dataset: {dataset} has no config {config!r}; build it with `nycc-bench build "
                                     f"--out {dataset}` (with --configs {config})")
            raise NyccBenchError(f"split: config {config!r} has no split {split!r}; it has {', '.join(have)}")
        return datasets.load_dataset("parquet", data_files={split: files}, split=split)
    try:
        splits = datasets.load_dataset(dataset, config)
    except (FileNotFoundError, ValueError, ConnectionError) as err:
        reason = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
        raise NyccBenchError(f"dataset: cannot load config {config!r} from {dataset!r} ({reason}); build it with "
                             f"`nycc-bench build --out DIR` and pass --dataset DIR") from None
    if split not in splits:
        raise NyccBenchError(f"split: config {config!r} has no split {split!r}; it has {', '.join(splits)}")
    return splits[split]


def stable_seed(*parts: object) -> int:
    """A stable seed from any values (Python's hash() is salted per process)."""
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")


def _description(row: Mapping[str, Any]) -> str:
    """The richest text description a row has (Hessel annotations, else the nextml sentence)."""
    parts = [row.get("image_location"), row.get("image_description"), row.get("image_uncanny_description")]
    text = " ".join(p for p in parts if p)
    return text or row.get("description") or ""


def _hessel(task: Task, rows: Any, split_rows: Callable[[str], Any], options: Mapping[str, Any]) -> list[Instance]:
    """Hessel matching / ranking / explanation: instruction, worked examples from train, then the item."""
    shots, seed = int(options.get("shots", 0)), options.get("seed", 0)
    if shots and task.from_pixels:
        raise NyccBenchError(f"shots: few-shot prompts exist for the from-description tasks, not {task.name}")
    pool = list(split_rows("train")) if shots else []
    if shots > len(pool):
        raise NyccBenchError(f"shots: {shots} examples asked for, but the train split has {len(pool)}")
    tail = "Answer:" if task.kind == "choice" else "Explanation:"

    def item(r: Mapping[str, Any], answer: str | None) -> str:
        if task.from_pixels:
            choices = r["caption_choices"]
            body = (f"Caption: {choices}" if isinstance(choices, str)
                    else "\n".join(f"{task.letters[i]}: {c}" for i, c in enumerate(choices)))
        else:
            body = r["from_description"]
        return f"{body}\n{tail}" + (f" {answer}" if answer is not None else "")

    out = []
    for row in rows:
        chosen = random.Random(stable_seed(seed, row["instance_id"])).sample(pool, shots) if shots else []
        examples = "".join(item(s, s["label"]) + "\n\n" for s in chosen)
        choices = row["caption_choices"]
        out.append(Instance(
            instance_id=row["instance_id"], user=f"{task.prompts['instruction']}\n\n{examples}{item(row, None)}",
            image=row["image"] if task.from_pixels else None,
            choices=choices if isinstance(choices, list) else [choices], letters=task.letters,
            context="" if task.from_pixels else _description(row),  # from pixels: the system sees the image only
            reference={"label": row["label"], "winner_source": row.get("winner_source"),
                       "description": _description(row), "caption": choices if isinstance(choices, str) else None},
        ))
    return out


HUMAN_GROUPS = ("human_top10", "human_200", "human_1000", "human_median")


def _generation_user(task: Task, row: Mapping[str, Any], source: str) -> tuple[str | None, str | None]:
    """Zhang's user turn and which description filled it: GPT-4o's (the paper's), else Hessel's annotations,
    else the one-sentence nextml description."""
    fields = {"gpt4o": ("gpt4o_canny", "gpt4o_uncanny", "gpt4o_location", "gpt4o_entities"),
              "hessel": ("image_description", "image_uncanny_description", "image_location", "entities")}
    order = ["gpt4o", "hessel"] if source == "gpt4o" else ["hessel"]
    for name in order:
        desc, uncanny, location, entities = fields[name]
        if row.get(desc):
            return task.prompts["user"].format(
                description=row[desc], uncanny=row.get(uncanny) or "", location=row.get(location) or "",
                entities=", ".join(row.get(entities) or [])), name
    if row.get("description"):
        return task.prompts["user_short"].format(description=row["description"].rstrip(".")), "nextml"
    return None, None


def _zhang_generation(task: Task, rows: Any, split_rows: Callable[[str], Any],
                      options: Mapping[str, Any]) -> list[Instance]:
    """Zhang caption generation: one instance per held-out contest; contests that cannot be prompted are left
    out with a warning (they still count as lost when scored, see the scorer)."""
    out, skipped = [], []
    for row in rows:
        user, source = _generation_user(task, row, options.get("description", "gpt4o"))
        if user is None:
            skipped.append(row["contest_number"])
            continue
        out.append(Instance(
            instance_id=str(row["contest_number"]), system=task.prompts["system"], user=user,
            context=_description(row),
            reference={"contest_number": row["contest_number"], **{g: row[g] for g in HUMAN_GROUPS},
                       "description_source": source,
                       "judge_description": ((row["image_description"], row.get("image_uncanny_description") or "")
                                             if row.get("image_description") else row.get("description")),
                       "judge_image": row.get("image")},  # Best Pick's vision form; never shown to the system
        ))
    options["_skipped"].extend(skipped)  # type: ignore[index]
    return out


def _humorbench(task: Task, rows: Any, split_rows: Callable[[str], Any], options: Mapping[str, Any]) -> list[Instance]:
    """HumorBench: the explainer prompt as the single user message, as upstream sends it; one instance per
    annotation row (upstream's unit) or per caption (option `unit=caption`)."""
    out = []
    for row in rows:
        user = task.prompts["user"].format(description=row["description"], caption=row["caption"])
        n = len(row["elements"])
        hard = row.get("element_in_hard") or [None] * n
        units = [list(range(n))] if options.get("unit") == "caption" else [[k] for k in range(n)]
        for ks in units:
            iid = row["caption_id"] if len(ks) == n and options.get("unit") == "caption" else \
                f"{row['caption_id']}/{row['element_ids'][ks[0]]}"
            out.append(Instance(
                instance_id=iid, user=user, context=f"{row['description']} {row['caption']}",
                reference={"caption_id": row["caption_id"], "description": row["description"],
                           "caption": row["caption"], "elements": [row["elements"][k] for k in ks],
                           "element_ids": [row["element_ids"][k] for k in ks],
                           "element_categories": [row["element_categories"][k] for k in ks],
                           "element_in_hard": [hard[k] for k in ks] if row.get("element_in_hard") else None}))
    return out


BUILDERS: dict[str, Callable[[Task, Any, Callable[[str], Any], Mapping[str, Any]], list[Instance]]] = {
    "hessel": _hessel, "zhang_generation": _zhang_generation, "humorbench": _humorbench}


def build_instances(task: Task, dataset: str = DEFAULT_DATASET, split: str | None = None, fold: int = 0,
                    options: Mapping[str, Any] | None = None, unprompted: list[Any] | None = None) -> list[Instance]:
    """Every instance of a task's split and fold, prompts included, with the task's options applied; rows that
    cannot be prompted are appended to `unprompted` (and recorded by the scorer as a deviation)."""
    split = split or task.split
    config = config_name(task, fold)
    values = task.option_values(options)
    rows = load_split(dataset, config, split)
    skipped: list[Any] = []
    out = BUILDERS[task.instances](task, rows, lambda s: load_split(dataset, config, s),
                                   {**values, "_skipped": skipped})
    if skipped:
        log.info("%s: %d of %d rows cannot be prompted (no description): %s", task.name, len(skipped), len(rows),
                 ", ".join(map(str, skipped[:10])) + (" ..." if len(skipped) > 10 else ""))
    if unprompted is not None:
        unprompted.extend(skipped)
    if not out:
        raise NyccBenchError(f"dataset: no {task.name} instance in split {split!r} of {dataset} can be prompted")
    return out
