"""The benchmark families, read once from `families.yaml`: the one home of their titles, citations and licences.

An outside task folder (the include path) may hold its own `families.yaml` with the same keys: its families then
have a CLI group, a leaderboard tab and a card like the built-in ones. A key may not redefine a built-in family."""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

from ..errors import NyccBenchError
from ..yaml_files import load_yaml
from .path import inside, task_path

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
    name = path.name if path == FILE else str(path)
    raw = load_yaml(path, f"families file {name}")
    if not isinstance(raw, dict) or not raw:
        raise NyccBenchError(f"families file {name}: expected a mapping of family keys to their entries")
    out = []
    for key, entry in raw.items():
        where = f"families file {name}: {key}"
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
    _check_groups(out, name)
    return {f.key: f for f in sorted(out, key=lambda f: (f.order, f.key))}


def _check_groups(found: list[Family], name: str) -> None:
    """Each family its own CLI group name, and none called `all`."""
    groups = [f.group for f in found]
    if len(set(groups)) != len(groups) or "all" in groups:
        raise NyccBenchError(f"families file {name}: two families share a group name (or one is `all`); "
                             "give each its own")


def families() -> dict[str, Family]:
    """Every family by key, in `order`: the built-in ones and those of the include path's `families.yaml` files."""
    return _families(task_path())


@cache
def _families(folders: tuple[Path, ...]) -> dict[str, Family]:
    """The built-in families and each outside folder's, read once per include path."""
    out = read_families()
    for folder in folders:
        if not (path := folder / "families.yaml").is_file():
            continue
        for key, family in read_families(inside(folder, "families.yaml", "include-path")).items():
            if key in out:
                raise NyccBenchError(f"families file {path}: family {key!r} is already defined; give yours "
                                     "another key, or leave it out to use the built-in one")
            out[key] = family
        _check_groups(list(out.values()), str(path))
    return dict(sorted(out.items(), key=lambda kv: (kv[1].order, kv[0])))


def groups() -> dict[str, str | None]:
    """CLI group name -> family key; `all` -> None (every task)."""
    return {"all": None, **{f.group: f.key for f in families().values()}}
