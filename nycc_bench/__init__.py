"""nycc-bench: the NYCC humor benchmarks on the Hugging Face ecosystem.

    from nycc_bench import evaluate, load_results, list_tasks, get_task, push_run, reproduce
"""

from __future__ import annotations

from typing import Any

__version__ = "0.2.0"

_EXPORTS = {"evaluate": "evaluation", "RunResult": "evaluation", "load_results": "evaluation",
            "list_tasks": "tasks", "get_task": "tasks", "push_run": "publish.details",
            "reproduce": "reproducing.report"}


def __getattr__(name: str) -> Any:
    """The public API, imported on first use (so `nycc-bench --help` stays fast)."""
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'nycc_bench' has no attribute {name!r}")


__all__ = ["RunResult", "__version__", "evaluate", "get_task", "list_tasks", "load_results", "push_run", "reproduce"]
