"""The `arena_votes` config: `nycc-bench build` takes an `arena export` file (named arena_votes.parquet) below
--source, writes it as a config with its own card section, and refuses a malformed one in one line."""

from __future__ import annotations

import sys
from pathlib import Path

import datasets
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from arena_helpers import make_arena

from nycc_bench.arena import Voter, simulate, vote_frame, write_votes
from nycc_bench.builders import build_dataset
from nycc_bench.cli import main


def test_the_votes_become_a_config_with_its_card_section(tmp_path: Path) -> None:
    arena, clock = make_arena(tmp_path, min_seconds=0.0)
    simulate(arena, clock, 40, voters=[Voter("v1"), Voter("v2")], seed=2)
    source = tmp_path / "source"
    write_votes(vote_frame(arena.store.votes(), arena.settings), source / "arena_votes.parquet")
    report = build_dataset(source, tmp_path / "out", configs=["arena_votes"], progress=False)
    assert report.rows == {"arena_votes": {"train": 40}}
    rows = datasets.load_dataset(str(tmp_path / "out"), "arena_votes", split="train")
    assert rows.num_rows == 40 and rows.features["voted_at"].dtype.startswith("timestamp")
    assert set(rows["winner"]) <= {"a", "b", "tie", "both_bad"}
    card = (tmp_path / "out" / "README.md").read_text()
    section = card[card.index("### `arena_votes`"):]
    assert "gold probe" in section and "`counted`" in section and "keyed hash" in section
    assert "config_name: arena_votes" in card


def test_a_malformed_votes_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "arena_votes.parquet").write_text("not parquet")
    assert main(["build", "--source", str(source), "--out", str(tmp_path / "out"), "--configs", "arena_votes"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "arena_votes.parquet" in err and "arena export" in err, err
