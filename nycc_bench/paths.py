"""The one way to locate package data (the embedded sample, the task files, the leaderboard seed) and the caches."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SAMPLE_DIR = PACKAGE / "sample_data"
TASKS_DIR = PACKAGE / "tasks"
SEED_DIR = PACKAGE / "leaderboard" / "seed"
JUDGE_PROMPTS_DIR = PACKAGE / "judge" / "prompts"


def cache_dir(name: str) -> Path:
    """A cache folder, always outside the installed package: `$NYCC_BENCH_CACHE/<name>`, else
    `$XDG_CACHE_HOME/nycc_bench/<name>`, else `~/.cache/nycc_bench/<name>`."""
    root = os.environ.get("NYCC_BENCH_CACHE")
    if root:
        return Path(root).expanduser() / name
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "nycc_bench" / name
