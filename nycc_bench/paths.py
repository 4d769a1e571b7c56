"""The one way to locate package data: the embedded sample, the task files, the leaderboard seed."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SAMPLE_DIR = PACKAGE / "sample_data"
TASKS_DIR = PACKAGE / "tasks"
SEED_DIR = PACKAGE / "leaderboard" / "seed"
JUDGE_PROMPTS_DIR = PACKAGE / "judge" / "prompts"
