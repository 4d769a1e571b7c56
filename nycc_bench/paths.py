"""The one way to locate package data: the embedded sample, the task files, the leaderboard seed."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
_CHECKOUT_SAMPLE = PACKAGE.parent / "sample_data"
SAMPLE_DIR = PACKAGE / "sample_data" if (PACKAGE / "sample_data").is_dir() else _CHECKOUT_SAMPLE
TASKS_DIR = PACKAGE / "tasks"
SEED_DIR = PACKAGE / "leaderboard" / "seed"
