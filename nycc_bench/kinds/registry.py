"""What a task kind is made of: the `Instance` a builder makes, its `Built` result, prompt rendering, and the
registries that task files name (`instances:`, `parser:`, `scorer:`) and each family's `Hooks`, filled by
decorators in each family's module (`kinds/<family>.py`, and the shared `kinds/parsing.py` and `kinds/scorer.py`).

A `kinds.py` outside the package (a folder on the include path) is imported by file path: its registrations
are collected apart from the built-in ones, may not reuse a built-in name, and are switched in with the task
folder they came with (`kinds.loader`), so two include paths never see each other's kinds.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from ..errors import NyccBenchError
from ..tasks.definition import Task


@dataclass
class Instance:
    """One prompt: system and user text, an optional image, the answer choices and what scoring needs (the
    table "The Instance contract" in CONTRIBUTING.md says who writes and reads each field)."""

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


@dataclass
class Built:
    """A builder's result: the instances, the ids of rows that cannot be prompted in this setting (a deviation, and
    against the task's coverage), and of rows that hold nothing to prompt from in any setting (`absent`: not items
    of this dataset, such as the sample's contests without any description; recorded, outside the coverage)."""

    instances: list[Instance]
    skipped: list[Any] = field(default_factory=list)
    absent: list[Any] = field(default_factory=list)


def stable_seed(*parts: object) -> int:
    """A stable seed from any values (Python's hash() is salted per process)."""
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")


def prompt_text(task: Task, role: str, *, final_newline: bool = False) -> str:
    """A prompt file's text as sent: without its attribution header (the leading lines that start with "#") and,
    unless `final_newline` (a prompt whose upstream text ends with one), without the newline that ends the file."""
    lines = task.prompts[role].split("\n")
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    text = "\n".join(lines)
    return text[:-1] if text.endswith("\n") and not final_newline else text


def render(task: Task, role: str, *, final_newline: bool = False, **fields: Any) -> str:
    """A prompt file as sent (`prompt_text`) with its `{placeholders}` filled from `fields` (none: as written)."""
    text = prompt_text(task, role, final_newline=final_newline)
    return text.format(**fields) if fields else text


# a builder: (task, the split's rows, split name -> rows of the same config, option values) -> Built
Builder = Callable[[Task, Any, Callable[[str], Any], Mapping[str, Any]], Built]
# a parser: (raw reply or None, the instance's letters) -> the prediction, or None when unreadable
Parser = Callable[[str | None, str], Any]
# a scorer: (task, instances, predictions, fold ids, judge, option values, dataset=, last_k_tokens=) -> details
Scorer = Callable[..., dict[str, Any]]



@dataclass(frozen=True)
class Hooks:
    """What one family adds to the generic run path, so that `score`, `runner` and `results` never know a family:

    - `option_aliases`: `--system-option` keys that are the family's task options (moved to the task options of a
      task that has them, recorded there);
    - `effective(task, instances, options, judge)`: settings the family adds to the record's `config.effective`
      (read from its instances, e.g. which descriptions the prompts were built from);
    - `deviations(task, instances, options, judge, effective)`: the sentences those settings give where they
      differ from the paper;
    - `check(task)`: static checks of a task file of the family (`tasks check`, every `evaluate`), raising a
      one-line `NyccBenchError`;
    - `details(details)`: a validator of the family's keys in a task entry's `details` (its per-item verdicts),
      returning the first problem as `key: sentence`, or None;
    - `leaderboard_config(task, fold)`: the dataset config of the task's hidden-label leaderboard set (`--split
      leaderboard`), or a one-line error where it has none.
    """

    option_aliases: tuple[str, ...] = ()
    effective: Callable[..., dict[str, Any]] | None = None
    deviations: Callable[..., list[str]] | None = None
    check: Callable[[Task], None] | None = None
    details: Callable[[Mapping[str, Any]], str | None] | None = None
    leaderboard_config: Callable[[Task, int], str] | None = None

    def identity(self) -> str:
        """The same for the same declaration imported twice (its functions by qualified name)."""
        named = [f"{f.__module__}.{f.__qualname__}" if f is not None else "-"
                 for f in self._functions()]
        return f"hooks{self.option_aliases}{named}"

    def _functions(self) -> tuple[Callable[..., Any] | None, ...]:
        return (self.effective, self.deviations, self.check, self.details, self.leaderboard_config)


def _identity(obj: Any) -> str:
    """What makes two registrations the same one (a module imported twice registers again)."""
    return obj.identity() if isinstance(obj, Hooks) else f"{obj.__module__}.{obj.__qualname__}"


def _owner(obj: Any) -> str:
    """The module a registration came from, for error messages."""
    if isinstance(obj, Hooks):
        return next((f.__module__ for f in obj._functions() if f), "?")
    return str(obj.__module__)


BUILDERS: dict[str, Builder] = {}
PARSERS: dict[str, Parser] = {}
SCORERS: dict[str, Scorer] = {}
HOOKS: dict[str, Hooks] = {}  # family key -> what the family adds to the generic path
REGISTRIES: dict[str, dict[str, Any]] = {"builder": BUILDERS, "parser": PARSERS, "scorer": SCORERS, "hooks": HOOKS}

_collecting: list[dict[str, dict[str, Any]]] = []  # the registrations of the outside kinds.py being imported
_BUILT_IN: dict[str, set[str]] = {kind: set() for kind in REGISTRIES}
_ACTIVE: dict[str, set[str]] = {kind: set() for kind in REGISTRIES}  # outside names switched in now

F = TypeVar("F", bound=Callable[..., Any])

ITEM_JUDGMENTS = "item_judgments"
"""The key under which a judged scorer may return, one entry per instance (in order), the list of that
instance's judge verdicts (`{"verdict", "reasoning", ...}`); `score` takes it out of the metric output and
`evaluate` keeps it beside the predictions (`predictions.write_judged`)."""


def _register(kind: str, name: str) -> Callable[[F], F]:
    """A decorator that registers a function under `name` (a built-in name is registered once)."""
    def decorate(fn: F) -> F:
        if _collecting:
            _collecting[-1][kind][name] = fn
            return fn
        old = REGISTRIES[kind].get(name)
        if old is not None and _identity(old) != _identity(fn):
            raise NyccBenchError(f"{_owner(fn)}: {kind} {name!r} is already registered by {_owner(old)}; "
                                 "choose another name")
        REGISTRIES[kind][name] = fn
        _BUILT_IN[kind].add(name)
        return fn
    return decorate


def register_builder(name: str) -> Callable[[F], F]:
    """Register an instance builder under a task file's `instances:` name."""
    return _register("builder", name)


def register_parser(name: str) -> Callable[[F], F]:
    """Register a reply parser under a task file's `parser:` name."""
    return _register("parser", name)


def register_scorer(name: str) -> Callable[[F], F]:
    """Register a scorer under a task file's `scorer.name`."""
    return _register("scorer", name)


def register_hooks(family: str, **hooks: Any) -> Hooks:
    """Declare what the family `family` (its key in a families file) adds to the generic path (see `Hooks`); an
    unknown hook is refused with the nearest one."""
    known = [f.name for f in fields(Hooks)]
    if unknown := sorted(set(hooks) - set(known)):
        near = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f"did you mean {near[0]!r}?" if near else f"hooks are {', '.join(known)}"
        raise NyccBenchError(f"hooks: family {family!r} declares an unknown hook {unknown[0]!r}; {hint}")
    declared = Hooks(**{**hooks, "option_aliases": tuple(hooks.get("option_aliases") or ())})
    return _register("hooks", family)(declared)  # type: ignore[type-var]


@contextmanager
def _collect() -> Iterator[dict[str, dict[str, Any]]]:
    """Registrations made inside go to the yielded mapping (kind -> name -> function), not the registries."""
    found: dict[str, dict[str, Any]] = {kind: {} for kind in REGISTRIES}
    _collecting.append(found)
    try:
        yield found
    finally:
        _collecting.pop()


@cache
def _outside_module(path: Path, mtime_ns: int) -> dict[str, dict[str, Any]]:
    """Import an outside `kinds.py` by file path, once per version of the file; what it registers."""
    name = f"nycc_bench_task_kinds_{hashlib.sha256(f'{path}:{mtime_ns}'.encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise NyccBenchError(f"include-path: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and inspect.getsource (code_version) look modules up by name
    with _collect() as found:
        try:
            spec.loader.exec_module(module)
        except NyccBenchError:
            raise
        except SystemExit as err:  # an exit would end the whole run with nothing written and its status
            sys.modules.pop(name, None)
            raise exit_error(err, "include-path") from None
        except Exception as err:  # an outside file's own error, named with its file
            sys.modules.pop(name, None)
            raise NyccBenchError(f"include-path: {path} fails to import ({type(err).__name__}: {err}); fix the "
                                 "file") from err
    return found


def exit_error(err: SystemExit, where: str) -> NyccBenchError:
    """A `sys.exit()` called by outside code (a task folder's `kinds.py`) as an error naming the file and line."""
    frames = traceback.extract_tb(err.__traceback__)
    at = f"{frames[-1].filename}, line {frames[-1].lineno}" if frames else "a task folder's code"
    return NyccBenchError(f"{where}: {at} calls sys.exit({err.code!r}); a kinds.py must raise an error, never exit "
                          "(fix the file)")


def outside_kinds(path: Path) -> dict[str, dict[str, Any]]:
    """The builders, parsers and scorers an outside `kinds.py` registers (a built-in name is refused)."""
    found = _outside_module(path.resolve(), path.stat().st_mtime_ns)
    for kind, names in found.items():
        if clash := sorted(set(names) & _BUILT_IN[kind]):
            raise NyccBenchError(f"include-path: {path} registers the built-in {kind} {clash[0]!r}; choose another "
                                 "name")
    return found


def activate(found: Mapping[Path, dict[str, dict[str, Any]]]) -> None:
    """Switch in the outside registrations of one include path (kinds.py file -> what it registers), and out
    those of any other; two files of one include path may not register the same name."""
    wanted: dict[str, dict[str, Any]] = {kind: {} for kind in REGISTRIES}
    owner: dict[tuple[str, str], Path] = {}
    for path, registrations in found.items():
        for kind, names in registrations.items():
            for name, fn in names.items():
                if (kind, name) in owner:
                    raise NyccBenchError(f"include-path: {path} and {owner[kind, name]} both register the {kind} "
                                         f"{name!r}; rename one")
                owner[kind, name] = path
                wanted[kind][name] = fn
    for kind, registry in REGISTRIES.items():
        for name in _ACTIVE[kind] - set(wanted[kind]):
            registry.pop(name, None)
        registry.update(wanted[kind])
        _ACTIVE[kind] = set(wanted[kind])
