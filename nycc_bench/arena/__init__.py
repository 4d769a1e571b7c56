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

_MODULES = {
    "agreement": ("agree", "table_lines"), "errors": ("ArenaRefused",),
    "export": ("SCHEMA", "arena_dir", "export_votes", "read_votes", "vote_frame", "write_votes"),
    "pool": ("ANCHOR", "Pool", "build_pool"), "rating": ("Ratings", "ratings"),
    "service": ("CHOICES", "Arena", "Receipt", "Served"), "settings": ("ArenaSettings",),
    "simulation": ("SimulatedClock", "Voter", "simulate"), "tokens": ("TokenRefused", "Tokens"),
    "votes": ("Vote", "VoteStore"),
}
_HOMES = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """`nycc_bench.arena.X` from the submodule that defines it."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
