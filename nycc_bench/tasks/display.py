"""A task file's `display:` block: how the leaderboard's Browse tab shows the task's dataset rows and answers.

    display: {view: choices}                               # caption_choices lettered by `letters`, the label marked
    display: {view: text, fields: {caption_choices: Caption, label: Human explanation}}
    display: {view: groups}                                # the contest's human caption groups
    display: {view: elements, id: caption_id, flag: {config: humorbench_hard, key: caption_id, tag: hard}}
    display: {view: none}                                  # rows not shown (they repeat another task's); answers are
    display: {title: HumorBench explanation}              # the task's short name on model cards

`id` is the row field that is the predictions' instance id (default `instance_id`; `contest_number` for a task
answered once per contest). Browse never branches on a task's name: it renders any task from these keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import NyccBenchError

View = Literal["choices", "text", "groups", "elements", "none"]
VIEWS: tuple[str, ...] = ("choices", "text", "groups", "elements", "none")


@dataclass(frozen=True)
class Flag:
    """A dataset config whose rows flag some of the task's rows (e.g. a hard subset): matched on `key`, tagged."""

    config: str
    key: str
    tag: str


@dataclass(frozen=True)
class Display:
    """How Browse shows a task (see the module docstring); the default shows nothing but the task's answers."""

    view: View = "none"
    id: str = "instance_id"
    fields: Mapping[str, str] = field(default_factory=dict)  # view text: row field -> its label, in order
    flag: Flag | None = None
    title: str = ""  # the task's short name on model cards; empty: from its name (`matching` -> `Matching`)


def read_display(raw: Any, where: str) -> Display:
    """A `Display` from a task file's `display:` block (keys already checked); a wrong value is one line."""
    if raw is None:
        return Display()
    view = raw.get("view", "none")
    if view not in VIEWS:
        raise NyccBenchError(f"{where}: display.view must be one of {', '.join(VIEWS)}, got {view!r}")
    fields = raw.get("fields") or {}
    if not isinstance(fields, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in fields.items()):
        raise NyccBenchError(f"{where}: display.fields must map row fields to labels, e.g. {{label: Answer}}")
    if view == "text" and not fields:
        raise NyccBenchError(f"{where}: display.view text needs display.fields (row field: label)")
    flag = raw.get("flag")
    if flag is not None:
        if not isinstance(flag, Mapping) or sorted(flag) != ["config", "key", "tag"] \
                or not all(isinstance(v, str) and v for v in flag.values()):
            raise NyccBenchError(f"{where}: display.flag needs config, key and tag (strings)")
        flag = Flag(flag["config"], flag["key"], flag["tag"])
    ident = raw.get("id", "instance_id")
    if not isinstance(ident, str) or not ident:
        raise NyccBenchError(f"{where}: display.id must be a row field name, e.g. instance_id")
    title = raw.get("title", "")
    if not isinstance(title, str):
        raise NyccBenchError(f"{where}: display.title must be a string, got {title!r}")
    return Display(view, ident, dict(fields), flag, title)
