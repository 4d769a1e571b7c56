"""Reading an operator's YAML file (task, judge and family files) without letting it exhaust memory.

A YAML "billion laughs" file is a few hundred bytes whose anchors and aliases expand to billions of nodes when
loaded. Before a file is loaded, its size is checked (`MAX_YAML_BYTES`), and its parse events are walked once
(libyaml's fast parser where present, nothing built) to count the aliases (`MAX_ALIASES`) and the nodes the document
expands to (`MAX_NODES`); a file over any of them is refused in one line naming it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import NyccBenchError

MAX_YAML_BYTES = 1_000_000
"""The largest YAML file read (the largest shipped task file is about 10 kB)."""
MAX_ALIASES = 100
"""Aliases (`*name`) one file may use."""
MAX_NODES = 200_000
"""Nodes one document may expand to once its aliases are resolved."""

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: the CLI reads every task file


def check_yaml_text(text: str, where: str) -> None:
    """Refuse a document with too many aliases, or that expands to too many nodes (without building it)."""
    anchors: dict[str, int] = {}
    stack: list[list[Any]] = [[0, None]]  # [expanded size so far, anchor] per open collection
    aliases = 0
    for event in yaml.parse(text, Loader=LOADER):
        if isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_ALIASES:
                raise NyccBenchError(f"{where}: uses more than {MAX_ALIASES} YAML aliases (*name); write the values "
                                     "out, or use `base:` to share settings")
            stack[-1][0] += anchors.get(str(event.anchor), 1)
        elif isinstance(event, yaml.ScalarEvent):
            stack[-1][0] += 1
            if event.anchor:
                anchors[str(event.anchor)] = 1
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            stack.append([1, event.anchor])
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            size, anchor = stack.pop()
            if anchor:
                anchors[str(anchor)] = size
            stack[-1][0] += size
        if stack[-1][0] > MAX_NODES:
            raise NyccBenchError(f"{where}: its aliases expand to more than {MAX_NODES:,} values (a YAML bomb?); "
                                 "write the file out plainly")


def load_yaml(path: Path, where: str | None = None) -> Any:
    """The document of a YAML file, or one line naming the file when it is too large, a YAML bomb, or not YAML."""
    where = where or str(path)
    try:
        size = path.stat().st_size
    except OSError as err:
        raise NyccBenchError(f"{where}: cannot be read ({err.strerror})") from None
    if size > MAX_YAML_BYTES:
        raise NyccBenchError(f"{where}: is {size:,} bytes, over the {MAX_YAML_BYTES:,}-byte limit for a YAML file; "
                             "is it the right file?")
    try:
        text = path.read_text(encoding="utf-8")
        check_yaml_text(text, where)
        return yaml.load(text, Loader=LOADER)
    except UnicodeDecodeError:
        raise NyccBenchError(f"{where}: is not UTF-8 text; save it as UTF-8") from None
    except yaml.YAMLError as err:
        raise NyccBenchError(f"{where}: not valid YAML ({str(err).splitlines()[0]}); fix the file") from None
