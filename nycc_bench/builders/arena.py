"""The `arena_votes` config: the Caption Arena's votes as `nycc-bench arena export` writes them (a file named
`arena_votes.parquet` below --source), one row per vote, so the published dataset carries humor's ground truth
beside the benchmarks it measures."""

from __future__ import annotations

import pyarrow as pa

from ..arena.columns import DESCRIPTIONS, SCHEMA
from ..arena.errors import ArenaRefused
from ..feature_types import from_arrow_schema
from .errors import SourceError
from .options import BuildOptions
from .sources import SourceFiles
from .writer import BuiltConfig, ConfigSpec

VOTES_FILE = "arena_votes.parquet"

ARENA_VOTES = ConfigSpec(
    name="arena_votes",
    family="zhang2024",  # the cartoons and human caption groups are Zhang et al.'s held-out contests
    features=from_arrow_schema(SCHEMA),
    description=(
        "Votes of the leaderboard Space's Caption Arena: a visitor saw one held-out cartoon and two captions written "
        "for it by two anonymous players (a published run's `caption_generation` output, or one caption of Zhang "
        "et al.'s human groups: top 10, #200-209, #1000-1009, median), sides at random, and voted a, b, tie or "
        "both bad before the players were revealed; every battle was a signed, single-use, expiring token issued "
        "by the server. Gold probes (the cartoon's real caption against one written for another cartoon, Hessel's "
        "matching) come one in three until a visitor has answered enough of them, then one in ten. A vote counts "
        "when its visitor is signed in (or anonymous votes were counted by the operator), answered enough probes "
        "well and does not nearly always pick one side; every other row is kept, with `counted` false and the "
        "reason in `excluded_reason`, and `counted` is decided again whenever the file is read (repeated rows "
        "dropped, contradicting rows refused). `voter` is a keyed hash, never a name; `address_hash` a keyed hash "
        "of the client address, never the address. Ratings: `nycc-bench arena ratings FILE` (Bradley-Terry, 95% "
        "bootstrap intervals of the distance from Human #200-209 = 1000, optional length control); judges "
        "against the votes: `nycc-bench judges agree`. "
        "Rows with `simulated` true were cast by simulated voters (the demo's seed), not people. Columns: "
        + "; ".join(f"`{k}`: {v}" for k, v in DESCRIPTIONS.items()) + "."
    ),
)
CONFIGS = {ARENA_VOTES.name: ARENA_VOTES}


def build(sources: SourceFiles, configs: set[str], progress: bool = True,
          options: BuildOptions | None = None) -> list[BuiltConfig]:
    """The votes file below --source as the config's one split, `train` (validated as `read_votes` does)."""
    if ARENA_VOTES.name not in configs or sources.arena_votes is None:
        return []
    from ..arena.export import read_votes  # (pandas: only when there are votes to build)

    try:
        frame = read_votes(sources.arena_votes)
    except ArenaRefused as err:
        raise SourceError(sources.arena_votes, str(err), "write it again with `nycc-bench arena export`") from None
    return [BuiltConfig(ARENA_VOTES, {"train": pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False)})]
