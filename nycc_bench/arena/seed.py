"""An arena round of simulated voters on a dataset and a set of published runs: the demo's round and the
leaderboard's seed (`leaderboard/seed/arena/votes.jsonl`, labelled simulated wherever it is shown)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..splits import read_rows
from .errors import ArenaRefused
from .mirror import read_shards, shard_text
from .pool import Pool, build_pool, generation_tasks
from .service import Arena
from .settings import ArenaSettings
from .simulation import SimulatedClock, Voter, simulate
from .votes import VoteStore

if TYPE_CHECKING:
    import pyarrow as pa

SEED_VOTES = 600
SEED_FILE = Path("arena") / "votes.jsonl"


def dataset_pool(dataset: str, results: Iterable[Mapping[str, Any]], resolve: Callable[[str], Path],
                 split: str = "test") -> Pool:
    """The pool of a dataset's generation config split (text only) and the runs in `results`."""
    configs = sorted(set(generation_tasks().values()))
    if not configs:
        raise ArenaRefused("tasks: no task shows human caption groups (`display.view: groups`); the arena has no "
                           "cartoons to show")
    rows = read_rows(dataset, configs[0], split)
    with_image: set[int] = set()
    if "image" in rows.column_names:  # which cartoons have an image: their stored bytes or path, none decoded
        with_image = _with_image(rows.table)
        rows = rows.remove_columns("image")
    return build_pool(rows, results, resolve, with_image)


def _with_image(table: pa.Table) -> set[int]:
    """The contests whose `image` struct holds bytes or a path (read from the Arrow column, nothing decoded)."""
    import pyarrow.compute as pc

    image = table.column("image")
    present = [pc.fill_null(pc.greater(pc.binary_length(pc.struct_field(image, field)), 0), False)
               for field in ("bytes", "path")]
    return {int(c) for c in table.column("contest_number").filter(pc.or_(*present)).to_pylist()}


def simulated_round(folder: Path, pool: Pool, n_votes: int = SEED_VOTES, seed: int = 0,
                    strengths: Mapping[str, float] | None = None) -> VoteStore:
    """A vote store in `folder` filled by simulated voters through the arena's own path (tokens, minimum time,
    cap, gold probes); one careless voter (gold accuracy 30%) shows the exclusion at work."""
    # simulated voters: a fixed salt, the same file each time; no fsync per vote (rerunning makes them again)
    store = VoteStore(folder, salt=f"simulated-{seed}", durable=False)
    clock = SimulatedClock()
    arena = Arena(store, pool, ArenaSettings(), clock=clock, seed=seed)
    voters = [Voter(f"simulated-{i}") for i in range(max(2, n_votes // 60))] + [Voter("simulated-careless", 0.3)]
    simulate(arena, clock, n_votes, strengths=strengths, voters=voters, seed=seed)
    return store


def write_seed(seed_dir: Path, store: VoteStore) -> Path:
    """The round's votes as the leaderboard's seed file."""
    path = Path(seed_dir) / SEED_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(shard_text(store.votes()), encoding="utf-8")
    return path


def load_seed(store: VoteStore, seed_dir: Path) -> int:
    """Seed an empty vote store from the shipped simulated round (marked mirrored: it is never uploaded)."""
    path = Path(seed_dir) / SEED_FILE
    if store.count() or not path.exists():
        return 0
    return store.add_many(read_shards(path.parent), mirrored=True)
