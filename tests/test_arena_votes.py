"""Only server-issued battles count: forged, altered, replayed, expired and someone else's tokens are refused with
the reason; the minimum time and the daily cap hold; gold probes score visitors and a visitor below the threshold is
left out of the ratings (recorded, not deleted); battles pair different texts of one cartoon with random sides;
votes are append-only; bad input is one line naming the field."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import itsdangerous.timed
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from arena_helpers import make_arena, small_pool

from nycc_bench.arena import (
    ArenaRefused,
    ArenaSettings,
    TokenRefused,
    Tokens,
    Voter,
    ratings,
    read_votes,
    simulate,
    vote_frame,
    write_votes,
)
from nycc_bench.arena.text import display_text


def served_and_read(arena, clock, visitor="alice", gold=False):
    """A battle served to `visitor` (a gold probe or not), after the minimum time."""
    arena.settings = ArenaSettings(**{**arena.settings.__dict__, "gold_share": 0.99 if gold else 0.0})
    served = arena.next_battle(visitor)
    assert served.battle.gold == gold
    clock.advance(arena.settings.min_seconds + 0.5)
    return served


def test_a_vote_reveals_the_players_and_is_stored(tmp_path) -> None:
    arena, clock = make_arena(tmp_path, gold_share=0.0)
    served = served_and_read(arena, clock)
    assert served.left != served.right and served.battle.left_side in "ab"
    receipt = arena.vote(served.token, "left", "alice", flag_right=True)
    vote = receipt.vote
    left_player = vote.player_a if vote.left_side == "a" else vote.player_b
    assert receipt.left_player == arena.pool.name(left_player)
    assert vote.winner == vote.left_side  # "left" maps onto the caption shown there
    assert (vote.flag_b if vote.left_side == "a" else vote.flag_a) and not (vote.flag_a and vote.flag_b)
    assert arena.store.votes()[0] == vote
    assert vote.voter != "alice" and len(vote.voter) == 16  # pseudonymous


def test_forged_altered_replayed_expired_and_foreign_tokens_are_refused(tmp_path, monkeypatch) -> None:
    arena, clock = make_arena(tmp_path, gold_share=0.0)
    served = served_and_read(arena, clock)
    forged = Tokens(secret="another key").issue(served.battle)
    with pytest.raises(TokenRefused, match="forged or altered"):
        arena.vote(forged, "left", "alice")
    payload, stamp, signature = served.token.rsplit(".", 2)
    altered = f"{payload[:-2]}{'AA' if payload[-2:] != 'AA' else 'BB'}.{stamp}.{signature}"  # another payload
    with pytest.raises(TokenRefused, match="forged or altered"):
        arena.vote(altered, "left", "alice")
    with pytest.raises(TokenRefused, match="another visitor"):
        arena.vote(served.token, "left", "mallory")
    with pytest.raises(TokenRefused, match="no battle was served"):
        arena.vote(None, "left", "alice")
    arena.vote(served.token, "left", "alice")
    with pytest.raises(TokenRefused, match="replayed"):
        arena.vote(served.token, "right", "alice")
    late = served_and_read(arena, clock)
    real_time = itsdangerous.timed.time.time
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: real_time() + arena.settings.token_ttl_s + 5)
    with pytest.raises(TokenRefused, match="expired"):
        arena.vote(late.token, "left", "alice")
    monkeypatch.undo()
    assert len(arena.store.votes()) == 1


def test_minimum_time_and_daily_cap(tmp_path) -> None:
    arena, clock = make_arena(tmp_path, gold_share=0.0, daily_cap=3, min_seconds=3.0)
    served = arena.next_battle("bob")
    clock.advance(1.0)
    with pytest.raises(ArenaRefused, match=r"vote: cast 1\.0 s after .*\(at least 3 s\)"):
        arena.vote(served.token, "tie", "bob")
    clock.advance(2.5)
    arena.vote(served.token, "tie", "bob")  # the same token, once read long enough
    for _ in range(2):
        arena.vote(served_and_read(arena, clock, "bob").token, "both_bad", "bob")
    with pytest.raises(ArenaRefused, match="daily cap of 3 votes"):
        arena.vote(served_and_read(arena, clock, "bob").token, "left", "bob")
    clock.advance(24 * 3600)
    arena.vote(served_and_read(arena, clock, "bob").token, "left", "bob")  # a new day
    arena.vote(served_and_read(arena, clock, "carol").token, "left", "carol")  # the cap is per visitor


def test_gold_failures_lower_accuracy_and_exclude_the_visitor_from_ratings(tmp_path) -> None:
    arena, clock = make_arena(tmp_path, gold_threshold=0.75, gold_min=2)
    for visitor, right in (("good", True), ("bad", False)):
        for _ in range(2):
            probe = served_and_read(arena, clock, visitor, gold=True)
            assert {probe.left, probe.right} >= {arena.pool.captions[probe.battle.caption_a].text}
            real_side = "left" if probe.battle.left_side == "a" else "right"
            wrong_side = "right" if real_side == "left" else "left"
            receipt = arena.vote(probe.token, real_side if right else wrong_side, visitor)
            assert receipt.vote.gold_correct is right
            assert "Gold probe" in receipt.left_player and "Gold probe" in receipt.right_player
        for k in range(15):  # both sides (a visitor always on one side is left out as side-biased)
            arena.vote(served_and_read(arena, clock, visitor).token, ("left", "right", "tie")[k % 3], visitor)
    assert arena.store.gold_record(arena.voter("good")) == (2, 2)
    assert arena.store.gold_record(arena.voter("bad")) == (0, 2)
    frame = vote_frame(arena.store.votes(), arena.settings)
    bad = frame[frame["voter"] == arena.voter("bad")]
    assert len(bad) == 17 and not bad["counted"].any()  # recorded, not deleted
    assert (bad[~bad["gold"]]["excluded_reason"] == "gold accuracy 0/2 below 75%").all()
    good = frame[(frame["voter"] == arena.voter("good")) & ~frame["gold"]]
    assert good["counted"].all() and len(good) == 15
    assert ratings(frame, rounds=20).n_votes == 15  # the bad visitor's votes and every probe left out


def test_battles_pair_different_texts_of_one_cartoon_least_voted_first_and_unseen(tmp_path) -> None:
    arena, clock = make_arena(tmp_path, pool=small_pool(2), gold_share=0.0)
    pairs, sides = set(), set()
    for _ in range(30):
        served = served_and_read(arena, clock, "dora")
        a, b = (arena.pool.captions[c] for c in (served.battle.caption_a, served.battle.caption_b))
        assert a.contest == b.contest == served.battle.contest and a.text != b.text and a.player != b.player
        key = tuple(sorted((a.id, b.id)))
        assert key not in pairs  # never a pair this visitor has seen
        pairs.add(key)
        sides.add(served.battle.left_side)
        arena.vote(served.token, "tie", "dora")
    assert sides == {"a", "b"}
    counts = list(arena.store.pair_counts().values())
    assert len(counts) == 6 and max(counts) - min(counts) <= 1  # 4 players: least-voted pairs first


def test_quotes_and_numbering_never_give_a_player_away() -> None:
    assert display_text("“alpha says 1”") == display_text('alpha says 1') == "alpha says 1"
    assert display_text("3. Hello  there") == "Hello there"
    assert all('“' not in c.text for c in small_pool().captions.values())


def test_votes_are_append_only(tmp_path) -> None:
    arena, clock = make_arena(tmp_path, gold_share=0.0)
    arena.vote(served_and_read(arena, clock).token, "left", "alice")
    db = sqlite3.connect(arena.store.path)
    for statement in ("UPDATE votes SET winner = 'b'", "DELETE FROM votes"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(statement)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_vote_on_a_retired_player_or_a_removed_cartoon_is_refused(tmp_path) -> None:
    arena, clock = make_arena(tmp_path, pool=small_pool(2, models=("alpha",)), gold_share=0.0)
    while True:
        served = served_and_read(arena, clock)
        players = {arena.pool.captions[c].player for c in (served.battle.caption_a, served.battle.caption_b)}
        if "run:alpha" in players:
            break
        arena.vote(served.token, "tie", "alice")
    arena.set_pool(small_pool(2, models=()))  # the run was removed
    with pytest.raises(ArenaRefused, match=r"^caption_[ab]: written by a retired player"):
        arena.vote(served.token, "left", "alice")
    other = served_and_read(arena, clock)
    while other.battle.contest != 2:
        arena.vote(other.token, "tie", "alice")
        other = served_and_read(arena, clock)
    arena.set_pool(small_pool(1, models=()))  # cartoon 2 left the dataset
    with pytest.raises(ArenaRefused, match=r"^contest: 2 is not a cartoon of this arena"):
        arena.vote(other.token, "left", "alice")


@pytest.mark.parametrize(("call", "message"), [
    (lambda arena: arena.vote("x", "up", "alice"), "choice: expected one of left, right, tie, both_bad, got 'up'"),
    (lambda arena: arena.next_battle(""), "visitor: no session"),
    (lambda arena: arena.pool.add(arena.pool.players["human:human_200"], 99, ["text"]),
     "contest: 99 is not a cartoon of the arena"),
])
def test_bad_input_is_one_line_naming_the_field(tmp_path, call, message) -> None:
    arena, _ = make_arena(tmp_path)
    with pytest.raises(ArenaRefused) as err:
        call(arena)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_export_round_trip_and_malformed_exports(tmp_path) -> None:
    arena, clock = make_arena(tmp_path, min_seconds=0.0)
    simulate(arena, clock, 60, voters=[Voter("v1"), Voter("v2")], seed=1)
    frame = vote_frame(arena.store.votes(), arena.settings)
    path = tmp_path / "votes.parquet"
    write_votes(frame, path)
    back = read_votes(path)
    assert len(back) == 60 and list(back.columns) == list(frame.columns)
    assert back["voted_at"].dt.tz is not None and back["description"].str.contains("<b>bold</b>").all()
    (tmp_path / "junk.parquet").write_text("not parquet")
    with pytest.raises(ArenaRefused, match=r"^votes: .*junk.parquet is not a parquet file"):
        read_votes(tmp_path / "junk.parquet")
    frame.drop(columns="winner").to_parquet(tmp_path / "cut.parquet")
    with pytest.raises(ArenaRefused, match="has no column 'winner'"):
        read_votes(tmp_path / "cut.parquet")
    bad = frame.copy()
    bad.loc[3, "caption_a"] = ""
    write_votes(bad, tmp_path / "empty.parquet")
    with pytest.raises(ArenaRefused, match=r"^caption_a: empty in row 3"):
        read_votes(tmp_path / "empty.parquet")
    with pytest.raises(ArenaRefused, match=r"^caption_b: empty caption in row 0"):
        ratings(pd.DataFrame({"player_a": ["x"], "player_b": ["y"], "winner": ["a"], "caption_a": ["t"],
                              "caption_b": [" "]}))


def test_a_simulated_round_is_the_same_file_each_time_and_a_live_arena_draws_unguessable_ids(tmp_path) -> None:
    """The shipped seed round is regenerated byte for byte (seeded ids, a fixed salt for voters who are no one);
    a live arena (no seed) still takes its battle ids and voter salt from `secrets`."""
    from nycc_bench.arena.seed import simulated_round, write_seed

    files = [write_seed(tmp_path / f"seed{k}", simulated_round(tmp_path / f"round{k}", small_pool(), n_votes=120))
             for k in (1, 2)]
    assert files[0].read_bytes() == files[1].read_bytes() and files[0].read_text().count("\n") >= 100
    from nycc_bench.arena import Arena, VoteStore

    live = [Arena(VoteStore(tmp_path / f"live{k}"), small_pool()) for k in (1, 2)]
    assert live[0].store.salt != live[1].store.salt
    assert live[0].next_battle("alice").battle.battle_id != live[1].next_battle("alice").battle.battle_id


def test_real_votes_are_fsynced_and_a_simulated_round_is_not(tmp_path) -> None:
    """A visitor's vote is on disk before it is acknowledged (synchronous FULL); a simulated round, made again by
    rerunning it, skips the fsync per vote (NORMAL in WAL: still never corrupt), which was most of the demo's
    arena stage."""
    from nycc_bench.arena import VoteStore
    from nycc_bench.arena.seed import simulated_round

    def synchronous(store) -> int:
        return store._connect().execute("PRAGMA synchronous").fetchone()[0]

    assert synchronous(VoteStore(tmp_path / "real")) == 2  # FULL
    simulated = simulated_round(tmp_path / "simulated", small_pool(), n_votes=60)
    assert synchronous(simulated) == 1 and simulated.count() > 0  # NORMAL
