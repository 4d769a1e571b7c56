"""The benchmark families, read once from `families.yaml`: the one home of their titles, citations and licences."""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

import yaml

from ..errors import NyccBenchError

FILE = Path(__file__).resolve().parent / "families.yaml"


@dataclass(frozen=True)
class Family:
    """One benchmark family: the paper, its upstream data, the terms it comes under and its CLI group."""

    key: str
    order: int
    group: str  # the CLI group name (`--tasks hessel`)
    title: str  # the leaderboard tab
    reference: str  # authors, year and paper title
    contents: str  # what the family's data holds
    summary: str  # one or two sentences; the task list is added from the registry where it is shown
    measures: str  # the About page's "what is measured" line
    license: str  # a Hub license identifier
    upstream: str
    bibtex: str

    @property
    def heading(self) -> str:
        """`Hessel et al. 2023, Do Androids Laugh at Electric Sheep? (matching, ranking, explanation)`."""
        return f"{self.reference} ({self.contents})"


KEYS = tuple(f.name for f in fields(Family) if f.name != "key")


def read_families(path: Path = FILE) -> dict[str, Family]:
    """Every family of a families file, in `order`; a missing or unknown key is one line naming it."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict) or not raw:
        raise NyccBenchError(f"families file {path.name}: expected a mapping of family keys to their entries")
    out = []
    for key, entry in raw.items():
        where = f"families file {path.name}: {key}"
        if not isinstance(entry, dict):
            raise NyccBenchError(f"{where}: expected a mapping with {', '.join(KEYS)}")
        if unknown := sorted(set(entry) - set(KEYS)):
            raise NyccBenchError(f"{where}: unknown key {unknown[0]!r}; known keys: {', '.join(KEYS)}")
        if missing := [k for k in KEYS if k not in entry]:
            raise NyccBenchError(f"{where}: lacks {', '.join(missing)}; copy the keys of another family")
        if not isinstance(entry["order"], int) or isinstance(entry["order"], bool):
            raise NyccBenchError(f"{where}: order must be a whole number, got {entry['order']!r}")
        if bad := [k for k in KEYS if k != "order" and not (isinstance(entry[k], str) and entry[k].strip())]:
            raise NyccBenchError(f"{where}: {bad[0]} must be a non-empty string")
        out.append(Family(key=str(key), **entry))
    groups = [f.group for f in out]
    if len(set(groups)) != len(groups) or "all" in groups:
        raise NyccBenchError(f"families file {path.name}: two families share a group name (or one is `all`); "
                             "give each its own")
    return {f.key: f for f in sorted(out, key=lambda f: (f.order, f.key))}


@cache
def families() -> dict[str, Family]:
    """Every family by key, in the papers' order (read on first use)."""
    return read_families()


def groups() -> dict[str, str | None]:
    """CLI group name -> family key; `all` -> None (every task)."""
    return {"all": None, **{f.group: f.key for f in families().values()}}
