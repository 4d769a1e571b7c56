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
from functools import cache
from importlib import import_module
from typing import Any

from .tasks import Task


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


def _parts(task: Task) -> tuple[Any, Any, Any, str]:
    """The registered builder, parser and scorer of `task`, and its judge protocol's name."""
    from .tasks.kinds import BUILDERS, PARSERS, SCORERS

    return BUILDERS[task.instances], PARSERS[task.parser], SCORERS[task.scorer], str(task.judge.get("protocol"))


def _sources(builder: Any, parser: Any, scorer: Any, protocol: str) -> dict[str, str]:
    seen: dict[str, str] = {}
    for fn in (builder, parser, scorer):
        _closure(fn, seen)
    from .judge.registry import get_protocol, protocol_names  # the modules each protocol object says it runs

    for module in get_protocol(protocol).modules if protocol in protocol_names() else ():
        mod = import_module(f"nycc_bench.judge.protocols.{module}")
        seen[mod.__name__] = inspect.getsource(mod)
    return seen


def code_sources(task: Task) -> dict[str, str]:
    """Qualified name -> source of everything `code_version` covers for `task`."""
    return _sources(*_parts(task))


@cache
def _version(builder: Any, parser: Any, scorer: Any, protocol: str) -> str:
    """Hashed once per process for the same functions (a registry entry replaced at run time is a new key)."""
    digest = hashlib.sha256()
    for name, source in sorted(_sources(builder, parser, scorer, protocol).items()):
        digest.update(f"{name}\n{source}\n".encode())
    return f"code-{digest.hexdigest()[:12]}"


def code_version(task: Task) -> str:
    """`code-<12 hex>`: sha256 over the sorted sources of `code_sources(task)`."""
    return _version(*_parts(task))
