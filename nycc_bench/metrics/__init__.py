"""The evaluate metric modules (interim: loaded from the checkout's metrics/ until they move into the package)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

METRICS_DIR = Path(__file__).resolve().parents[2] / "metrics"


@cache
def load_metric(name: str) -> Any:
    """A metric module by name, offline."""
    import evaluate

    return evaluate.load(str(METRICS_DIR / name))
