"""`nycc-bench judges report`: a judge scored on the crowd's ratings (Zhang's pairwise and group checks), the human
rubric labels (never in-sample: a grader fitted on them is cross-validated), GPT-4o's stored verdicts and the arena's
counted votes (a vote file the arena's own code writes), one table with n and intervals per cell, priced and timed
per 1,000 judgments (an LLM judge through a scripted server on 127.0.0.1, at its configuration's stated price); the
About tab shows the kept reports."""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from arena_helpers import small_pool
from fake_openai import FakeChatServer, Reply

from nycc_bench.cli import main
from nycc_bench.judges_report import PAPER_PAIRWISE, exact_interval, kappa_cell, paper_rubric, report, table_lines
from nycc_bench.judging import JudgeSpec
from nycc_bench.paths import SAMPLE_DIR

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's upstream files plus a stored-verdicts file made from its rubric (explanations reworded, so
    they are rows no grader was fitted on)."""
    root = tmp_path_factory.mktemp("source")
    shutil.copytree(SAMPLE_DIR, root / "sample")
    rubric = root / "sample" / "humorbench_reubennarad" / "rubric" / "gpt_4o_rubric.csv"
    with open(rubric, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    target = root / "sample" / "humorbench_reubennarad" / "analysis" / "hard_subsets" / "stored_verdicts.csv"
    target.parent.mkdir(parents=True)
    with open(target, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, ["idx", "description", "caption", "element", "explanation",
                                         "autograder_judgment", "explainer_model"])
        writer.writeheader()
        for i, row in enumerate(rows):
            writer.writerow({"idx": row["idx"], "description": row["description"], "caption": row["caption"],
                             "element": row["element"], "explanation": "In short: " + row["explanation"],
                             "autograder_judgment": row["label"] if i % 4 else "FAIL",
                             "explainer_model": "model-a" if i % 2 else "model-b"})
    return root


def test_exact_interval_and_kappa() -> None:
    low, high = exact_interval(3, 4)
    assert low == pytest.approx(0.1941, abs=1e-4) and high == pytest.approx(0.9937, abs=1e-4)  # Clopper-Pearson
    same = kappa_cell(["PASS", "FAIL", "PASS", "FAIL"], ["PASS", "FAIL", "PASS", "FAIL"])
    assert same["value"] == 1.0 and same["n"] == 4 and same["low"] <= same["high"]


def test_table_1_rows_by_explainer_version() -> None:
    """Narad et al. Table 1's row beside each explainer the rubric files name by version, and no other model's."""
    assert paper_rubric("pooled") == 92.0 and paper_rubric("claude-3-7-sonnet-latest") == 91.0
    assert paper_rubric("gemini-2.5-pro-exp-03-25") == paper_rubric("gemini-2.5-pro-preview-03-25") == 93.0
    assert paper_rubric("gpt-4o-2024-08-06") == 92.0 and paper_rubric("gpt-4o-mini") is None
    assert paper_rubric("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8") is None


def test_reward_judge_report(source: Path, sample_judges: dict) -> None:
    result = report(JudgeSpec.parse("reward:sample"), source)
    crowd = result["checks"]["crowd"]
    assert crowd["n_contests"] >= 2
    for key in ("pairwise", "groups"):
        cell = crowd[key]
        assert cell["n"] == 2 * crowd["n_contests"] and cell["low"] <= cell["value"] <= cell["high"]
    assert crowd["order_consistency"]["n"] == crowd["n_contests"]
    assert "rubric" in result["absent"] and "autograder" in result["absent"]
    assert result["cost"]["judgments"] == 4 * crowd["n_contests"] and result["cost"]["usd_per_1000"] == 0.0
    text = "\n".join(table_lines(result))
    assert "Crowd pairwise (Zhang Table 2 Pairwise)" in text and f"(n={2 * crowd['n_contests']})" in text
    assert all(name in text for name, _, _ in PAPER_PAIRWISE)


def test_grader_report_never_scores_its_training_rows_in_sample(source: Path, sample_judges: dict) -> None:
    result = report(JudgeSpec.parse("embedding:sample"), source)
    rubric, stored = result["checks"]["rubric"], result["checks"]["autograder"]
    assert rubric["how"].startswith("cross-validated")  # embedding:sample was fitted on the sample rubric
    assert stored["how"].startswith("held out")
    assert set(stored) == {"how", "pooled", "model-a", "model-b"}
    pooled = stored["pooled"]
    assert pooled["accuracy"]["n"] == stored["model-a"]["accuracy"]["n"] + stored["model-b"]["accuracy"]["n"]
    assert pooled["kappa"]["n"] == pooled["accuracy"]["n"] and "crowd" in result["absent"]
    text = "\n".join(table_lines(result))
    assert "HumorBench human rubric labels, pooled: accuracy %" in text and "Narad et al. Table 1" in text
    assert "GPT-4o stored verdicts, model-a: pass rate % (GPT-4o's)" in text
    assert result["cost"]["usd_per_1000"] == 0.0 and result["cost"]["llm_calls"] == 0  # offline: no charge
    assert "no charge" in result["cost"]["price_note"] and result["cost"]["seconds_per_1000"] > 0


def test_report_command_and_about_tab(source: Path, sample_judges: dict, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    from nycc_bench.leaderboard.about import REPORTS_DIR, about_markdown, judge_reports

    out = tmp_path / "data" / REPORTS_DIR / "reward.json"
    assert main(["judges", "report", "--judge", "reward:sample", "--source", str(source), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| Crowd pairwise" in printed and json.loads(printed.strip().splitlines()[-1]) == json.loads(out.read_text())
    (out.parent / "broken.json").write_text("{", encoding="utf-8")
    reports = judge_reports(tmp_path / "data", ["reward:sample"])
    assert [r["judge"] for r in reports] == ["reward:sample"]
    page = about_markdown([], reports)
    assert "## The judges, scored on real verdicts" in page and "Crowd pairwise" in page
    assert "No judges report is kept here yet" in about_markdown([], [])


def test_missing_source_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["judges", "report", "--judge", "reward:sample", "--source", str(tmp_path / "nowhere")]) == 2
    assert "source:" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared upstream data is not beside the checkout")
def test_offline_judges_on_the_shared_data(sample_judges: dict) -> None:
    """The issue's must-show: both offline judges on the shared data, crowd and rubric rows with n and intervals."""
    reward = report(JudgeSpec.parse("reward:sample"), SHARED)
    assert reward["checks"]["crowd"]["pairwise"]["n"] >= 80
    grader = report(JudgeSpec.parse("embedding:sample"), SHARED, max_rows=400)
    rubric = grader["checks"]["rubric"]
    assert rubric["how"].startswith("held out") and rubric["pooled"]["accuracy"]["n"] == 400
    assert {"gpt-4o", "pooled"} <= set(rubric)


@pytest.fixture(scope="module")
def arena_votes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A leaderboard data folder whose arena took 200 votes through its own path (served battles, gold probes,
    the counting rule), exported by `nycc-bench arena export`."""
    from nycc_bench.arena import Arena, ArenaSettings, SimulatedClock, Voter, VoteStore, simulate

    data = tmp_path_factory.mktemp("arena_votes") / "data"
    clock = SimulatedClock()
    arena = Arena(VoteStore(data / "arena"), small_pool(4), ArenaSettings(), clock=clock, seed=0)
    simulate(arena, clock, 200, voters=[Voter(f"v{i}", tie_share=0.0) for i in range(4)], seed=0)
    out = data.parent / "votes.parquet"
    assert main(["arena", "export", "--data-dir", str(data), "--out", str(out)]) == 0
    return out


def test_arena_votes_row(source: Path, arena_votes: Path, sample_judges: dict,
                         capsys: pytest.CaptureFixture[str]) -> None:
    """`--votes`: the judge against the arena's counted, decisive votes, beside the ceiling of the arena's own
    ratings; its judgments are counted and timed with the others."""
    from nycc_bench.arena import read_votes

    capsys.readouterr()
    args = ["judges", "report", "--judge", "reward:sample", "--source", str(source), "--votes", str(arena_votes)]
    assert main(args) == 2  # simulated votes are not people's: none counts unless asked for
    assert "votes: no counted vote" in capsys.readouterr().err
    assert main([*args, "--include-simulated"]) == 0
    printed = capsys.readouterr().out
    result = json.loads(printed.strip().splitlines()[-1])
    frame = read_votes(arena_votes, include_simulated=True)
    decisive = frame[frame["counted"] & frame["winner"].isin(["a", "b"])]
    arena = result["checks"]["arena"]
    assert arena["agreement"]["n_votes"] == len(decisive) > 50
    pairs = len(decisive.drop_duplicates(["caption_a", "caption_b"]))
    assert arena["judging"]["judgments"] == 2 * pairs
    crowd = result["checks"]["crowd"]
    assert result["cost"]["judgments"] == 4 * crowd["n_contests"] + 2 * pairs
    a = arena["agreement"]
    assert a["ci_low"] <= a["value"] <= a["ci_high"]
    assert f"| Arena votes: agreement with people, % | {100 * a['value']:.1f} [" in printed
    assert f"(n={len(decisive)}) | ceiling (the arena's own ratings, cross-fitted)" in printed
    assert "| Arena votes: order consistency, % |" in printed


def _estimated_tokens(bodies: list[dict]) -> int:
    """The engine's prompt-token estimate of each distinct request the server saw."""
    from nycc_bench.llm.chat import ChatRequest
    from nycc_bench.llm.pricing import estimate_prompt_tokens

    unique = {json.dumps(b["messages"], sort_keys=True): b for b in bodies}
    return sum(estimate_prompt_tokens(ChatRequest(tuple(b["messages"]), 1, 0.0)) for b in unique.values())


def test_llm_judge_priced_from_its_configuration(source: Path, tmp_path: Path) -> None:
    """An LLM judge's price per 1,000 judgments: the tokens of the prompts it was sent at the price its
    configuration states (with source and date); its seconds measured; a second, cached run costs the same; a
    model with no stated price is `price unknown`, never $0."""
    from nycc_bench.llm.pricing import cost_usd

    config = tmp_path / "priced_overall.yaml"
    config.write_text("backend: openai\nmodel: fake-judge\nprotocol: overall\nprice: {input_usd_per_1m: 3.0, "
                      "output_usd_per_1m: 12.0, source: https://example.test/pricing, checked: 2026-11-01}\n",
                      encoding="utf-8")
    with FakeChatServer(lambda body, attempt: Reply(text="A", top_logprobs=[("A", -0.2), ("B", -1.9)])) as server:
        judge = JudgeSpec.parse(str(config), base_url=server.base_url, cache_dir=str(tmp_path / "cache"))
        first = report(judge, source)
        sent = [r.body for r in server.requests]
        again = report(judge, source)
        assert len(server.requests) == len(sent)  # all from the cache the second time
        unknown = report(JudgeSpec.parse("openai:fake-unpriced", base_url=server.base_url,
                                         cache_dir=str(tmp_path / "cache")), source, max_rows=4)
    crowd = first["checks"]["crowd"]
    assert set(first["absent"]) == {"rubric", "autograder"}  # an Overall judge is no autograder
    cost = first["cost"]
    assert cost["judgments"] == 4 * crowd["n_contests"] == len(sent)
    assert cost["prompt_tokens"] == _estimated_tokens(sent) > 0
    usd = cost_usd(cost["prompt_tokens"], cost["completion_tokens"], (3.0, 12.0))
    assert cost["usd_per_1000"] > 0 and cost["usd_per_1000"] == pytest.approx(1000 * usd / cost["judgments"],
                                                                               rel=1e-9)
    assert cost["price"] == {"input_usd_per_1m": 3.0, "output_usd_per_1m": 12.0,
                             "source": "https://example.test/pricing", "checked": "2026-11-01"}
    assert cost["seconds_per_1000"] > 0
    assert again["cost"]["usd_per_1000"] == cost["usd_per_1000"]  # the price of the judgments, cached or not
    line = next(x for x in table_lines(first) if x.startswith("| Time / price per 1,000 judgments"))
    assert f"${cost['usd_per_1000']:.2f}" in line and "https://example.test/pricing, checked 2026-11-01" in line
    assert unknown["cost"]["usd_per_1000"] is None and unknown["cost"]["judgments"] > 0
    assert "price unknown" in next(x for x in table_lines(unknown) if x.startswith("| Time / price"))


@pytest.mark.parametrize(("price", "message"), [
    ("{input_usd_per_1m: 3}", "price: expected the keys"),
    ("{input_usd_per_1m: -1, output_usd_per_1m: 1, source: x, checked: 2026-01-01}", "numbers >= 0"),
    ("{input_usd_per_1m: 1, output_usd_per_1m: 1, source: x, checked: last week}", "price.checked"),
    ("{input_usd_per_1m: 1, output_usd_per_1m: 1, source: '', checked: 2026-01-01}", "price.source"),
])
def test_a_bad_price_is_one_line(tmp_path: Path, price: str, message: str) -> None:
    from nycc_bench.errors import NyccBenchError

    config = tmp_path / "bad.yaml"
    config.write_text(f"backend: openai\nmodel: m\nprotocol: overall\nprice: {price}\n", encoding="utf-8")
    with pytest.raises(NyccBenchError, match=message):
        JudgeSpec.parse(str(config))
