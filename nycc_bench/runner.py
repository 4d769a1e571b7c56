"""`nycc-bench run`: answer every instance of a task with a system, appending predictions as they come.

The predictions file is JSONL, one record per instance, flushed and synced after each batch, so a killed
run loses at most the batch in flight; running the same command again answers only what is missing. A
`<out>.meta.json` beside it records the task, prompt version, system and dataset that produced it.
"""

from __future__ import annotations

import json
import os
import platform
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from . import __version__
from .judge.parsers import parse_explanation
from .systems import Output, System, make_system
from .tasks import Task, config_name, get_task
from .tasks.instances import DEFAULT_DATASET, Instance, build_instances
from .tasks.parsing import parse_captions, parse_choice


@dataclass
class RunSummary:
    """What a run did: instances in the split, answered now, already there, and unparseable outputs."""

    out: str
    total: int
    answered: int
    resumed: int
    unparsed: int


def parse_output(task: Task, inst: Instance, output: Output) -> Any:
    """A system output as the task's prediction; None when it cannot be read (counted, never defaulted)."""
    if task.kind == "choice":
        return output.letter if output.letter is not None else parse_choice(output.raw, inst.letters)
    if output.raw is None:
        return None
    if task.name == "caption_generation":
        return parse_captions(output.raw) or None
    text = parse_explanation(output.raw) if task.name == "humorbench" else str(output.raw).strip()
    return text or None


def read_predictions(path: Path) -> dict[str, dict[str, Any]]:
    """Records of a predictions file by instance id; a torn last line (a killed run) is cut off the file."""
    if not path.exists():
        return {}
    records: dict[str, dict[str, Any]] = {}
    good_bytes = 0
    with open(path, "rb") as f:
        for line in f:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                break
            if not line.endswith(b"\n"):
                break
            records[record["instance_id"]] = record
            good_bytes += len(line)
    if good_bytes != path.stat().st_size:
        with open(path, "r+b") as f:
            f.truncate(good_bytes)
    return records


def _meta(task: Task, system: System, dataset: str, split: str, fold: int, shots: int, seed: int) -> dict:
    """Everything that determines the predictions, for the sidecar file and the resume check."""
    return {"task": task.name, "config": config_name(task, fold), "split": split, "fold": fold, "shots": shots,
            "seed": seed, "prompt_version": task.prompt_version, "task_config": asdict(task),
            "system": system.describe(), "dataset": dataset, "nycc_bench": __version__,
            "python": platform.python_version()}


def _check_resume(meta_path: Path, meta: dict, out: Path) -> None:
    """Refuse to mix predictions of two different runs in one file."""
    if not meta_path.exists():
        return
    old = json.loads(meta_path.read_text())
    for key in ("task", "config", "split", "shots", "seed", "prompt_version", "dataset"):
        if old.get(key) != meta[key]:
            raise ValueError(f"out: {out} holds predictions of another run ({key} {old.get(key)!r}, now "
                             f"{meta[key]!r}); pass another --out or delete the file")
    if old["system"]["spec"] != meta["system"]["spec"]:
        raise ValueError(f"out: {out} holds predictions of system {old['system']['spec']!r}; pass another --out")


def run_task(task_name: str, system_spec: str, out: str | Path, dataset: str = DEFAULT_DATASET,
             split: str | None = None, fold: int = 0, shots: int = 0, seed: int = 0, base_url: str | None = None,
             limit: int | None = None, progress: bool = True, system: System | None = None,
             system_options: dict[str, Any] | None = None) -> RunSummary:
    """Run one system on one task split, resuming from `out` if it holds part of the same run."""
    task = get_task(task_name)
    split = split or task.default_split
    system = system or make_system(system_spec, dataset, base_url=base_url, **(system_options or {}))
    instances = build_instances(task, dataset, split, fold, shots, seed)[:limit]
    out = Path(out)
    meta_path = out.with_name(out.name + ".meta.json")
    meta = _meta(task, system, dataset, split, fold, shots, seed)
    _check_resume(meta_path, meta, out)
    done = read_predictions(out)
    todo = [i for i in instances if i.instance_id not in done]
    unparsed = sum(1 for r in done.values() if r["prediction"] is None)
    answer = system.choose if task.kind == "choice" else system.generate
    with tqdm(total=len(instances), initial=len(instances) - len(todo), desc=f"{task.name} × {system.spec}",
              unit="item", disable=not progress) as bar:
        for start in range(0, len(todo), system.batch_size):
            batch = todo[start:start + system.batch_size]
            outputs = answer(task, batch)  # a system that cannot do the task fails here, before any file exists
            if not meta_path.exists():
                out.parent.mkdir(parents=True, exist_ok=True)
                meta_path.write_text(json.dumps(meta, indent=2, default=str))
            with open(out, "a", encoding="utf-8") as f:
                for inst, output in zip(batch, outputs, strict=True):
                    prediction = parse_output(task, inst, output)
                    unparsed += prediction is None
                    f.write(json.dumps({"instance_id": inst.instance_id, "prediction": prediction, "raw": output.raw,
                                        "prompt_version": task.prompt_version, "system": system.spec},
                                       ensure_ascii=False) + "\n")
                f.flush()
                os.fsync(f.fileno())
            bar.update(len(batch))
    return RunSummary(str(out), len(instances), len(todo), len(instances) - len(todo), unparsed)
