"""`nycc-bench arena export|ratings` and `nycc-bench judges agree` end to end: votes cast through the arena's own
path into a leaderboard data folder, exported to parquet, rated from the shell (JSON on the last line), and an LLM
judge (a scripted OpenAI-compatible server that prefers the longer caption, through the engine and its cache)
measured against voters who prefer longer captions; its dry run prices the calls; bad input is one line."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai import FakeChatServer, Reply

from nycc_bench.arena import (
    Arena,
    ArenaSettings,
    Pool,
    SimulatedClock,
    Voter,
    VoteStore,
    read_votes,
    simulate,
)
from nycc_bench.arena.pool import Cartoon, Player, human_player
from nycc_bench.cli import main

GROUPS = re.compile(r"group A: 1\.\n(.*)\ngroup B: 1\.\n(.*)", re.S)


def length_pool() -> Pool:
    """Three players whose captions differ mostly in length."""
    pool = Pool()
    for contest in range(1, 5):
        pool.cartoons[contest] = Cartoon(contest, f"A dog runs a meeting, cartoon {contest}.")
        pool.add(human_player("human_200"), contest, [f"Human {k} on {contest}, medium length." for k in range(3)])
        pool.add(Player("run:verbose", "Verbose", "model"), contest,
                 [f"Verbose {k} on {contest}: a much longer caption that goes on and on and on." for k in range(3)])
        pool.add(Player("run:terse", "Terse", "model"), contest, [f"T{k}/{contest}." for k in range(3)])
        pool.add_gold(contest, [f"The real caption of {contest}."])
    return pool


@pytest.fixture(scope="module")
def votes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A leaderboard data folder whose arena has 300 votes of length-loving simulated voters, exported."""
    data = tmp_path_factory.mktemp("arena_cli") / "data"
    clock = SimulatedClock()
    arena = Arena(VoteStore(data / "arena"), length_pool(), ArenaSettings(), clock=clock, seed=0)
    simulate(arena, clock, 300, strengths={"human:human_200": 0.0, "run:verbose": 0.0, "run:terse": 0.0},
             voters=[Voter(f"v{i}", tie_share=0.0) for i in range(5)], length_bias=6.0, spread=0.0, seed=0)
    out = data.parent / "votes.parquet"
    assert main(["arena", "export", "--data-dir", str(data), "--out", str(out)]) == 0
    return out


def last_json(capsys: pytest.CaptureFixture[str]) -> dict:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_export_and_ratings_from_the_shell(votes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert votes.is_file()
    capsys.readouterr()
    assert main(["arena", "ratings", str(votes), "--rounds", "100"]) == 2  # simulated votes only: none counted
    assert "no counted vote" in capsys.readouterr().err
    assert main(["arena", "ratings", str(votes), "--rounds", "100", "--include-simulated"]) == 0
    out = capsys.readouterr().out
    assert "verbose" in out and "95% interval" in out and "left side wins" in out
    assert "votes used: 0 by people, " in out and "prior: each player ties 1 time" in out
    table = json.loads(out.strip().splitlines()[-1])
    rows = {r["player"]: r for r in table["rows"]}
    assert rows["human:human_200"]["rating"] == pytest.approx(1000)
    assert rows["run:verbose"]["rank"] == 1 and rows["run:terse"]["rating"] < 1000  # length wins, unchecked
    assert table["kinds"]["counted_simulated"] == table["n_votes"] and table["kinds"]["people"] == 0
    assert main(["arena", "ratings", str(votes), "--rounds", "50", "--length-control", "--json",
                 "--include-simulated"]) == 0
    controlled = last_json(capsys)
    assert controlled["length_control"] and controlled["length_low"] > 0  # the voters' taste, measured


def test_judges_agree_with_an_llm_judge_through_the_engine(votes: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    def longer(body: dict, attempt: int) -> Reply:
        text = next(m["content"] for m in body["messages"] if "group A:" in m["content"])
        a, b = GROUPS.search(text).groups()
        pick, other = ("A", "B") if len(a) >= len(b) else ("B", "A")
        return Reply(text=pick, top_logprobs=[(pick, -0.01), (other, -6.0)])

    report_file = tmp_path / "judges" / "longer.json"
    with FakeChatServer(longer) as server:
        args = ["judges", "agree", "--votes", str(votes), "--judge", "openai:fake-longer", "--judge-base-url",
                server.base_url, "--cache-dir", str(tmp_path / "cache"), "--rounds", "100", "--include-simulated"]
        assert main([*args, "--out", str(report_file)]) == 0
        out = capsys.readouterr().out
        n_calls = server.count()
        assert main([*args, "--dry-run"]) == 0  # everything cached now: nothing left to spend
        assert server.count() == n_calls
    assert "| Judge | Agreement with arena votes" in out
    report = json.loads(out.strip().splitlines()[-1])
    assert report == json.loads(report_file.read_text())
    agreement = report["agreement"]
    # of 300 votes, the probes and any voter the gold rule leaves out are not compared (where the store's random key
    # puts the probes decides which voters pass: 162 to 240 compared votes seen)
    assert agreement["n_votes"] > 100 and agreement["n_error"] == 0
    assert agreement["value"] > 0.75 and agreement["ci_low"] < agreement["value"] < agreement["ci_high"]
    frame = read_votes(votes, include_simulated=True)
    decisive = frame[frame["counted"] & frame["winner"].isin(["a", "b"])]
    assert agreement["n_votes"] == len(decisive)
    assert n_calls == 2 * len(decisive.drop_duplicates(["caption_a", "caption_b"]))  # each pair judged once, 2 orders
    assert report["kendall_tau"]["value"] == pytest.approx(1.0)  # the judge ranks the players as the arena does
    assert report["order_consistency"]["value"] == 1.0  # the longer caption wins on either side
    assert 0 <= report["separability"]["arena"] <= 1 and report["crowd"] is None


def test_a_dry_run_prices_an_uncached_judge_without_calling_it(votes: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judges", "agree", "--votes", str(votes), "--judge", "openai:gpt-4o", "--judge-base-url",
                 "http://127.0.0.1:9/v1", "--cache-dir", str(tmp_path), "--dry-run", "--include-simulated"]) == 0
    out = capsys.readouterr().out
    assert '"dry_run"' in out.strip().splitlines()[-1]


@pytest.mark.parametrize(("argv", "message"), [
    (["arena", "export", "--data-dir", "{tmp}/nothing", "--out", "{tmp}/v.parquet"], "data-dir: no arena votes"),
    (["arena", "export", "--data-dir", "{tmp}", "--out", "{tmp}/v.csv"], None),
    (["arena", "ratings", "{tmp}/missing.parquet"], "votes: no file"),
    (["arena", "ratings", "{tmp}/junk.parquet"], "votes: "),
    (["arena", "ratings", "{votes}", "--rounds", "0"], "rounds: at least 1"),
    (["judges", "agree", "--votes", "{votes}", "--judge", "humorbench_gpt4o"], "protocol: the arena compares"),
])
def test_bad_input_is_one_line_naming_the_field(argv: list[str], message: str | None, votes: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "junk.parquet").write_text("not parquet")
    if message is None:  # an export to a non-parquet name, from a real arena folder
        VoteStore(tmp_path / "arena").close()
        message = "out: "
    argv = [a.format(tmp=tmp_path, votes=votes) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_judges_agree_prints_its_scale(votes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An always-first judge: agreement 50% with a real interval (not [50, 50]), 0% order consistency; the ceiling
    (cross-fitted ratings against single votes) and both Kendall taus are printed beside it."""
    def first(body: dict, attempt: int) -> Reply:
        return Reply(text="A", top_logprobs=[("A", -0.01), ("B", -6.0)])

    with FakeChatServer(first) as server:
        assert main(["judges", "agree", "--votes", str(votes), "--judge", "openai:fake-first", "--judge-base-url",
                     server.base_url, "--cache-dir", str(tmp_path / "cache"), "--rounds", "50",
                     "--include-simulated"]) == 0
    out = capsys.readouterr().out
    assert "Ceiling: ratings vs single votes" in out and "Same verdict in both orders" in out
    assert "Kendall tau vs length-controlled" in out
    assert "votes used: 0 by people, " in out  # what it rests on, said
    report = json.loads(out.strip().splitlines()[-1])
    agreement = report["agreement"]
    assert agreement["value"] == pytest.approx(0.5) and agreement["method"] == "clopper-pearson"
    assert agreement["ci_low"] < 0.5 < agreement["ci_high"]  # the bootstrap had no spread: the exact interval
    assert report["order_consistency"]["value"] == 0.0 and report["order_consistency"]["n_votes"] > 100
    ceiling = report["ceiling"]
    assert 0.5 < ceiling["value"] <= 1 and ceiling["ci_low"] < ceiling["value"] and ceiling["folds"] == 5
    assert report["kendall_tau_length_controlled"]["n_players"] == 3
    assert {p["name"] for p in report["players"]} == {"Human #200-209", "verbose", "terse"}


def test_exact_intervals_for_small_counts() -> None:
    from nycc_bench.arena.agreement import exact_interval

    low, high = exact_interval(8, 8)
    assert round(100 * low, 1) == 63.1 and high == 1.0  # "100.0 [100.0, 100.0] from 8" was really [63.1, 100]
