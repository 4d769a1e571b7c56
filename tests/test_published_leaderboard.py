"""A leaderboard built on published data (`create_app(..., published=DIR)`, `nycc-bench leaderboard --source`):
seeded with the published runs instead of the sample's baselines, the authors' reported rows shown apart on the
Hessel and HumorBench tabs (never ranked, no interval), a partial run marked, the model detail with its provenance;
and the Arena's players are the published systems (a battle between two of them)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from nycc_bench.arena import Arena, ArenaSettings, SimulatedClock, VoteStore
from nycc_bench.arena.pool import build_pool
from nycc_bench.builders.zhang2024 import read_zhang_groups
from nycc_bench.leaderboard import SEED_DIR, Settings, create_app
from nycc_bench.leaderboard.detail import detail_html
from nycc_bench.published.reported import HESSEL_TABLE2
from nycc_bench.standings import Filters, tab_table

sys.path.insert(0, str(Path(__file__).parent))
from published_files import write_mirror


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> tuple[object, Path]:
    mirror = write_mirror(tmp_path_factory.mktemp("mirror"))
    settings = Settings(data_dir=tmp_path_factory.mktemp("board") / "data", dataset=sample_dataset, worker=False)
    _, app = create_app(settings, published=str(mirror), sbert=False, start_worker=False)
    return app, mirror


def test_board_seeds_itself_with_the_published_runs(board: tuple[object, Path]) -> None:
    app, _ = board
    results = app.results()[0]
    assert {r["model"]["source"] for r in results} == {"published"}  # not the sample's baselines
    frame = app.frame(results)
    zhang = tab_table(frame, "zhang2024", Filters())
    assert {"zhang2024-claude", "zhang2024-zs", "zhang2024-human-top"} <= set(zhang.run_ids)
    assert {"Average EAD", "Win rate vs top 10"} <= set(zhang.texts.columns)  # Table 6's columns
    humor = tab_table(frame, "humorbench", Filters())
    assert {"humorbench-gpt-4o", "humorbench-meta-llama-llama-9-test"} <= set(humor.run_ids)
    assert set(frame["Type"]) == {"Published outputs"}
    partial = frame[frame["run_id"] == "zhang2024-zs"]["Model"].iloc[0]
    assert "(partial: 3 of 91)" in partial
    # a partial run is ranked on what it covers: a rank and its own value, as a whole run's
    llama = humor.run_ids.index("humorbench-meta-llama-llama-9-test")
    assert humor.texts["Rank"].iloc[llama] != "—" and humor.texts["Model"].iloc[llama].endswith("(partial: 8 of 31)")
    zs = zhang.run_ids.index("zhang2024-zs")
    assert zhang.texts["Average EAD"].iloc[zs].startswith("0.78")  # its 3 contests' (ranked by win rate, a judge's)


def test_reported_rows_stand_apart_without_interval(board: tuple[object, Path]) -> None:
    app, _ = board
    hessel = app.reported("hessel2023")
    assert len(hessel) == len(HESSEL_TABLE2) and hessel[0]["Source"].startswith("Hessel et al. 2023")
    assert {"Source", "Table", "Row"} <= set(hessel[0]) and not any("interval" in k.lower() or "ci" in k.lower()
                                                                   for k in hessel[0])
    assert next(r for r in hessel if r["Row"] == "GPT-4 (5-shot)")["Matching accuracy (%)"] == "84.5"
    humor = app.reported("humorbench")
    assert [r["Row"] for r in humor] == ["GPT-4o", "Llama 9 Test"]
    assert humor[0]["Element accuracy (reported)"] == "0.7500"
    assert app.reported(None) == [] and app.reported("zhang2024") == []
    ranked = set(app.frame(app.results()[0])["name"])
    assert not any(r["Row"] in ranked for r in hessel)  # never rows of the ranked table


def test_hessel_tab_says_why_the_hidden_label_entries_are_absent(board: tuple[object, Path], tmp_path: Path,
                                                                 sample_dataset: str) -> None:
    """The hidden-label leaderboard's entries are published only on AI2's pages (no score in the paper or the
    authors' repository, the labels hidden): the Hessel tab says so plainly instead of showing invented rows."""
    app, _ = board
    note = app.reported_note("hessel2023")
    assert note is not None and "not shown" in note and "leaderboard.allenai.org/nycc-matching" in note
    assert "labels are hidden" in note and "jmhessel/caption_contest_corpus" in note
    assert app.reported_note("zhang2024") is None and app.reported_note("humorbench") is None
    assert not any("leaderboard" in r["Row"].lower() for r in app.reported("hessel2023"))
    settings = Settings(data_dir=tmp_path / "data", dataset=sample_dataset, worker=False)
    _, sample = create_app(settings, seed_dir=SEED_DIR, start_worker=False)
    assert sample.reported_note("hessel2023") is None  # the sample demo shows no published rows at all


def test_sample_board_shows_no_reported_rows(tmp_path: Path, sample_dataset: str) -> None:
    settings = Settings(data_dir=tmp_path / "data", dataset=sample_dataset, worker=False)
    _, app = create_app(settings, seed_dir=SEED_DIR, start_worker=False)
    assert app.results()[0] and app.reported("hessel2023") == []


def test_detail_shows_provenance(board: tuple[object, Path]) -> None:
    app, mirror = board
    record = next(r for r in app.results()[0] if r["extra"]["run_id"] == "humorbench-gpt-4o")
    page = detail_html(record)
    assert "published by the authors" in page and "ReubenNarad/Humor-Bench" in page and "cc99276" in page
    assert "reported: pass_rate_per_row = 0.75 (docs/data.json)" in page and str(mirror) not in page


def test_arena_players_are_the_published_systems(board: tuple[object, Path], tmp_path: Path) -> None:
    app, mirror = board
    gen = mirror / "zhang" / "examples" / "generations"
    groups = read_zhang_groups({g: gen / f"{s}.csv" for g, s in (("human_top10", "human_top"),
                                                                ("human_200", "human_200"),
                                                                ("human_1000", "human_1000"),
                                                                ("human_median", "human_median"))})
    rows = [{"contest_number": c, "description": f"cartoon {c}", **g} for c, g in groups.items()]
    pool = build_pool(rows, app.results()[0], app.store.resolve)
    models = {p.name for p in pool.players.values() if p.kind == "model"}
    # one name per player everywhere (the arena's rule): a run's id; the published human groups are human players
    assert models == {"zhang2024-claude", "zhang2024-zs"}
    assert not any(p.startswith("run:zhang2024-human") for p in pool.players)
    # the contests the partial run covers, without the human groups: every battle is between two published systems
    covered = [c for c, by in pool.by_contest.items() if by.get("run:zhang2024-zs")]
    two = build_pool([{"contest_number": c, "description": f"cartoon {c}"} for c in covered], app.results()[0],
                     app.store.resolve)
    clock = SimulatedClock()
    arena = Arena(VoteStore(tmp_path / "arena"), two, ArenaSettings(gold_share=0.0), clock=clock, seed=0)
    served = arena.next_battle("visitor-1")
    players = {two.captions[served.battle.caption_a].player, two.captions[served.battle.caption_b].player}
    assert players == {"run:zhang2024-claude", "run:zhang2024-zs"}
    clock.advance(arena.settings.min_seconds + 1)
    receipt = arena.vote(served.token, "left", "visitor-1")
    assert {receipt.left_player, receipt.right_player} == {"zhang2024-claude", "zhang2024-zs"}


def test_print_rows_is_the_demo_real_output(board: tuple[object, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """`nycc-bench leaderboard --source DIR --print-rows` (`make demo-real`): the seeded board's rows, and the
    reported rows apart; without --source it says what to add."""
    from nycc_bench.cli import main

    _, mirror = board
    assert main(["leaderboard", "--source", str(mirror), "--data-dir", str(tmp_path / "data"), "--print-rows",
                 "--no-sbert"]) == 0
    out = capsys.readouterr().out
    assert "Claude-3-Opus" in out and "reported by the authors" in out and "GPT-4 (5-shot)" in out
    assert "hidden-label leaderboard entries" in out and "are not shown" in out
    assert main(["leaderboard", "--data-dir", str(tmp_path / "other"), "--print-rows"]) == 2
    assert "add --source" in capsys.readouterr().err


def test_space_seeds_from_nycc_lb_source(board: tuple[object, Path], tmp_path: Path, sample_dataset: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The Space (`Settings.from_env`) on the real data: NYCC_LB_SOURCE seeds the published runs."""
    _, mirror = board
    monkeypatch.setenv("NYCC_LB_SOURCE", str(mirror))
    settings = Settings.from_env(data_dir=tmp_path / "data", dataset=sample_dataset, worker=False)
    _, app = create_app(settings, sbert=False, start_worker=False)
    assert {r["model"]["source"] for r in app.results()[0]} == {"published"}


def test_published_board_has_no_simulated_sample_votes(board: tuple[object, Path]) -> None:
    """The Arena of a board on the published runs starts without the sample seed's simulated votes (they rate the
    sample's baselines, which are not players here)."""
    from nycc_bench.leaderboard.arena_tab import ArenaTab

    app, _ = board
    tab = ArenaTab(app)
    assert tab.error is None and tab.arena is not None
    assert tab.arena.store.votes() == []
