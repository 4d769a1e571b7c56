"""The Caption Arena: people vote between two captions of one cartoon, and the votes rate the players (Zhang's
human groups and every published caption_generation run) and measure every judge.

    from nycc_bench import arena
    table = arena.ratings(arena.read_votes("votes.parquet"), length_control=True)
    report = arena.agree(arena.read_votes("votes.parquet"), JudgeSpec.parse("reward:judges/reward"))

The leaderboard's Arena tab serves battles and records votes through `Arena`; `nycc-bench arena export|ratings` and
`nycc-bench judges agree` are the same functions from the shell. Names are imported when first used, so the CLI's
`--help` (which registers the arena's commands) stays free of numpy and pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "agree": "agree", "table_lines": "agree", "ArenaRefused": "errors", "SCHEMA": "export", "arena_dir": "export",
    "export_votes": "export", "read_votes": "export", "vote_frame": "export", "write_votes": "export",
    "ANCHOR": "pool", "Pool": "pool", "build_pool": "pool", "Ratings": "ratings", "ratings": "ratings",
    "CHOICES": "service", "Arena": "service", "Receipt": "service", "Served": "service",
    "ArenaSettings": "settings", "SimulatedClock": "simulate", "Voter": "simulate", "simulate": "simulate",
    "TokenRefused": "tokens", "Tokens": "tokens", "Vote": "votes", "VoteStore": "votes",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """`nycc_bench.arena.X` from the submodule that defines it."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
