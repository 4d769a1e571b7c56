"""The Browse tab's data: one contest's cartoon, descriptions, and each task's dataset rows as its task file's
`display:` block says (choices, text fields, human caption groups, rubric elements), then what each finished run
answered for its instances. No task is named here. Everything shown as HTML goes through `html.escape`."""

from __future__ import annotations

import html
import json
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..groups import HUMAN_GROUPS, LABELS
from ..kinds.instances import load_split
from ..tasks import Task, all_tasks
from ..tasks.families import families

log = logging.getLogger("nycc_bench.leaderboard")
GROUPS = tuple((group, LABELS[group]) for group in HUMAN_GROUPS)


def configs() -> tuple[str, ...]:
    """Fold 0, test split: what the leaderboard scores; each task's config, then the configs that flag rows."""
    tasks = all_tasks().values()
    return tuple(dict.fromkeys([*(t.config for t in tasks), *(t.display.flag.config for t in tasks if t.display.flag)]))


def group_configs() -> set[str]:
    """The configs whose rows are a contest's human caption groups (`display.view: groups`)."""
    return {t.config for t in all_tasks().values() if t.display.view == "groups"}
e = html.escape


def shown_tasks() -> list[Task]:
    """The tasks whose rows Browse shows, in the registry's order: the first task of each config with a view
    (a variant on its base's config, e.g. a few-shot one, adds its answers but not its rows again)."""
    seen: set[str] = set()
    out = []
    for task in all_tasks().values():
        if task.display.view != "none" and task.config not in seen:
            seen.add(task.config)
            out.append(task)
    return out


@dataclass
class Contest:
    """Everything the dataset says about one contest."""

    number: int
    image: Any = None
    description: str = ""
    uncanny: str = ""
    groups: dict[str, list[str]] = field(default_factory=dict)
    items: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))  # config → rows


class ContestIndex:
    """Row positions by contest over the leaderboard's configs; rows (and images) are read when shown."""

    def __init__(self, dataset: str) -> None:
        self.dataset = dataset

    @cached_property
    def splits(self) -> dict[str, Any]:
        out = {}
        for config in configs():
            try:
                out[config] = load_split(self.dataset, config, "test")
            except ValueError as err:  # a dataset without this config still browses the others
                log.info("browse: %s", err)
        return out

    @cached_property
    def text_splits(self) -> dict[str, Any]:
        """The same splits without their image column (reading a row then decodes no image)."""
        return {c: rows.remove_columns("image") if "image" in rows.column_names else rows
                for c, rows in self.splits.items()}

    @cached_property
    def positions(self) -> dict[int, list[tuple[str, int]]]:
        where: dict[int, list[tuple[str, int]]] = defaultdict(list)
        for config, rows in self.splits.items():
            for i, number in enumerate(rows["contest_number"]):
                if number is not None:
                    where[int(number)].append((config, i))
        return dict(sorted(where.items()))

    def choices(self) -> list[tuple[str, int]]:
        """(label, contest number) for a dropdown; the label starts with the contest's description."""
        out = []
        for number in self.positions:
            text = self.contest(number, images=False).description
            out.append((f"#{number}: {text[:70]}{'...' if len(text) > 70 else ''}", number))
        return out

    def contest(self, number: int, images: bool = True) -> Contest:
        """One contest's rows gathered by config (a config whose task shows groups gives the contest's groups)."""
        contest = Contest(number)
        for config, i in self.positions.get(int(number), []):
            row = (self.splits if images else self.text_splits)[config][i]
            if images and contest.image is None and row.get("image") is not None:
                contest.image = row["image"]
            described = row.get("image_description") or row.get("description") or ""
            if len(described) > len(contest.description):
                contest.description = described
            contest.uncanny = contest.uncanny or row.get("image_uncanny_description") or ""
            if config in group_configs():
                contest.groups = {k: row.get(k) or [] for k, _ in GROUPS}
            contest.items[config].append(row)
        return contest


def _choice_list(row: dict[str, Any], letters: str) -> str:
    label = row.get("label")
    parts = []
    for letter, caption in zip(letters, row.get("caption_choices") or [], strict=False):
        mark = " <b>(answer)</b>" if letter == label else ""
        parts.append(f"<li><b>{letter}</b>. {e(caption)}{mark}</li>")
    return "<ul class='nycc-choices'>" + "".join(parts) + "</ul>"


def _item_html(task: Task, row: dict[str, Any], flagged: set[str]) -> list[str]:
    """One dataset row of a task, as its `display.view` says (the heading, then the body)."""
    display, ident = task.display, str(row[task.display.id])
    if display.view == "elements":
        tag = f" <span class='nycc-tag'>{e(display.flag.tag)}</span>" if display.flag and ident in flagged else ""
        elements = "".join(
            f"<li>{e(text)}" + (f" <i>({e(', '.join(cats))})</i>" if cats else "") + "</li>"
            for text, cats in zip(row.get("elements") or [], row.get("element_categories") or [], strict=False))
        return [f"<h4>{e(families()[task.family].title)} caption {e(ident)}{tag}</h4><p>{e(row['caption'])}</p>"
                f"<p>Elements an explanation must contain:</p><ul>{elements}</ul>"]
    heading = f"<h4>{e(task.summary)} <small>item {e(ident[:8])}</small></h4>"
    if display.view == "text":
        return [heading, "".join(f"<p><b>{e(label)}.</b> {e(str(row.get(key)))}</p>"
                                 for key, label in display.fields.items())]
    return [heading, _choice_list(row, task.letters)]


def contest_html(contest: Contest) -> str:
    """The contest's text: description, the human caption groups, then each shown task's rows."""
    out = [f"<h3>Contest #{contest.number}</h3>"]
    if contest.description:
        out.append(f"<p><b>Description.</b> {e(contest.description)}</p>")
    if contest.uncanny:
        out.append(f"<p><b>What is unusual.</b> {e(contest.uncanny)}</p>")
    shown = shown_tasks()
    if contest.groups:
        family = next(families()[t.family].title for t in shown if t.display.view == "groups")
        out.append(f"<h4>Human caption groups ({e(family)})</h4><div class='nycc-groups'>")
        for key, label in GROUPS:
            items = "".join(f"<li>{e(c)}</li>" for c in contest.groups.get(key, []))
            out.append(f"<div><b>{label}</b><ol>{items or '<li><i>none</i></li>'}</ol></div>")
        out.append("</div>")
    for task in shown:
        if task.display.view == "groups":
            continue
        flag = task.display.flag
        flagged = {str(r[flag.key]) for r in contest.items.get(flag.config, [])} if flag else set()
        for row in contest.items.get(task.config, []):
            out += _item_html(task, row, flagged)
    return "\n".join(out)


class Predictions:
    """Predictions files read once per change, by path."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[int, dict[str, Any]]] = {}

    def records(self, path: Path) -> dict[str, Any]:
        try:
            mtime = path.stat().st_mtime_ns
        except OSError:
            return {}
        cached = self._cache.get(path)
        if cached is None or cached[0] != mtime:
            records = {}
            with open(path, encoding="utf-8") as f:
                for line in f:
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError:
                        break  # a torn last line of a run in progress
                    records[record["instance_id"]] = record
            cached = self._cache[path] = (mtime, records)
        return cached[1]


def _instance_ids(contest: Contest) -> dict[str, list[tuple[str, Any]]]:
    """task → (instance id, reference) of this contest's items."""
    out: dict[str, list[tuple[str, Any]]] = {}
    for name, task in all_tasks().items():
        out[name] = [(str(r[task.display.id]), r.get("label") if task.kind == "choice" else None)
                     for r in contest.items.get(task.config, [])]
    return out


def _shown(prediction: Any) -> str:
    if prediction is None:
        return "<i>unparseable</i>"
    if isinstance(prediction, list):
        return "<ol>" + "".join(f"<li>{e(str(p))}</li>" for p in prediction) + "</ol>"
    return e(str(prediction))


def output_rows(contest: Contest, results: list[dict[str, Any]], resolve: Any, cache: Predictions) -> list[str]:
    """One HTML table row per (run, task, item) of this contest that a run answered (fold 0 files)."""
    rows = []
    ids = _instance_ids(contest)
    for result in results:
        name = result.get("model", {}).get("name") or result.get("model", {}).get("spec") or "?"
        for task, entry in result.get("tasks", {}).items():
            files = entry.get("predictions") or []
            if not files or not ids.get(task):
                continue
            try:
                records = cache.records(resolve(files[0]))
            except ValueError:  # a path that leaves the store: shown as nothing, never read
                continue
            for instance_id, label in ids[task]:
                if (record := records.get(instance_id)) is None:
                    continue
                verdict = "" if label is None else ("correct" if record.get("prediction") == label else "wrong")
                rows.append(f"<tr><td>{e(name)}</td><td>{e(task)}</td><td>{e(instance_id[:8])}</td>"
                            f"<td>{_shown(record.get('prediction'))}</td><td>{verdict}</td></tr>")
    return rows


def outputs_html(contest: Contest, results: list[dict[str, Any]], resolve: Any, cache: Predictions) -> str:
    """What every run answered for this contest's instances, in a table."""
    rows = output_rows(contest, results, resolve, cache)
    if not rows:
        return "<p><i>No finished run has answered this contest's items yet.</i></p>"
    return ("<h4>What the models said</h4><table class='nycc-outputs'><thead><tr><th>Model</th><th>Task</th>"
            "<th>Item</th><th>Answer</th><th>Result</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def showcase(index: ContestIndex, results: list[dict[str, Any]], resolve: Any, cache: Predictions,
             tries: int = 200) -> int | None:
    """The contest Browse opens on: the first with a cartoon, the human caption groups and some run's answers
    (else the first with a cartoon and captions, else the first contest); None for an empty dataset."""
    numbers = list(index.positions)
    groups = group_configs()
    with_groups = [n for n in numbers if any(c in groups for c, _ in index.positions[n])]
    fallback = None
    for number in with_groups[:tries]:
        contest = index.contest(number)
        if contest.image is None:
            continue
        if output_rows(contest, results, resolve, cache):
            return number
        fallback = fallback or number
    return fallback or (with_groups or numbers or [None])[0]
