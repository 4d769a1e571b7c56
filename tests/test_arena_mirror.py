"""The Hub copy never takes the arena down: a shard with a malformed line (bad JSON, a value SQLite's CHECK refuses)
restores every good vote, once, and says what it skipped on the tab; an upload that committed and then timed out is
never committed again, so the shards hold each vote once."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from arena_helpers import make_arena
from test_arena_integrity import vote_n
from test_arena_tab import hub_app
from test_leaderboard_store import FakeHub

from nycc_bench.arena import ArenaSettings, VoteStore
from nycc_bench.arena.mirror import SHARDS, VoteMirror, shard_text
from nycc_bench.leaderboard.arena_tab import ArenaTab


def people_votes(tmp_path: Path, n: int = 12) -> list:
    """`n` votes of one person, with unguessable ids (a live arena's, unlike the seeded simulated round's)."""
    arena, clock = make_arena(tmp_path / "source", gold_share=0.0, min_seconds=0.0)
    arena._new_id = lambda: secrets.token_hex(8)
    vote_n(arena, clock, "user:ada", n)
    return arena.store.votes()


def test_a_shard_with_bad_lines_restores_every_good_vote_once(tmp_path: Path, sample_dataset: str) -> None:
    votes = people_votes(tmp_path)
    hub = FakeHub(tmp_path / "hub")
    shards = tmp_path / "hub" / "org/results" / SHARDS
    shards.mkdir(parents=True)
    good = shard_text(votes).splitlines()
    broken = json.loads(good[3])
    broken["winner"] = "left"  # valid JSON, refused by the votes table's CHECK
    lines = [*good[:3], "{not json", json.dumps(broken), *good[4:]]
    (shards / "a.jsonl").write_text("\n".join(lines) + "\n")
    (shards / "b.jsonl").write_text(shard_text(votes[5:9]))  # the same votes again (an old double upload)

    tab = ArenaTab(hub_app(tmp_path / "space", hub, sample_dataset), ArenaSettings(min_seconds=0))
    assert tab.error is None and tab.arena is not None  # the arena is up
    restored = {v.vote_id for v in tab.arena.store.votes("WHERE simulated = 0")}
    assert restored == {v.vote_id for v in votes} - {votes[3].vote_id}  # every good vote, each once
    assert len(tab.mirror.skipped) == 2 and "line 4" in tab.mirror.skipped[0] and "winner" in tab.mirror.skipped[1]
    notes = tab.table()[2]
    assert "2 malformed vote line(s) in the Hub copy were skipped" in notes


class LostAnswer(FakeHub):
    """A Hub whose upload commits and then times out once; it can say whether a file is there."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.lose_next, self.uploads = True, 0

    def upload_file(self, path_or_fileobj: bytes, path_in_repo: str, repo_id: str, **kw: Any) -> None:
        super().upload_file(path_or_fileobj, path_in_repo, repo_id, **kw)
        self.uploads += 1
        if self.lose_next:
            self.lose_next = False
            raise TimeoutError("read timed out")

    def file_exists(self, repo_id: str, filename: str, repo_type: str = "dataset") -> bool:
        return (self.root / repo_id / filename).is_file()


def shard_ids(root: Path) -> list[str]:
    return [json.loads(line)["vote_id"] for path in sorted(root.glob("*.jsonl"))
            for line in path.read_text().splitlines()]


@pytest.mark.parametrize("can_ask", [True, False])
def test_an_upload_that_committed_is_never_committed_again(tmp_path: Path, can_ask: bool) -> None:
    """With a Hub client that says whether a file is there, the lost push is found and not uploaded again; with one
    that cannot (or after a restart forgot it), the retry rewrites the same shard (the same first vote)."""
    votes = people_votes(tmp_path, 8)
    store = VoteStore(tmp_path / "space")
    store.add_many(votes[:5])
    hub = LostAnswer(tmp_path / "hub")
    mirror = VoteMirror(store, hub, "org/results", interval_s=0)
    if not can_ask:
        mirror._landed = lambda path: False
    assert mirror.push() == 0 and "read timed out" in mirror.error  # committed, but the answer was lost
    store.add_many(votes[5:])  # more votes arrive meanwhile
    assert mirror.push() == (3 if can_ask else 8) and mirror.error is None
    ids = shard_ids(tmp_path / "hub" / "org/results" / SHARDS)
    assert sorted(ids) == sorted(v.vote_id for v in votes) and len(ids) == len(set(ids))  # each vote once
