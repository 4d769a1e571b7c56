"""Run a coroutine from synchronous code, also when an event loop is already running (Jupyter, Gradio)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def run_sync(make_coroutine: Callable[[], Awaitable[T]]) -> T:
    """Run ``make_coroutine()`` to completion and return its result.

    With no loop running in this thread, ``asyncio.run`` runs it here. Inside a running loop (a notebook
    cell, an async web handler calling sync code) that is impossible, so it runs on a fresh loop in a
    worker thread and this thread waits for it; the coroutine is created in that thread.
    """
    try:
        asyncio.get_running_loop()
        inside_loop = True
    except RuntimeError:
        inside_loop = False
    if not inside_loop:  # run outside the except block, so a raised error carries no unrelated context
        return asyncio.run(_as_coroutine(make_coroutine))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="nycc-judge") as pool:
        return pool.submit(asyncio.run, _as_coroutine(make_coroutine)).result()


async def _as_coroutine(make_coroutine: Callable[[], Awaitable[T]]) -> T:
    return await make_coroutine()
