"""`nycc-bench run`: answer every instance of a task with a system, appending predictions as they come.

Records are flushed and synced after each batch, so a killed run loses at most the batch in flight; running
the same command again answers what is missing and retries what failed. The `<out>.meta.json` sidecar records
the task, its options and prompt version, the decoding settings, the system and the dataset; a second run into
the same file must match it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from . import __version__
from .code_version import code_version
from .errors import NyccBenchError
from .kinds import Instance, option_aliases
from .kinds.instances import DEFAULT_DATASET, build_instances, subset
from .kinds.parsing import read_replies
from .kinds.scorer import gold, item_correct
from .predictions import FAILED, OK, UNPARSED, attach_messages, meta_path, read_meta, read_predictions
from .run_folder import identity_difference
from .secrets import scrub_data
from .systems import Output, System, make_system
from .systems.registry import entry_of
from .tasks import Task, config_name, get_task


@dataclass
class RunSummary:
    """What a run did: instances in the split, answered now, already there, unparseable and failed outputs."""

    out: str
    total: int
    answered: int
    resumed: int
    unparsed: int
    failed: int


def run_meta(task: Task, system: System, dataset: str, split: str, fold: int, options: dict[str, Any]) -> dict:
    """Everything that determines the predictions, for the sidecar file and the resume check."""
    return {"task": task.name, "task_version": task.version, "config": config_name(task, fold), "split": split,
            "fold": fold, "options": options, "prompt_version": task.prompt_version,
            "code_version": code_version(task), "decoding": system.decoding(task),
            "effective": system.effective(task), "system": system.describe(), "dataset": str(dataset),
            "nycc_bench": __version__, "reply_cap_chars": REPLY_CAP_CHARS}


def task_option_aliases(names: list[str]) -> tuple[str, ...]:
    """The `--system-option` keys that are task options of these tasks (their families' `Hooks.option_aliases`)."""
    return option_aliases([get_task(name) for name in names])


def split_options(task: Task, system_options: dict[str, Any] | None,
                  task_options: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(system options, task options): alias keys (its family's `Hooks.option_aliases`) move to the task options
    of a task that has them."""
    system_options, task_options = dict(system_options or {}), dict(task_options or {})
    for key in option_aliases([task]):
        if key in system_options:
            value = system_options.pop(key)
            if key in task.options:
                task_options.setdefault(key, value)
    return system_options, task_options


def choose_task_options(names: list[str], system_options: dict[str, Any],
                        task_options: Mapping[str, Mapping[str, Any]] | None) -> tuple[dict[str, Any], dict]:
    """(aliased, chosen): the system options that are task options of these tasks (their families'
    `Hooks.option_aliases`), taken out of `system_options` before the system is built, and each task's chosen
    options with them (as `evaluate` and its dry run both read them)."""
    aliased = {k: system_options.pop(k) for k in task_option_aliases(names) if k in system_options}
    return aliased, {n: split_options(get_task(n), aliased, (task_options or {}).get(n))[1] for n in names}


def settings_kind(spec: str) -> str:
    """The system kind whose settings a spec's system takes: its class's `settings_kind`, else the spec's kind."""
    entry = entry_of(spec)
    return (entry.cls.settings_kind if entry is not None else "") or spec.partition(":")[0]


def for_system_kind(task: Task, system: System, options: dict[str, Any]) -> tuple[Task, dict[str, Any]]:
    """The task as a system of this kind runs it, and the options with the unset ones filled in: the task file's
    `by_system_kind` settings (upstream's per kind) under the option `setting: per_system`, else its single
    setting. The filled options are recorded, so scoring rebuilds the same prompts."""
    if not task.by_system_kind:
        return task, options
    kind = settings_kind(system.spec)
    return replace(task, decoding=task.decoding_for(kind, options)), task.options_for(kind, options)


RESUME_KEYS = ("task", "config", "split", "options", "prompt_version", "code_version", "decoding", "dataset")


def _check_resume(old: dict | None, meta: dict, out: Path) -> None:
    """Refuse to mix predictions of two different runs in one file: another task setting, prompt, code version,
    dataset, or another system, endpoint or served checkpoint (`run_folder.identity_difference`)."""
    if old is None:
        return
    fix = f"pass a new --out, or --overwrite {meta['task']} (evaluate) to replace them (`run`: delete the file)"
    for key in RESUME_KEYS:
        if old.get(key) != meta[key]:
            raise NyccBenchError(f"out: {out} holds predictions of another run ({key} {old.get(key)!r}, now "
                                 f"{meta[key]!r}); {fix}")
    if difference := identity_difference(old["system"], meta["system"]):
        raise NyccBenchError(f"out: {out} holds predictions of another system ({difference}); {fix}")


REPLY_CAP_CHARS = 32_000
"""A reply longer than this (characters; about 8,000 tokens, far beyond any task's answer) is cut to it, counted as
unparsed and never read: a runaway or hostile endpoint cannot fill the predictions, or pass as an answer."""


def _too_long(raw: str | list | None) -> bool:
    """Whether a reply (or any of several outputs) is over the cap."""
    return any(isinstance(r, str) and len(r) > REPLY_CAP_CHARS for r in (raw if isinstance(raw, list) else [raw]))


def _cut(raw: str | list | None) -> str | list | None:
    """A reply (or each of several outputs) cut to the cap."""
    return [_cut(r) for r in raw] if isinstance(raw, list) else raw[:REPLY_CAP_CHARS] if isinstance(raw, str) else raw


def records(task: Task, batch: list[Instance], outputs: list[Output], spec: str, options: dict[str, Any],
            cache_dir: str | None = None) -> list[dict[str, Any]]:
    """The predictions records of one answered batch: a failed call is `failed`; a letter chosen without text
    (log-likelihood, CLIP) is the answer; received text goes through the task's reading (parser, then Hessel's
    answer extractor or seeded letter where the task says so; see `kinds.parsing.read_replies`)."""
    base = {"prompt_version": task.prompt_version, "system": spec}
    out: dict[int, dict[str, Any]] = {}
    texts = []
    for k, (inst, output) in enumerate(zip(batch, outputs, strict=True)):
        if output.error is not None:
            out[k] = {"instance_id": inst.instance_id, "status": FAILED, "prediction": None, "raw": None,
                      "error": output.error[:500], **base}
        elif task.kind == "choice" and output.letter is not None:
            out[k] = {"instance_id": inst.instance_id, "status": OK, "prediction": output.letter, "raw": output.raw,
                      "answer_source": "system", **base}
        else:
            texts.append(k)
    raws = {k: outputs[k].raw if isinstance(outputs[k].raw, str | list) else None for k in texts}
    cut = {k for k, raw in raws.items() if _too_long(raw)}
    readings = read_replies(task, [(batch[k], None if k in cut else raws[k]) for k in texts], options, cache_dir)
    for k, reading in zip(texts, readings, strict=True):
        if k in cut:  # read as no reply (unparsed); the record keeps its first REPLY_CAP_CHARS characters
            out[k] = {"instance_id": batch[k].instance_id, "raw": _cut(raws[k]), **base, **reading.fields(),
                      "status": UNPARSED, "reply_cut_at": REPLY_CAP_CHARS}
        else:
            out[k] = {"instance_id": batch[k].instance_id, "raw": outputs[k].raw, **base, **reading.fields()}
    for k, inst in enumerate(batch):  # the gold reference and the verdict, so no reader has to re-score
        if inst.reference.get("contest_number") is not None:  # the contest, so a reader can name it
            out[k]["contest"] = inst.reference["contest_number"]
        out[k]["gold"] = gold(task, inst)
        out[k]["correct"] = item_correct(task, out[k], out[k]["gold"])
    return [out[k] for k in range(len(batch))]


def run_task(task_name: str, system_spec: str, out: str | Path, dataset: str = DEFAULT_DATASET,
             split: str | None = None, fold: int = 0, base_url: str | None = None, limit: int | None = None,
             progress: bool = True, system: System | None = None, system_options: dict[str, Any] | None = None,
             task_options: dict[str, Any] | None = None) -> RunSummary:
    """Run one system on one task split and fold, resuming from `out` if it holds part of the same run."""
    task = get_task(task_name)
    split = split or task.split
    system_options, task_options = split_options(task, system_options, task_options)
    options = task.run_options(task.option_values(task_options))
    system = system or make_system(system_spec, dataset, base_url=base_url, **(system_options or {}))
    if identify := getattr(system, "identify", None):  # what the endpoint serves: recorded and compared on resume
        identify()
    task, options = for_system_kind(task, system, options)
    instances = subset(build_instances(task, dataset, split, fold, options), limit)
    out = Path(out)
    meta = scrub_data(run_meta(task, system, dataset, split, fold, options))  # as written, so a resume compares
    if task.by_system_kind:  # the kind picks the settings, and the task file's `when`s read it
        meta["effective"] = {"kind": settings_kind(system.spec), **meta["effective"]}
    _check_resume(read_meta(out), meta, out)
    done = {k: r for k, r in read_predictions(out, repair=True).items() if r["status"] != FAILED}
    todo = [i for i in instances if i.instance_id not in done]
    unparsed = failed = 0
    answer = system.choose if task.kind == "choice" else system.generate
    with tqdm(total=len(instances), initial=len(instances) - len(todo), desc=f"{task.name} × {system.spec}",
              unit="item", disable=not progress) as bar:
        for start in range(0, len(todo), system.batch_size):
            batch = todo[start:start + system.batch_size]
            outputs = answer(task, batch)  # a system that cannot do the task fails here, before any file exists
            if not meta_path(out).exists():
                out.parent.mkdir(parents=True, exist_ok=True)
                meta_path(out).write_text(json.dumps(meta, indent=2, default=str))
            written = records(task, batch, outputs, system.spec, options, getattr(system, "cache_dir", None))
            attach_messages(out, batch, written)  # the prompts, each message stored once per file
            lines = "".join(json.dumps(scrub_data(r), ensure_ascii=False, default=str) + "\n" for r in written)
            whole = out.stat().st_size if out.exists() else 0
            try:
                with open(out, "a", encoding="utf-8") as f:
                    f.write(lines)
                    f.flush()
                    os.fsync(f.fileno())
            except OSError:  # a full disk: the batch is cut off again, so the file holds whole records only
                with open(out, "r+b") as f:
                    f.truncate(whole)
                raise
            unparsed += sum(r["status"] == UNPARSED for r in written)
            failed += sum(r["status"] == FAILED for r in written)
            bar.update(len(batch))
    unparsed += sum(done[i.instance_id]["status"] == UNPARSED for i in instances if i.instance_id in done)
    return RunSummary(str(out), len(instances), len(todo) - failed, len(instances) - len(todo), unparsed, failed)
