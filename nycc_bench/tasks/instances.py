"""Turn a task's dataset rows into prompts (instances) that any system can answer."""

from __future__ import annotations

import hashlib
import logging
import os
import random
from dataclasses import dataclass, field
from typing import Any

import datasets

from ..judge.protocols.humorbench import EXPLAINER_PROMPT
from . import Task, config_name, prompts

log = logging.getLogger("nycc_bench")
DEFAULT_DATASET = os.environ.get("NYCC_DATASET", "nycc-bench/newyorker-caption-contest")
N_SHOTS_MAX = 10


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


def load_split(dataset: str, config: str, split: str) -> datasets.Dataset:
    """One split of one config, from a local folder or a Hub repo, with a clear error for a missing split."""
    try:
        splits = datasets.load_dataset(dataset, config)
    except (FileNotFoundError, ValueError) as err:
        raise ValueError(f"dataset: cannot load config {config!r} from {dataset!r} ({err}); build it with "
                         f"`nycc-bench build --out DIR` and pass --dataset DIR") from err
    if split not in splits:
        raise ValueError(f"split: config {config!r} has no split {split!r}; it has {', '.join(splits)}")
    return splits[split]


def _seed(*parts: object) -> int:
    """A stable seed from any values (Python's hash() is salted per process)."""
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")


def _hessel_user(task: Task, row: dict, shots: list[dict]) -> str:
    """Instruction, the worked examples, then this item; from description uses upstream's packed text."""
    kind = task.name.removesuffix("_from_pixels")
    instruction = {
        ("matching", False): prompts.MATCHING, ("matching", True): prompts.MATCHING_PIXELS,
        ("ranking", False): prompts.RANKING, ("ranking", True): prompts.RANKING_PIXELS,
        ("explanation", False): prompts.EXPLANATION, ("explanation", True): prompts.EXPLANATION_PIXELS,
    }[kind, task.from_pixels]

    def item(r: dict, answer: str | None) -> str:
        if task.from_pixels:
            choices = r["caption_choices"]
            body = (f"Caption: {choices}" if isinstance(choices, str)
                    else "\n".join(f"{task.letters[i]}: {c}" for i, c in enumerate(choices)))
        else:
            body = r["from_description"]
        tail = "Explanation:" if kind == "explanation" else "Answer:"
        return f"{body}\n{tail}" + (f" {answer}" if answer is not None else "")

    examples = "".join(item(s, s["label"]) + "\n\n" for s in shots)
    return f"{instruction}\n\n{examples}{item(row, None)}"


def _description(row: dict) -> str:
    """The richest text description a row has (Hessel annotations, else the nextml sentence)."""
    parts = [row.get("image_location"), row.get("image_description"), row.get("image_uncanny_description")]
    text = " ".join(p for p in parts if p)
    return text or row.get("description") or ""


def _generation_user(row: dict) -> str | None:
    """Zhang's user turn: the full Hessel annotations when present, else the one-sentence description."""
    if row.get("image_description"):
        return prompts.ZHANG_GENERATION_USER.format(
            description=row["image_description"], uncanny=row.get("image_uncanny_description") or "",
            location=row.get("image_location") or "", entities=", ".join(row.get("entities") or []))
    if row.get("description"):
        return prompts.ZHANG_GENERATION_USER_SHORT.format(description=row["description"].rstrip("."))
    return None


def build_instances(task: Task, dataset: str = DEFAULT_DATASET, split: str | None = None, fold: int = 0,
                    shots: int = 0, seed: int = 0) -> list[Instance]:
    """Every instance of a task's split, prompts included; `shots` worked examples come from train (seeded).

    Caption-generation contests with neither a description nor Hessel annotations cannot be prompted and are
    left out with a warning (scoring expects exactly the instances built here).
    """
    split = split or task.default_split
    config = config_name(task, fold)
    rows = load_split(dataset, config, split)
    if shots:
        if not task.folds or task.from_pixels:
            raise ValueError(f"shots: few-shot prompts exist for the Hessel from-description tasks, not {task.name}")
        if not 0 < shots <= N_SHOTS_MAX:
            raise ValueError(f"shots: expected 1..{N_SHOTS_MAX}, got {shots}")
        pool = list(load_split(dataset, config, "train"))
    out: list[Instance] = []
    skipped: list[int] = []
    for row in rows:
        if task.folds:
            chosen = random.Random(_seed(seed, row["instance_id"])).sample(pool, shots) if shots else []
            choices = row["caption_choices"]
            out.append(Instance(
                instance_id=row["instance_id"], user=_hessel_user(task, row, chosen),
                image=row["image"] if task.from_pixels else None,
                choices=choices if isinstance(choices, list) else [choices], letters=task.letters,
                context=_description(row),
                reference={"label": row["label"], "winner_source": row.get("winner_source")},
            ))
        elif task.name == "caption_generation":
            if (user := _generation_user(row)) is None:
                skipped.append(row["contest_number"])
                continue
            groups = {k: row[k] for k in ("human_top10", "human_200", "human_1000", "human_median")}
            out.append(Instance(
                instance_id=str(row["contest_number"]), system=prompts.ZHANG_GENERATION_SYSTEM,
                user=user, context=_description(row),
                reference={"contest_number": row["contest_number"], **groups,
                           "judge_description": ((row["image_description"], row.get("image_uncanny_description") or "")
                                                 if row.get("image_description") else row.get("description")),
                           "judge_image": row.get("image")},  # Best Pick's vision form; never shown to the system
            ))
        else:  # humorbench: the explainer prompt is the single user message, as upstream sends it
            out.append(Instance(
                instance_id=row["caption_id"],
                user=EXPLAINER_PROMPT.format(description=row["description"], caption=row["caption"]),
                context=f"{row['description']} {row['caption']}",
                reference={k: row.get(k) for k in ("description", "caption", "elements", "element_ids",
                                                    "element_categories", "element_in_hard")},
            ))
    if skipped:
        log.warning("%s: %d of %d contests have no description to prompt with and are left out: %s", task.name,
                    len(skipped), len(rows), ", ".join(map(str, skipped[:10])) + (" ..." if len(skipped) > 10 else ""))
    if not out:
        raise ValueError(f"dataset: no {task.name} instance in split {split!r} can be prompted")
    return out
