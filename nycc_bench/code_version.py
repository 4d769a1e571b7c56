"""`code_version`: a hash of the code that turns a task's rows into prompts, replies into predictions and
predictions into numbers, so predictions made by other code are never resumed into or scored as if current.

It covers the task's instance builder, parser and scorer, each with every function or class of this package it
calls (followed through module globals), and the modules of the task's judge protocol. Editing any of them
changes the version; editing an unrelated function does not.
"""

from __future__ import annotations

import hashlib
import inspect
import types
from collections.abc import Iterator
from typing import Any

from .tasks import Task

PROTOCOL_MODULES: dict[str, tuple[str, ...]] = {
    "overall": ("overall", "group_comparison", "zhang_format"),
    "best_pick": ("best_pick", "group_comparison", "zhang_format"),
    "humorbench_autograder": ("humorbench",),
    "explanation_pairwise": ("explanation_pairwise",),
}
"""The modules of `nycc_bench.judge.protocols` whose code a protocol runs."""


def _names(code: types.CodeType) -> Iterator[str]:
    """Global names a code object (and the functions, lambdas and comprehensions inside it) refers to."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _ours(obj: Any) -> bool:
    """A function or class defined in this package."""
    return (inspect.isfunction(obj) or inspect.isclass(obj)) and (getattr(obj, "__module__", "") or "").startswith(
        "nycc_bench")


def _closure(fn: Any, seen: dict[str, str]) -> None:
    """The source of `fn` and of every function or class of this package it reaches, by qualified name."""
    key = f"{fn.__module__}.{fn.__qualname__}"
    if key in seen:
        return
    try:
        seen[key] = inspect.getsource(fn)
    except (OSError, TypeError):
        seen[key] = key
        return
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    for name in _names(code):
        obj = fn.__globals__.get(name)
        if _ours(obj):
            _closure(obj, seen)


def code_sources(task: Task) -> dict[str, str]:
    """Qualified name -> source of everything `code_version` covers for `task`."""
    from importlib import import_module

    from .scorers import SCORERS
    from .tasks.instances import BUILDERS
    from .tasks.parsing import PARSERS

    seen: dict[str, str] = {}
    for fn in (BUILDERS[task.instances], PARSERS[task.parser], SCORERS[task.scorer]):
        _closure(fn, seen)
    protocol = task.judge.get("protocol")
    for module in PROTOCOL_MODULES.get(str(protocol), ()):
        mod = import_module(f"nycc_bench.judge.protocols.{module}")
        seen[mod.__name__] = inspect.getsource(mod)
    return seen


def code_version(task: Task) -> str:
    """`code-<12 hex>`: sha256 over the sorted sources of `code_sources(task)`."""
    digest = hashlib.sha256()
    for name, source in sorted(code_sources(task).items()):
        digest.update(f"{name}\n{source}\n".encode())
    return f"code-{digest.hexdigest()[:12]}"
