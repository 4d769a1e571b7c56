"""What the client receives says nothing about probes, probes come early, and votes count by one recorded rule: a
token decodes to a random id and the visitor's pseudonym only; every visitor meets a probe within its first three
battles; votes count only after enough probes, never for a side-biased visitor; cartoons with nothing to judge are
never served; a full disk is one plain sentence."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from arena_helpers import make_arena, small_pool

from nycc_bench.arena import ArenaRefused, vote_frame
from nycc_bench.arena.pool import Cartoon, human_player, player_name
from nycc_bench.arena.votes import DISK_FULL, Vote


def payload(token: str) -> object:
    """The readable part of an itsdangerous token (base64 JSON before the timestamp and signature)."""
    data = token.rsplit(".", 2)[0]
    return json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))


def test_a_token_reveals_nothing_about_the_battle(tmp_path: Path) -> None:
    arena, _ = make_arena(tmp_path, gold_share=0.5)
    served = [arena.next_battle("alice") for _ in range(30)]
    probes = [s for s in served if s.battle.gold]
    others = [s for s in served if not s.battle.gold]
    assert probes and others
    for s in served:
        body = payload(s.token)
        assert body == [s.battle.battle_id, arena.voter("alice")]  # a random id and the pseudonym, nothing else
        assert s.battle.caption_a not in s.token and s.battle.caption_b not in s.token
    assert {len(s.token) for s in probes} == {len(s.token) for s in others}  # the same shape


def test_every_visitor_meets_a_probe_in_its_first_three_battles_at_varying_positions(tmp_path: Path) -> None:
    arena, _ = make_arena(tmp_path, gold_share=0.1, gold_min=4, probe_every=3, min_seconds=0.0)
    first = []
    for k in range(40):
        visitor = f"visitor-{k}"
        flags = [arena.next_battle(visitor).battle.gold for _ in range(3)]
        assert any(flags), (visitor, flags)
        first.append(flags.index(True))
    assert set(first) == {0, 1, 2}  # not always the first battle: a script cannot skip a known position


def vote_n(arena, clock, visitor: str, n: int, probe_right: bool = True, side: str | None = None) -> None:
    """`n` votes: probes answered right (or wrong), other battles by alternating sides (or always `side`)."""
    for k in range(n):
        served = arena.next_battle(visitor)
        clock.advance(arena.settings.min_seconds + 1)
        if served.battle.gold:
            real = "left" if served.battle.left_side == "a" else "right"
            choice = real if probe_right else ("right" if real == "left" else "left")
        else:
            choice = side or ("left", "right")[k % 2]
        arena.vote(served.token, choice, visitor)


def test_votes_count_only_after_enough_probes_and_never_for_a_side_biased_visitor(tmp_path: Path) -> None:
    arena, clock = make_arena(tmp_path, gold_share=0.1, gold_min=4, probe_every=3, min_seconds=0.0)
    vote_n(arena, clock, "newcomer", 4)  # at most two probes answered yet
    vote_n(arena, clock, "attentive", 30)
    vote_n(arena, clock, "always-left", 30, probe_right=True, side="left")  # passes probes, one side only
    frame = vote_frame(arena.store.votes(), arena.settings)
    rows = {name: frame[(frame["voter"] == arena.voter(name)) & ~frame["gold"]] for name in
            ("newcomer", "attentive", "always-left")}
    assert not rows["newcomer"]["counted"].any()
    assert rows["newcomer"]["excluded_reason"].str.contains("gold probes needed answered so far").all()
    assert rows["attentive"]["counted"].all() and len(rows["attentive"]) > 15
    assert not rows["always-left"]["counted"].any()  # recorded, left out by the rule
    assert rows["always-left"]["excluded_reason"].str.startswith("side-biased: 100% of").all()


def test_a_cartoon_with_neither_image_nor_description_is_never_served(tmp_path: Path) -> None:
    pool = small_pool(3)
    pool.cartoons[2] = Cartoon(2, "")  # nothing to judge
    pool.cartoons[3] = Cartoon(3, "", has_image=True)  # its image is enough
    arena, _ = make_arena(tmp_path, pool=pool, gold_share=0.3)
    contests = {arena.next_battle(f"v{k}").battle.contest for k in range(60)}
    assert contests == {1, 3}


def test_one_name_per_player() -> None:
    assert player_name("human:human_200") == human_player("human_200").name == "Human #200-209"
    assert player_name("run:seed-random") == "seed-random"


def fill(store) -> None:
    """Fill a store to SQLite's page limit with votes of shrinking size, so that no further vote fits."""
    db = store._connect()
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")  # "disk is full" next
    k = 0
    for size in (5000, 500, 50, 1):
        while True:
            k += 1
            filler = Vote(f"fill{k}", f"fill{k}", "filler", 1, "a", "b", "x", "y", "t" * size, "u" * size, "", "a",
                          "a", False, False, 0.0, 0.0, False, None)
            try:
                store.add_vote(filler)
            except ArenaRefused as err:
                assert str(err) == DISK_FULL
                break


def test_a_full_disk_is_one_plain_sentence(tmp_path: Path) -> None:
    arena, _ = make_arena(tmp_path, gold_share=0.0, min_seconds=0.0)
    served = arena.next_battle("alice")
    n = len(arena.store.votes())
    fill(arena.store)
    with pytest.raises(ArenaRefused) as err:
        arena.vote(served.token, "left", "alice")
    assert str(err.value) == DISK_FULL and "sqlite" not in str(err.value).lower() and "\n" not in str(err.value)
    assert not [v for v in arena.store.votes() if v.voter == arena.voter("alice")][n:]  # nothing half-written


def test_the_tab_shows_the_sentence_when_the_disk_fills(tmp_path: Path, sample_dataset: str) -> None:
    from nycc_bench.arena import ArenaSettings
    from nycc_bench.leaderboard import Settings
    from nycc_bench.leaderboard.arena_tab import ArenaTab
    from nycc_bench.leaderboard.store import LocalStore
    from nycc_bench.leaderboard.ui import App

    settings = Settings(data_dir=tmp_path / "data", dataset=sample_dataset, worker=False)
    tab = ArenaTab(App(settings, LocalStore(settings.data_dir)), ArenaSettings(min_seconds=0))
    visitor = SimpleNamespace(client=SimpleNamespace(host="192.0.2.7"))
    token = tab.serve(visitor)[0]
    fill(tab.arena.store)
    reply = tab.vote("left", token, False, False, visitor)
    assert "disk is full" in reply and "sqlite" not in reply.lower() and "Traceback" not in reply


def test_counted_anonymous_votes_key_on_the_address_never_the_session(tmp_path: Path) -> None:
    """Under NYCC_ARENA_COUNT_ANONYMOUS=1 an anonymous visitor is its address: two browser sessions from one address
    are one voter, with one cap and one probe record, and its votes count once the rule is met."""
    from nycc_bench.arena import ArenaSettings

    assert ArenaSettings.from_env().count_anonymous is False  # the default: recorded, not counted
    arena, clock = make_arena(tmp_path, gold_share=0.1, gold_min=4, min_seconds=0.0, count_anonymous=True,
                              anonymous_cap=40)
    vote_n(arena, clock, "address:198.51.100.4", 30)
    frame = vote_frame(arena.store.votes(), arena.settings)
    people = frame[~frame["gold"]]
    assert len(set(frame["voter"])) == 1 and set(frame["voter_kind"]) == {"anonymous"}
    assert people["counted"].all()
    with pytest.raises(ArenaRefused, match="daily cap of 40 votes per address"):
        vote_n(arena, clock, "address:198.51.100.4", 11)


def test_the_anonymous_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from nycc_bench.arena import ArenaSettings

    monkeypatch.setenv("NYCC_ARENA_COUNT_ANONYMOUS", "1")
    monkeypatch.setenv("NYCC_ARENA_ANONYMOUS_CAP", "7")
    settings = ArenaSettings.from_env()
    assert settings.count_anonymous is True and settings.anonymous_cap == 7
    monkeypatch.setenv("NYCC_ARENA_COUNT_ANONYMOUS", "maybe")
    with pytest.raises(ValueError, match=r"^NYCC_ARENA_COUNT_ANONYMOUS: expected 0 or 1, got 'maybe'"):
        ArenaSettings.from_env()
