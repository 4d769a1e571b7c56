"""`nycc-bench judges report`: a judge scored on the crowd's ratings (Zhang's pairwise and group checks), the human
rubric labels (never in-sample: a grader fitted on them is cross-validated) and GPT-4o's stored verdicts, one table
with n and intervals per cell; the About tab shows the kept reports."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from nycc_bench.cli import main
from nycc_bench.judges_report import PAPER_PAIRWISE, exact_interval, kappa_cell, report, table_lines
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
