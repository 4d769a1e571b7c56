"""The Caption Arena: people vote between two captions of one cartoon, and the votes rate the players (Zhang's
human groups and every published caption_generation run) and measure every judge.

    from nycc_bench import arena
    table = arena.ratings(arena.read_votes("votes.parquet"), length_control=True)
    report = arena.agree(arena.read_votes("votes.parquet"), JudgeSpec.parse("reward:judges/reward"))

The leaderboard's Arena tab serves battles and records votes through `Arena`; `nycc-bench arena export|ratings` and
`nycc-bench judges agree` are the same functions from the shell.
"""

from __future__ import annotations

from .agree import agree, table_lines
from .errors import ArenaRefused
from .export import SCHEMA, arena_dir, export_votes, read_votes, vote_frame, write_votes
from .pool import ANCHOR, Pool, build_pool
from .ratings import Ratings, ratings
from .service import CHOICES, Arena, Receipt, Served
from .settings import ArenaSettings
from .simulate import SimulatedClock, Voter, simulate
from .tokens import TokenRefused, Tokens
from .votes import Vote, VoteStore

__all__ = ["ANCHOR", "CHOICES", "SCHEMA", "Arena", "ArenaRefused", "ArenaSettings", "Pool", "Ratings", "Receipt",
           "Served", "SimulatedClock", "TokenRefused", "Tokens", "Vote", "VoteStore", "Voter", "agree", "arena_dir",
           "build_pool", "export_votes", "ratings", "read_votes", "simulate", "table_lines", "vote_frame",
           "write_votes"]
