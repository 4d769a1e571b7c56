"""The one registry of systems: `@register_system` on a `System` subclass, and everything derived from it.

A system is one decorated class. Its registration names the spec (`random`, `hf:<model>`), the help line, whether
nycc-bench ships it as a baseline, and what its model card says; the CLI help, `SPECS`, `BASELINES`, the README
systems table, the model cards and the leaderboard seed all read it from here. The decorator imports nothing
heavy, so a module outside the package (a user's import, a task folder's `kinds.py`) can register a system too.
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ..errors import NyccBenchError
from .base import DECODING_KEYS, System

if TYPE_CHECKING:
    from ..tasks import Task

NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
SPEC_PARAMS = ("arg", "dataset", "base_url")  # what `from_spec` gets besides the options
S = TypeVar("S", bound=type[System])


@dataclass(frozen=True)
class SystemEntry:
    """One registered system: its class and what the CLI, the README, the cards and the seed say about it."""

    name: str  # the spec's kind, before any ':' (`random`, `hf`)
    cls: type[System]
    help: str  # one line: what it is
    form: str  # how a spec is written: `random[:SEED]`, `hf:<model>[@revision]`
    baseline: str | None  # the display title when nycc-bench ships it as a baseline (demo, seed, cards)
    baseline_spec: str  # the spec a baseline is run as
    limitation: str | None  # the model card's first limitation
    options: tuple[str, ...]  # the options it takes beyond its spec (decoding keys not included)
    decoding: bool  # it sends decoding settings, so it takes the decoding keys as options too
    hub_model: bool  # its spec's argument names a Hub model (a card's `base_model`)

    def accepted(self) -> list[str]:
        """Every option name `make_system` accepts for this system, decoding keys last."""
        return [*self.options, *(DECODING_KEYS if self.decoding else ())]

    def check_arg(self, spec: str, arg: str) -> None:
        """A spec with an argument the form has no place for, or without one it needs, cannot be read."""
        takes, optional = ":" in self.form, "[:" in self.form
        if (arg and not takes) or (not arg and takes and not optional):
            raise unknown_spec(spec)


REGISTRY: dict[str, SystemEntry] = {}


def constructor_options(cls: type[System]) -> tuple[str, ...]:
    """The options a class takes: `from_spec`'s own keywords past (arg, dataset, base_url), or, when `from_spec`
    passes `**options` on, the constructor's parameters that have defaults (those `from_spec` names excepted)."""
    spec_params = inspect.signature(cls.from_spec).parameters
    named = [n for n, p in spec_params.items() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    if not any(p.kind is p.VAR_KEYWORD for p in spec_params.values()):
        return tuple(n for n in named if n not in SPEC_PARAMS)
    init = inspect.signature(cls.__init__).parameters
    return tuple(n for n, p in init.items() if n != "self" and n not in named and p.default is not p.empty
                 and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL))


def register_system(name: str, *, help: str, form: str | None = None, baseline: str | None = None,
                    baseline_spec: str | None = None, limitation: str | None = None,
                    options: tuple[str, ...] | None = None, decoding: bool = False,
                    hub_model: bool = False) -> Callable[[S], S]:
    """Register a `System` subclass as the system `name` (a spec `name` or `name:<arg>`, read by its
    `from_spec`). `form` is how the spec is written (default `name`); `baseline` its display title if it is a
    baseline; `options` default to those of its signature (`constructor_options`); `decoding`: it sends the
    task's decoding settings and takes the decoding keys as options."""
    if not NAME.match(name):
        raise NyccBenchError(f"system: a system name is lower-case letters, digits, '_' or '-', got {name!r}")

    def decorate(cls: S) -> S:
        if not (isinstance(cls, type) and issubclass(cls, System)):
            raise NyccBenchError(f"system: @register_system({name!r}) goes on a subclass of "
                                 "nycc_bench.systems.System")
        taken = REGISTRY.get(name)
        if taken and (taken.cls.__module__, taken.cls.__qualname__) != (cls.__module__, cls.__qualname__):
            raise NyccBenchError(f"system: {name!r} is already registered by {taken.cls.__module__}."
                                 f"{taken.cls.__qualname__}; register {cls.__name__} under another name")
        cls.system_kind = name
        REGISTRY[name] = SystemEntry(
            name=name, cls=cls, help=" ".join(help.split()), form=form or name, baseline=baseline,
            baseline_spec=baseline_spec or name, limitation=limitation,
            options=tuple(options) if options is not None else constructor_options(cls), decoding=decoding,
            hub_model=hub_model)
        return cls

    return decorate


def unknown_spec(spec: str) -> NyccBenchError:
    """The error for a spec no system reads: it lists the forms."""
    forms = "\n".join(f"  {form:<26} {text}" for form, text in SPECS.items())
    return NyccBenchError(f"system: cannot read {spec!r}; a system is one of:\n{forms}")


def lookup(spec: str) -> SystemEntry:
    """The registered system a spec names (`kind` or `kind:arg`); an unreadable spec lists the forms."""
    kind, _, arg = spec.partition(":")
    entry = REGISTRY.get(kind)
    if entry is None:
        raise unknown_spec(spec)
    entry.check_arg(spec, arg)
    return entry


def check_options(owner: str, options: Mapping[str, object], accepted: list[str]) -> None:
    """One line naming an option `owner` does not take, and the names it does take."""
    if unknown := sorted(set(options) - set(accepted)):
        near = difflib.get_close_matches(unknown[0], accepted, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise NyccBenchError(f"system-option: {owner} takes no option {unknown[0]!r}{hint}; it takes: "
                             f"{', '.join(accepted) or 'none'}")


def make_system(spec: str, dataset: str, base_url: str | None = None, **options: object) -> System:
    """Build a system from its spec; decoding options (temperature, top_p, ...) override every task's defaults
    and are recorded as deviations. An option the system does not take is refused in one line."""
    entry = lookup(spec)
    check_options(entry.name, options, entry.accepted())  # decoding keys: only systems that send them
    decoding = {k: options.pop(k) for k in DECODING_KEYS if k in options}
    system = entry.cls.from_spec(spec.partition(":")[2], dataset, base_url, **options)
    system.decoding_overrides = decoding
    return system


class _View(Mapping[str, str]):
    """A read-only mapping computed from the registry on every read, so later registrations show."""

    def __init__(self, items: Callable[[], dict[str, str]]) -> None:
        self._items = items

    def __getitem__(self, key: str) -> str:
        return self._items()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())

    def __repr__(self) -> str:
        return repr(self._items())


SPECS: Mapping[str, str] = _View(lambda: {e.form: e.help for e in REGISTRY.values()})
"""How each system's spec is written → what it is (errors, `--help`, cards)."""

BASELINES: Mapping[str, str] = _View(lambda: {e.baseline_spec: e.baseline for e in REGISTRY.values() if e.baseline})
"""The baselines nycc-bench ships: the spec each runs as → its display name (demo, leaderboard seed, cards)."""


def entry_of(spec: str) -> SystemEntry | None:
    """The registered system of a spec's kind, or None (no error: for describing recorded results)."""
    return REGISTRY.get(spec.partition(":")[0])


def options_line() -> str:
    """Each system's options, for `--system-option`'s help: `sbert: batch_size; hf: batch_size, ...`."""
    return "; ".join(f"{e.name}: {', '.join(e.options)}" for e in REGISTRY.values() if e.options)


def markdown_table() -> str:
    """The README's systems table: each spec form, what it is, and the options it takes."""
    rows = ["| spec | what it is | options (`--system-option`) |", "|---|---|---|"]
    for e in REGISTRY.values():
        options = ", ".join(f"`{o}`" for o in e.options) or "—"
        if e.decoding:
            options += " and the decoding keys" if e.options else "the decoding keys"
        rows.append(f"| `{e.form}` | {e.help}{' (a baseline)' if e.baseline else ''} | {options} |")
    return "\n".join(rows)




def answered(entry: SystemEntry, tasks: Mapping[str, Task] | None = None) -> list[str]:
    """The tasks (registered ones by default) a system answers by its class's declarations (`System.answers`,
    `System.inputs`)."""
    if tasks is None:
        from ..tasks import all_tasks

        tasks = all_tasks()
    return [name for name, task in tasks.items() if entry.cls.can_answer(task)]


def baseline_matrix(tasks: Mapping[str, Task] | None = None) -> dict[str, list[str]]:
    """Each baseline's spec -> the tasks it answers: the one matrix the seed, the cards and the tests read."""
    return {e.baseline_spec: answered(e, tasks) for e in REGISTRY.values() if e.baseline}
