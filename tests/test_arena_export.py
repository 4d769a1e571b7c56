"""The export is data, not authority: `arena ratings` and the `arena_votes` builder drop repeated rows (on `vote_id`
and `battle_id`), refuse a file whose rows contradict each other in one line naming the rows, decide `counted` from
the probes and the rules (a forged column changes nothing), leave simulated votes out unless asked and say how many
of each kind they used; `arena export` drops or caps voters and addresses for an operator cleaning a stuffed arena."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import datasets
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from arena_helpers import make_arena
from test_arena_integrity import vote_n

from nycc_bench.arena import ArenaRefused, Voter, ratings, read_votes, simulate, vote_frame, write_votes
from nycc_bench.builders import build_dataset
from nycc_bench.cli import main


@pytest.fixture
def arena_votes(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    """A data folder whose arena holds two attentive people, one careless one (fails the probes), one from an
    address (anonymous, not counted) and 40 simulated votes; and its export."""
    # gold_min at its default: the builder decides `counted` with the default settings (4 here made a visitor with
    # exactly 4 probes counted in the frame and not by the builder, depending on where the random probes fell)
    arena, clock = make_arena(tmp_path / "data", gold_share=0.1, gold_min=5, min_seconds=0.0)
    for name in ("ada", "bob"):
        vote_n(arena, clock, f"user:{name}", 30)
    vote_n(arena, clock, "user:careless", 30, probe_right=False)
    for _ in range(10):
        served = arena.next_battle("address:203.0.113.9")
        clock.advance(1)
        arena.vote(served.token, "left", "address:203.0.113.9", address="203.0.113.9")
    simulate(arena, clock, 40, voters=[Voter("sim-1"), Voter("sim-2")], seed=3)
    frame = vote_frame(arena.store.votes(), arena.settings)
    out = tmp_path / "votes.parquet"
    write_votes(frame, out)
    return out, frame


def test_duplicated_rows_are_dropped_and_said(arena_votes: tuple[Path, pd.DataFrame], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path, frame = arena_votes
    honest = ratings(read_votes(path), rounds=20)
    stuffed = tmp_path / "stuffed.parquet"
    write_votes(pd.concat([frame] + [frame[frame["player_a"] == "human:human_top10"]] * 10, ignore_index=True),
                stuffed)
    back = read_votes(stuffed)
    assert len(back) == len(frame) and back.attrs["duplicates_dropped"] > 0
    again = ratings(back, rounds=20)
    assert again.n_votes == honest.n_votes and {r.player: r.votes for r in again.rows} == {
        r.player: r.votes for r in honest.rows}
    assert main(["arena", "ratings", str(stuffed), "--rounds", "20"]) == 0
    out = capsys.readouterr().out
    assert f"{back.attrs['duplicates_dropped']} duplicate row(s) dropped" in out
    assert json.loads(out.strip().splitlines()[-1])["kinds"]["duplicates_dropped"] == back.attrs["duplicates_dropped"]


def test_a_forged_counted_column_changes_nothing(arena_votes: tuple[Path, pd.DataFrame], tmp_path: Path) -> None:
    path, frame = arena_votes
    careless = frame["excluded_reason"].fillna("").str.startswith("gold accuracy")
    assert careless.any() and not frame.loc[careless, "counted"].any()
    forged = frame.copy()
    forged["counted"], forged["excluded_reason"] = True, None  # every excluded vote claimed back in
    write_votes(forged, tmp_path / "forged.parquet")
    back = read_votes(tmp_path / "forged.parquet")
    assert back["counted"].tolist() == read_votes(path)["counted"].tolist()
    assert ratings(back, rounds=20).n_votes == ratings(read_votes(path), rounds=20).n_votes


def test_rows_that_contradict_each_other_are_refused_naming_them(arena_votes: tuple[Path, pd.DataFrame],
                                                                 tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, frame = arena_votes
    for column, change, differ in (("vote_id", {"winner": "tie"}, "winner"),
                                   ("battle_id", {"vote_id": "f" * 16, "winner": "tie"}, "vote_id")):
        row = frame.iloc[[5]].assign(**change)
        if row["winner"].iloc[0] == frame["winner"].iloc[5]:
            row = row.assign(winner="both_bad")
        bad = tmp_path / f"bad-{column}.parquet"
        write_votes(pd.concat([frame, row], ignore_index=True), bad)
        with pytest.raises(ArenaRefused, match=rf"^{column}: rows 5 and {len(frame)} of .* differ in '{differ}'"):
            read_votes(bad)
        assert main(["arena", "ratings", str(bad)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"rows 5 and {len(frame)}" in err


def test_simulated_votes_only_when_asked_and_every_output_counts_each_kind(
        arena_votes: tuple[Path, pd.DataFrame], capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = arena_votes
    people = read_votes(path)
    both = read_votes(path, include_simulated=True)
    sim = both[both["simulated"]]
    assert len(sim) == 40 and not people.loc[people["simulated"], "counted"].any() and sim["counted"].any()
    anonymous = people[people["voter_kind"] == "anonymous"]
    assert len(anonymous) == 10 and not anonymous["counted"].any()
    assert main(["arena", "ratings", str(path), "--rounds", "20"]) == 0
    plain = capsys.readouterr().out
    assert main(["arena", "ratings", str(path), "--rounds", "20", "--include-simulated"]) == 0
    pooled = capsys.readouterr().out
    n_people = int(people["counted"].sum())
    assert f"votes used: {n_people} by people, 0 simulated" in plain
    assert f"votes used: {n_people} by people, {int(sim['counted'].sum())} simulated" in pooled


def test_the_builder_reads_the_file_as_data(arena_votes: tuple[Path, pd.DataFrame], tmp_path: Path) -> None:
    _, frame = arena_votes
    forged = frame.copy()
    forged["counted"] = True
    source = tmp_path / "source"
    write_votes(pd.concat([forged, forged.iloc[:7]], ignore_index=True), source / "arena_votes.parquet")
    build_dataset(source, tmp_path / "out", configs=["arena_votes"], progress=False)
    rows = datasets.load_dataset(str(tmp_path / "out"), "arena_votes", split="train").to_pandas()
    assert len(rows) == len(frame) and rows["vote_id"].is_unique
    assert rows["counted"].tolist() == frame["counted"].tolist()
    card = (tmp_path / "out" / "README.md").read_text()
    assert "`address_hash`" in card and "`voter_kind`" in card


def test_an_operator_drops_or_caps_voters_and_addresses(arena_votes: tuple[Path, pd.DataFrame],
                                                        tmp_path: Path) -> None:
    _, frame = arena_votes
    data = tmp_path / "data"
    address = frame.loc[frame["voter_kind"] == "anonymous", "address_hash"].iloc[0]
    ada = frame.loc[frame["voter_kind"] == "account", "voter"].iloc[0]
    out = tmp_path / "clean.parquet"
    assert main(["arena", "export", "--data-dir", str(data), "--out", str(out), "--drop-address", address,
                 "--drop-voter", ada]) == 0
    clean = read_votes(out)
    assert address not in set(clean["address_hash"]) and ada not in set(clean["voter"])
    assert len(clean) == len(frame) - (frame["address_hash"] == address).sum() - (frame["voter"] == ada).sum()
    assert main(["arena", "export", "--data-dir", str(data), "--out", str(out), "--cap-voter", "3"]) == 0
    assert read_votes(out).groupby("voter").size().max() == 3
    assert main(["arena", "export", "--data-dir", str(data), "--out", str(out), "--cap-address", "2"]) == 0
    capped = read_votes(out)
    assert (capped["address_hash"] == address).sum() == 2
