"""Novelty / contamination check: do generated captions copy human submissions of the caption contest?

The public names are imported on first use, so the CLI can register `nycc-bench novelty` without loading numpy,
scipy or datasketch.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {"add_novelty_parser": "cli", "cmd_novelty": "cli", "Settings": "index", "default_cache_dir": "index",
            "load_index": "index", "novelty_report": "report", "NORMALISATION": "text", "normalise": "text"}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'nycc_bench.novelty' has no attribute {name!r}")


__all__ = sorted(_EXPORTS)
