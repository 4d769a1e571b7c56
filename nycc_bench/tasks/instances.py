"""Turn a task's dataset rows into prompts (instances) any system can answer; one builder per task file's
`instances:` name, never a branch on a task's name."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import NyccBenchError
from ..groups import HUMAN_GROUPS
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
    turns: list[dict[str, str]] = field(default_factory=list)  # earlier user/assistant turns (instruction, shots)
    chat: bool = True  # False: sent as plain text, never through a chat template (upstream's raw prompts)

    def messages(self) -> list[dict[str, str]]:
        """The whole chat as text: the system message, the earlier turns and the last user turn (systems that
        send images build their own first user turn)."""
        system = [{"role": "system", "content": self.system}] if self.system else []
        return [*system, *self.turns, {"role": "user", "content": self.user}]

    def text(self) -> str:
        """The whole prompt as one text, for a model without a chat template."""
        return "\n\n".join(p for p in (self.system, *(t["content"] for t in self.turns), self.user) if p)


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
                from ..building import build_command

                raise NyccBenchError(f"dataset: {dataset} has no config {config!r}; add it with "
                                     f"`{build_command(dataset, config)}`")
            raise NyccBenchError(f"split: config {config!r} has no split {split!r}; it has {', '.join(have)}")
        return datasets.load_dataset("parquet", data_files={split: files}, split=split)
    try:
        splits = datasets.load_dataset(dataset, config)
    except (FileNotFoundError, ValueError, ConnectionError) as err:
        reason = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
        raise NyccBenchError(f"dataset: cannot load config {config!r} from {dataset!r} ({reason}); build it with "
                             f"`nycc-bench build --source upstream --out DIR --configs {config}` and pass --dataset DIR"
                             ) from None
    if split not in splits:
        raise NyccBenchError(f"split: config {config!r} has no split {split!r}; it has {', '.join(splits)}")
    return splits[split]


LEADERBOARD_SPLIT = "leaderboard"


def leaderboard_config(task: Task, fold: int = 0) -> str:
    """The config of a task's Hessel leaderboard set (`--split leaderboard`): images and captions, no labels, no
    descriptions, as upstream ships it; only the from-pixels matching and ranking tasks can be prompted from it."""
    base = task.config.removesuffix("_from_pixels")
    if task.instances != "hessel" or base not in ("matching", "ranking") or fold:
        raise NyccBenchError(f"split: leaderboard sets exist for matching and ranking (fold 0), not {task.name}")
    if not task.from_pixels:
        raise NyccBenchError(f"split: the leaderboard sets give the cartoon image and captions only (no description, "
                             f"as upstream ships them); run {base}_from_pixels instead of {task.name}")
    return f"{base}_leaderboard"


def stable_seed(*parts: object) -> int:
    """A stable seed from any values (Python's hash() is salted per process)."""
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")


def _description(row: Mapping[str, Any]) -> str:
    """The richest text description a row has (Hessel annotations, else the nextml sentence)."""
    parts = [row.get("image_location"), row.get("image_description"), row.get("image_uncanny_description")]
    text = " ".join(p for p in parts if p)
    return text or row.get("description") or ""


def prompt_text(task: Task, role: str) -> str:
    """A prompt file's text as sent: without its attribution header (the leading lines that start with "#") and
    without the file's final newline."""
    lines = task.prompts[role].split("\n")
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    text = "\n".join(lines)
    return text[:-1] if text.endswith("\n") else text


def _entity_title(link: str) -> str:
    """A Wikipedia link as upstream names the entity in its prompts (`format_chatgpt_input`): the page title after
    /wiki/ with its anchor, `&redirect=no` and "(disambiguation)" removed, `%27s` replaced by an apostrophe (the
    "s" is dropped, as upstream drops it), underscores as spaces and runs of spaces squeezed."""
    link = link.split("#")[0].replace("&redirect=no", "").replace("https://en.wikipedia.org/?title=", "/wiki/")
    title = link.split("/wiki/", 1)[1] if "/wiki/" in link else link
    title = title.replace("%27s", "'").replace("(disambiguation)", "").replace("_", " ")
    return " ".join(title.split())


def hessel_description(task: Task, row: Mapping[str, Any]) -> str:
    """The cartoon as upstream's GPT-3.5/4 baselines describe it (scene location, description, uncanny
    description, entities: `format_chatgpt_input` mode 4, the paper's)."""
    return prompt_text(task, "description").format(
        location=row["image_location"], description=row["image_description"],
        uncanny=row["image_uncanny_description"], entities=", ".join(_entity_title(e) for e in row["entities"]))


def draw_hessel_shots(test_rows: Any, train_rows: Any, shots: int, seed: int) -> list[list[int]]:
    """Upstream's worked examples for every test item, as train row indices (gpt4_from_description.py).

    numpy's RandomState(seed) (upstream: `np.random.seed(2)`) shuffles the test split's order; then, for each item
    in that order, it picks `shots` distinct train contests (contest numbers sorted) without replacement and one
    train row of each, in that order. So each item has examples from `shots` different contests, redrawn per item,
    and the draw is upstream's own for the same rows (until upstream draws a random letter for an unreadable reply
    from the same stream, which moves its later draws).
    """
    import numpy as np

    by_contest: dict[int, list[int]] = {}
    for k, number in enumerate(train_rows["contest_number"]):
        by_contest.setdefault(number, []).append(k)
    contests = sorted(by_contest)
    if shots > len(contests):
        raise NyccBenchError(f"shots: {shots} examples from distinct contests asked for, but the train split has "
                             f"{len(contests)} contests; pass fewer shots or a larger dataset")
    rng = np.random.RandomState(seed)
    order = list(range(len(test_rows)))
    rng.shuffle(order)
    out: list[list[int]] = [[] for _ in order]
    for k in order:
        picked = [contests[c] for c in rng.choice(len(contests), size=shots, replace=False)]
        out[k] = [by_contest[c][rng.choice(len(by_contest[c]))] for c in picked]
    return out


def _hessel_pixels(task: Task, row: Mapping[str, Any]) -> str:
    """From pixels: our instruction, the captions (or the caption to explain), then "Answer:"/"Explanation:"."""
    choices = row["caption_choices"]
    body = (f"Caption: {choices}" if isinstance(choices, str)
            else "\n".join(f"{task.letters[i]}: {c}" for i, c in enumerate(choices)))
    tail = "Answer:" if task.kind == "choice" else "Explanation:"
    return f"{prompt_text(task, 'instruction')}\n\n{body}\n{tail}"


def _hessel_fields(task: Task, row: Mapping[str, Any]) -> dict[str, str]:
    """The placeholders of upstream's query and worked-example templates for one row."""
    choices = row["caption_choices"]
    return {"description": hessel_description(task, row),
            "choices": "\n".join(f"{letter}: {c}" for letter, c in zip(task.letters, choices, strict=False))
            if not isinstance(choices, str) else "",
            "caption": choices if isinstance(choices, str) else ""}


def _hessel_chat(task: Task, row: Mapping[str, Any], examples: list[Mapping[str, Any]]) -> tuple[str, list, str]:
    """(system, earlier turns, last user turn) of upstream's chat: zero-shot with chain of thought, or few-shot
    with direct answers (`generate_request_*` and `generate_request_*_few_shot`)."""
    if not examples:
        return (prompt_text(task, "system"),
                [{"role": "user", "content": prompt_text(task, "instruction")},
                 {"role": "assistant", "content": prompt_text(task, "acknowledgement")}],
                prompt_text(task, "query").format(**_hessel_fields(task, row)))
    shot, after = prompt_text(task, "shot"), prompt_text(task, "next")
    turns: list[dict[str, str]] = []
    for k, example in enumerate(examples):
        prefix = prompt_text(task, "instruction_direct") if k == 0 else after
        turns += [{"role": "user", "content": shot.format(prefix=prefix, **_hessel_fields(task, example))},
                  {"role": "assistant", "content": prompt_text(task, "shot_answer").format(label=example["label"])}]
    return prompt_text(task, "system_direct"), turns, shot.format(prefix=after, **_hessel_fields(task, row))


def _hessel(task: Task, rows: Any, split_rows: Callable[[str], Any], options: Mapping[str, Any]) -> list[Instance]:
    """Hessel matching / ranking / explanation. From description: upstream's GPT-3.5/4 chats (zero-shot with chain
    of thought, or `shots` worked examples drawn as upstream draws them); from pixels: our instruction and the item."""
    shots, seed = int(options.get("shots", 0)), options.get("seed", 2)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise NyccBenchError(f"task-option: {task.name}.seed must be a non-negative integer, got {seed!r}")
    if shots and task.from_pixels:
        raise NyccBenchError(f"shots: few-shot prompts exist for the from-description tasks, not {task.name}")
    train = split_rows("train") if shots else None
    drawn = draw_hessel_shots(rows, train, shots, seed) if shots else [[] for _ in range(len(rows))]
    out: list[Instance] = []
    for row, picked in zip(rows, drawn, strict=True):
        choices = row["caption_choices"]
        common = {"instance_id": row["instance_id"], "choices": choices if isinstance(choices, list) else [choices],
                  "letters": task.letters,
                  "reference": {"label": row.get("label"), "winner_source": row.get("winner_source"),
                                "description": _description(row),
                                "caption": choices if isinstance(choices, str) else None}}
        if task.from_pixels:  # the system sees the image only, so no description for similarity baselines
            out.append(Instance(user=_hessel_pixels(task, row), image=row["image"], **common))
            continue
        system, turns, user = _hessel_chat(task, row, [train[k] for k in picked])
        out.append(Instance(system=system, turns=turns, user=user, context=_description(row), **common))
    return out




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


def _caption_gen_user(task: Task, row: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The user turn of Zhang's API generation script (`generation/caption_gen.py` L33-48): Hessel's annotations,
    the entities as the last path segment of each Wikipedia URL joined by ", "; None without Hessel's description."""
    if not row.get("image_description"):
        return None, None
    entities = ", ".join(e.split("/")[-1] for e in row.get("entities") or [])
    return task.prompts["caption_gen_user"].format(
        description=row["image_description"], uncanny=row.get("image_uncanny_description") or "",
        location=row.get("image_location") or "", entities=entities), "hessel"


def _save_results_user(task: Task, row: Mapping[str, Any], source: str) -> tuple[str | None, str | None]:
    """The whole plain-text prompt of Zhang's Hugging Face runs (`finetuning/preprocess.py` L18, read by
    `save_results.py`): scene, description, uncanny description and entities joined by ", ", from GPT-4o's
    description (upstream's) or Hessel's annotations; None without either."""
    fields = {"gpt4o": ("gpt4o_canny", "gpt4o_uncanny", "gpt4o_location", "gpt4o_entities"),
              "hessel": ("image_description", "image_uncanny_description", "image_location", "entities")}
    for name in (["gpt4o", "hessel"] if source == "gpt4o" else ["hessel"]):
        desc, uncanny, location, entities = fields[name]
        if row.get(desc):
            return prompt_text(task, "save_results_user").format(
                location=row.get(location) or "", description=row[desc], uncanny=row.get(uncanny) or "",
                entities=", ".join(row.get(entities) or [])), name
    return None, None


def _zhang_generation(task: Task, rows: Any, split_rows: Callable[[str], Any],
                      options: Mapping[str, Any]) -> list[Instance]:
    """Zhang caption generation: one instance per held-out contest; contests that cannot be prompted are left
    out with a warning (they still count as lost when scored, see the scorer). The option `prompt` picks App.
    B.3's chat prompt (`paper`), the API script's (`caption_gen`) or the Hugging Face runs' plain text
    (`save_results`)."""
    out, skipped = [], []
    prompt = options.get("prompt") or "paper"
    for row in rows:
        if prompt == "caption_gen":
            user, source = _caption_gen_user(task, row)
        elif prompt == "save_results":
            user, source = _save_results_user(task, row, options.get("description") or "gpt4o")
        else:
            user, source = _generation_user(task, row, options.get("description") or "gpt4o")
        if user is None:
            skipped.append(row["contest_number"])
            continue
        out.append(Instance(
            instance_id=str(row["contest_number"]), user=user, chat=prompt != "save_results",
            system=(None if prompt == "save_results"
                    else task.prompts["caption_gen_system" if prompt == "caption_gen" else "system"]),
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
    if split == LEADERBOARD_SPLIT:  # Hessel's hidden-label sets: their own configs, one split
        config, split = leaderboard_config(task, fold), "test"
    values = task.options_for("", task.option_values(options))  # unset options: the task's single setting
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
    seen: set[str] = set()
    for inst in out:
        if inst.instance_id in seen:
            raise NyccBenchError(f"dataset: instance id {inst.instance_id!r} occurs twice in {config}/{split} of "
                                 f"{dataset}; each {task.name} row needs its own id (rebuild the dataset)")
        seen.add(inst.instance_id)
    return out
