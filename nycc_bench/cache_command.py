"""`nycc-bench cache info|clear`: what the LLM answer cache holds (by model, endpoint and served model), and
emptying it; `--no-cache` (every command that calls an LLM) asks again instead of reading it."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def cache_reads(enabled: bool) -> Iterator[None]:
    """With `enabled` False, no LLM call inside (this process and the processes it starts) reads the cache: each
    is asked again, and its answer stored. The setting is restored afterwards."""
    if enabled:  # the usual case imports nothing (the LLM package is half a baseline run's start-up)
        yield
        return
    from .llm.config import NO_CACHE_ENV

    old = os.environ.get(NO_CACHE_ENV)
    os.environ[NO_CACHE_ENV] = "1"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(NO_CACHE_ENV, None)
        else:
            os.environ[NO_CACHE_ENV] = old


def _when(stamp: float | None) -> str:
    return dt.datetime.fromtimestamp(stamp, dt.UTC).isoformat(timespec="seconds") if stamp else "?"


def _who(identity: dict[str, Any]) -> str:
    """One line naming what answered: model, endpoint (or local model), served model."""
    served = identity.get("served") or {}
    where = identity.get("endpoint") or identity.get("fingerprint") or identity.get("path") or "local model"
    shown = ", ".join(f"{k}={v}" for k, v in served.items() if k != "id")
    return f"{identity.get('backend', '?')}:{identity.get('model', '?')} at {where}" + (f" [{shown}]" if shown else "")


def cmd_cache(args: argparse.Namespace) -> int:
    """Show or clear the LLM answer cache."""
    from .llm import LLMCache, LLMConfig

    directory = LLMConfig(cache_dir=args.cache_dir).resolved_cache_dir()
    with LLMCache(directory) as cache:
        if args.action == "clear":
            deleted = cache.clear(args.model)
            print(f"{cache.path}: deleted {deleted} answers" + (f" of {args.model}" if args.model else ""))
            return 0
        info = cache.info()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"{info['path']}: {info['answers']} answers, {info['bytes'] / 1e6:.1f} MB")
    for group in info["groups"]:
        print(f"  {group['answers']:>8}  {_who(group['identity'])}  ({_when(group['first'])} to "
              f"{_when(group['last'])})")
    return 0


def add_parser(sub: Any) -> None:
    """The `cache` subcommand."""
    c = sub.add_parser("cache", help="the LLM answer cache: `cache info` (what it holds, by model and endpoint), "
                                     "`cache clear` (empty it)")
    c.add_argument("action", choices=["info", "clear"])
    c.add_argument("--cache-dir", help="the cache folder (default: $NYCC_BENCH_CACHE/judge, else "
                                       "~/.cache/nycc_bench/judge)")
    c.add_argument("--model", help="clear: only the answers of this model name")
    c.add_argument("--json", action="store_true", help="info: as JSON")
    c.set_defaults(func=cmd_cache)
