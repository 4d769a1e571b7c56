"""`nycc-bench reproduce`: every published figure the public inputs allow, recomputed beside its printed value.

    from nycc_bench import reproduce
    report = reproduce(source="upstream", only=["humorbench"])
    report.failed  # figures that should match and do not

Imported on first use, so `nycc-bench --help` stays fast.
"""

from __future__ import annotations

from typing import Any

from .figures import PAPERS

_EXPORTS = {"reproduce": "report", "Report": "report", "Figure": "figures"}


def __getattr__(name: str) -> Any:
    """`reproduce`, `Report` and `Figure`, imported on first use."""
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'nycc_bench.reproducing' has no attribute {name!r}")


__all__ = ["PAPERS", "Figure", "Report", "reproduce"]
