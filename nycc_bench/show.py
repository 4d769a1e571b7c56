"""`nycc-bench show RUN_DIR TASK INSTANCE_ID`: one answered instance as it was run: the prompt's messages (from
the predictions file's message store), the reply, the answer read from it, and the verdict against the dataset."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from .errors import NyccBenchError
from .predictions import read_judged, read_meta, read_predictions, record_messages


def _files(run_dir: Path, task: str) -> list[Path]:
    """The task's predictions files in a run folder (one per fold)."""
    folder = run_dir / "predictions"
    files = sorted(p for p in folder.glob(f"{task}*.jsonl") if re.fullmatch(rf"{re.escape(task)}(_fold\d+)?\.jsonl",
                                                                             p.name))
    if not files:
        have = sorted({m.group(1) for p in folder.glob("*.jsonl") if (m := re.fullmatch(r"([^.]+?)(_fold\d+)?\.jsonl",
                                                                                          p.name))})
        raise NyccBenchError(f"task: {run_dir} has no predictions of {task!r}"
                             + (f"; it has {', '.join(have)}" if have else "; pass a run folder of `evaluate`"))
    return files


def _instance(meta: dict[str, Any] | None, task_name: str, instance_id: str) -> Any:
    """The instance rebuilt from the dataset the run read (None when that dataset is not here)."""
    if not meta:
        return None
    from .kinds.instances import build_instances
    from .tasks import get_task

    try:
        built = build_instances(get_task(task_name), str(meta["dataset"]), meta.get("split"), int(meta.get("fold", 0)),
                                meta.get("options") or {})
    except (NyccBenchError, OSError):
        return None
    return next((i for i in built if i.instance_id == instance_id), None)


def verdict(task_name: str, record: dict[str, Any], instance: Any) -> str:
    """Correct or wrong for a choice task; the reference for a generation task (scored over all items)."""
    from .tasks import get_task

    task = get_task(task_name)
    if record.get("status") == "failed":
        return f"failed: no reply ({record.get('error') or 'unknown error'}); re-run to retry"
    if instance is None:
        return "unknown: the run's dataset is not here to compare with"
    label = instance.reference.get("label")
    if task.kind == "choice":
        if record.get("prediction") is None:
            return f"wrong (no answer); the answer is {label}"
        right = record["prediction"] == label
        return f"{'correct' if right else 'wrong'}: answered {record['prediction']}, the answer is {label}"
    if task.needs_judge:
        return "judged over the whole task (`nycc-bench evaluate --judge`); no single verdict is stored"
    return f"scored over all items ({task.metric}); the reference is: {label}"


def flag_lines(judged: dict[str, Any] | None) -> list[str]:
    """Each text an offline judge found not to be a caption or an explanation, with its reason, once."""
    seen: dict[str, str] = {}
    for v in (judged or {}).get("verdicts") or []:
        found = v.get("flagged") or []
        for flag in [found] if isinstance(found, dict) else found:
            text = flag.get("caption") or flag.get("instance") or ""
            seen.setdefault(f"{flag.get('reason')}: {flag.get('detail')}" + (f" ({text!r})" if text else ""), "")
    return list(seen)


def show(run_dir: str | Path, task: str, instance_id: str) -> str:
    """The text `nycc-bench show` prints."""
    run_dir = Path(run_dir)
    blocks = []
    for path in _files(run_dir, task):
        record = read_predictions(path).get(instance_id)
        if record is None:
            continue
        meta = read_meta(path)
        instance = _instance(meta, task, instance_id)
        messages = record_messages(path, record)
        where = f"{task}, fold {meta.get('fold', 0) if meta else '?'}, instance {instance_id} ({path.name})"
        lines = [f"== {where}"]
        if messages is None and instance is not None:
            lines.append("(prompt rebuilt from the dataset: this record predates kept prompts)")
            messages = instance.messages()
        for m in messages or []:
            lines += [f"--- {m['role']}{' (with the cartoon)' if m.get('image') else ''} ---", str(m["content"])]
        if messages is None:
            lines.append("--- prompt: not kept, and the run's dataset is not here to rebuild it ---")
        raw = record.get("raw")
        lines += ["--- reply ---", raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)]
        source = f", from {record['answer_source']}" if record.get("answer_source") else ""
        lines += ["--- answer ---", f"{json.dumps(record.get('prediction'), ensure_ascii=False)} "
                                    f"(status {record.get('status')}{source})"]
        lines += ["--- verdict ---", verdict(task, record, instance)]
        if flags := flag_lines(read_judged(path).get(instance_id)):
            lines += ["--- not a caption / not an explanation (the offline judge's check: it loses / FAILs) ---",
                      *flags]
        blocks.append("\n".join(lines))
    if not blocks:
        raise NyccBenchError(f"instance: no {task} prediction has id {instance_id!r} in {run_dir}/predictions")
    return "\n\n".join(blocks)


def add_show_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `show` on the CLI's subparsers."""
    p = subparsers.add_parser("show", help="one answered instance: prompt, reply, parsed answer and verdict")
    p.add_argument("run_dir", help="a run folder of `nycc-bench evaluate`")
    p.add_argument("task", help="the task name")
    p.add_argument("instance_id", help="the instance id (as in the predictions file)")
    p.set_defaults(func=cmd_show)


def cmd_show(args: argparse.Namespace) -> int:
    """Print one answered instance."""
    from .progress import working

    with working(f"show: {args.task} {args.instance_id} (its prompt, reply and verdict)"):  # a line at once
        text = show(args.run_dir, args.task, args.instance_id)
    print(text)
    return 0
