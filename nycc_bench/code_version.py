"""`code_version`: a hash of the code that turns a task's rows into prompts, replies into predictions and
predictions into numbers, so predictions made by other code are never resumed into or scored as if current.

It covers the task's instance builder, parser and scorer, each with every function or class of this package it
calls (followed through module globals, and through a class's methods), the task's metric (its module and the
scoring functions its class reaches: a changed formula is a new version, even though the scorer reaches the
metric by name), and the modules of the task's judge protocol. Editing any of them changes the version; editing
an unrelated function does not.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import linecache
import types
from collections.abc import Iterator
from functools import cache
from importlib import import_module
from pathlib import Path
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


STATEMENT_LISTS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
"""The fields of a statement that hold statements (an except clause's and a match case's `body` too)."""
_BLOCKS: dict[str, tuple[list[str], dict[int, int], dict[str, tuple[int, int]]]] = {}


def _blocks(filename: str) -> tuple[list[str], dict[int, int], dict[str, tuple[int, int]]]:
    """A module file's lines and its definitions as `inspect.getsource` finds them: each function's first line
    (decorators included) → its last line, and each class's qualified name → (first line, last line), the first
    of a name in the order inspect's class finder visits them. Parsed once while the file is unchanged."""
    linecache.checkcache(filename)  # as inspect does: a file changed on disk is read again
    lines = linecache.getlines(filename)
    if (known := _BLOCKS.get(filename)) is not None and known[0] is lines:
        return known
    starts: dict[int, int] = {}
    classes: dict[str, tuple[int, int]] = {}

    def visit(node: ast.AST, prefix: str) -> None:  # statements only (no definition lives in an expression)
        lists = [getattr(node, name) for name in node._fields if name in STATEMENT_LISTS]  # in inspect's order
        for child in (child for statements in lists for child in statements):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                first = child.decorator_list[0].lineno if child.decorator_list else child.lineno
                if isinstance(child, ast.ClassDef):
                    classes.setdefault(prefix + child.name, (first, child.end_lineno or first))
                    visit(child, f"{prefix}{child.name}.")
                else:
                    starts.setdefault(first, child.end_lineno or first)
                    visit(child, f"{prefix}{child.name}.<locals>.")
            else:
                visit(child, prefix)

    visit(ast.parse("".join(lines), filename), "")
    _BLOCKS[filename] = (lines, starts, classes)
    return _BLOCKS[filename]


def _source(obj: Any) -> str:
    """`inspect.getsource(obj)` for a function or class, read from one parse of its module per process (inspect
    tokenizes the file from the definition on for every function and parses the whole module for every class,
    most of a baseline run's scoring time); anything else, or a definition not found, goes to inspect itself."""
    obj = inspect.unwrap(obj) if inspect.isfunction(obj) else obj
    filename = inspect.getsourcefile(obj)
    lines, starts, classes = _blocks(filename) if filename else ([], {}, {})
    if lines:
        if inspect.isclass(obj):
            span = classes.get(obj.__qualname__)
        else:
            first = getattr(getattr(obj, "__code__", None), "co_firstlineno", None)
            span = (first, starts[first]) if first in starts and obj.__name__ != "<lambda>" else None
        if span is not None:
            return "".join(lines[span[0] - 1:span[1]])
    return inspect.getsource(obj)


def _closure(fn: Any, seen: dict[str, str]) -> None:
    """The source of `fn` and of every function or class of this package it reaches, by qualified name."""
    key = f"{fn.__module__}.{fn.__qualname__}"
    if key in seen:
        return
    try:
        seen[key] = _source(fn)
    except (OSError, TypeError):
        seen[key] = key
        return
    if inspect.isclass(fn):  # a class reaches what its methods call (a metric's `_compute`)
        for member in vars(fn).values():
            member = getattr(member, "__func__", member)  # staticmethod / classmethod
            if inspect.isfunction(member):
                _follow(member, seen)
        return
    _follow(fn, seen)


def _follow(fn: Any, seen: dict[str, str]) -> None:
    """Every function or class of this package that `fn`'s code names, through its module's globals."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    for name in _names(code):
        obj = fn.__globals__.get(name)
        if _ours(obj):
            _closure(obj, seen)


def _parts(task: Task) -> tuple[Any, Any, Any, str, str]:
    """The registered builder, parser and scorer of `task`, its judge protocol's name and its metric's name."""
    from .kinds import builders, parsers, scorers

    return (builders()[task.instances], parsers()[task.parser], scorers()[task.scorer], str(task.judge.get("protocol")),
            str(task.metric))


def _metric_sources(names: set[str], seen: dict[str, str]) -> None:
    """The metric modules named (whole, read as text: importing them would import `evaluate`, and so torch), with
    what their rules reach (`metrics/rules.py`, the `scoring/` functions)."""
    from importlib.util import find_spec

    from .metrics import METRIC_NAMES
    from .metrics.rules import RULES

    for name in sorted(names & set(METRIC_NAMES)):
        module = f"{__package__}.metrics.{name}"
        spec = find_spec(module)
        seen[module] = Path(spec.origin).read_text() if spec is not None and spec.origin else ""
        if name in RULES:
            _closure(RULES[name], seen)


def _named_metrics(sources: dict[str, str]) -> set[str]:
    """Metric names quoted in the sources (a scorer that loads its metric by name: `load_metric("x")`)."""
    from .metrics import METRIC_NAMES

    text = "\n".join(sources.values())
    return {name for name in METRIC_NAMES if f'"{name}"' in text or f"'{name}'" in text}


def _sources(builder: Any, parser: Any, scorer: Any, protocol: str, metric: str = "") -> dict[str, str]:
    seen: dict[str, str] = {}
    for fn in (builder, parser, scorer):
        _closure(fn, seen)
    _metric_sources({metric} | _named_metrics(seen), seen)
    from .judge.registry import get_protocol, protocol_names  # the modules each protocol object says it runs

    for module in get_protocol(protocol).modules if protocol in protocol_names() else ():
        mod = import_module(f"nycc_bench.judge.protocols.{module}")
        seen[mod.__name__] = inspect.getsource(mod)
    return seen


def code_sources(task: Task) -> dict[str, str]:
    """Qualified name -> source of everything `code_version` covers for `task`."""
    return _sources(*_parts(task))


@cache
def _version(builder: Any, parser: Any, scorer: Any, protocol: str, metric: str) -> str:
    """Hashed once per process for the same functions (a registry entry replaced at run time is a new key)."""
    digest = hashlib.sha256()
    for name, source in sorted(_sources(builder, parser, scorer, protocol, metric).items()):
        digest.update(f"{name}\n{source}\n".encode())
    return f"code-{digest.hexdigest()[:12]}"


def code_version(task: Task) -> str:
    """`code-<12 hex>`: sha256 over the sorted sources of `code_sources(task)`."""
    return _version(*_parts(task))
