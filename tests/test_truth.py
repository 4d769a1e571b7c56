"""Truth by construction: a record says what happened (settings sent, shots used, endpoint), its deviations are
computed from that, task files are checked before they run, and a record is checked for meaning when written
and read. Real HTTP to a local server stands in for every endpoint."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply

from nycc_bench import evaluate, load_results
from nycc_bench.cli import main
from nycc_bench.errors import NyccBenchError
from nycc_bench.results import ResultsError, read_results
from nycc_bench.tasks import all_tasks, get_task, list_tasks

ROOT = Path(__file__).resolve().parents[1]


def _intervals_hold(record: dict) -> list[str]:
    """Every score whose interval does not contain its value."""
    bad = []
    for task, entry in record["tasks"].items():
        for key, s in entry["scores"].items():
            if s["ci_low"] is not None and not s["ci_low"] <= s["value"] <= s["ci_high"]:
                bad.append(f"{task}.{key}: {s}")
    return bad


@pytest.fixture
def judged_run(judged_random_run):
    """The session's judged run of `random` on every task (conftest; shared with test_evaluate)."""
    return judged_random_run


def test_every_score_lies_inside_its_own_interval(judged_run) -> None:
    assert not _intervals_hold(judged_run.record)
    humorbench = judged_run.record["tasks"]["humorbench"]["scores"]
    assert humorbench["caption_all_pass"]["ci_low"] != humorbench["element_accuracy"]["ci_low"] or \
        humorbench["caption_all_pass"]["ci_high"] != humorbench["element_accuracy"]["ci_high"]
    shipped = list(ROOT.glob("nycc_bench/leaderboard/seed/results/*.json"))  # the one committed set of baseline runs
    assert shipped
    for path in shipped:
        assert not _intervals_hold(read_results(path)), path


def test_a_score_may_not_borrow_another_scores_interval(tmp_path: Path) -> None:
    from nycc_bench.tasks.definition import build_task

    raw = dict(json.loads(json.dumps(_raw("humorbench"))))
    raw["scores"][2] = {k: v for k, v in raw["scores"][2].items() if k not in ("low", "high")}
    with pytest.raises(NyccBenchError, match="borrow the interval 'ci_low' of element_accuracy"):
        build_task(raw, ROOT / "nycc_bench" / "tasks", "humorbench/humorbench.yaml")


def _raw(name: str) -> dict:
    from nycc_bench.tasks.registry import _raw_files, _resolved

    return _resolved(name, _raw_files())[0]


@pytest.mark.parametrize(("edit", "field"), [
    (lambda s: s.update(value=7.0, ci_low=None, ci_high=None), "value"),
    (lambda s: s.update(value=-0.3, ci_low=None, ci_high=None), "value"),
    (lambda s: s.update(value=0.99), "value"),
    (lambda s: s.update(ci_low=0.9, ci_high=0.1), "ci_low"),
])
def test_a_hand_edited_score_is_refused_naming_the_field(judged_run, tmp_path: Path, edit, field: str) -> None:
    run_dir = Path(judged_run.path).parent
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    data = json.loads((copy / "results.json").read_text())
    edit(data["tasks"]["matching"]["scores"]["accuracy"])
    (copy / "results.json").write_text(json.dumps(data))
    with pytest.raises(ResultsError, match=rf"tasks\.matching\.scores\.accuracy\.{field}"):
        load_results(copy)


def test_counts_must_match_the_predictions(judged_run, tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(Path(judged_run.path).parent, copy)
    data = json.loads((copy / "results.json").read_text())
    data["tasks"]["matching"]["n"] = 8000
    data["tasks"]["matching"]["scores"]["accuracy"]["n"] = 8000
    data["tasks"]["matching"]["details"]["n"] = 8000
    (copy / "results.json").write_text(json.dumps(data))
    with pytest.raises(ResultsError, match=r"tasks\.matching\.n: is 8000 but the predictions files hold 8"):
        load_results(copy)
    data["tasks"]["matching"]["n"] = 8
    (copy / "results.json").write_text(json.dumps(data))
    with pytest.raises(ResultsError, match=r"scores\.accuracy\.n: 8000 items scored but the task has 8"):
        load_results(copy)


def _without_ranking(sample_dataset: str, tmp_path: Path) -> str:
    out = tmp_path / "no_ranking"
    shutil.copytree(sample_dataset, out)
    for folder in (out / "data").glob("ranking*"):
        shutil.rmtree(folder)
    return str(out)


def _judge_reply(body: dict, attempt: int) -> Reply:
    return Reply(text="A", top_logprobs=[("A", -0.1), ("B", -2.4)])


def test_zero_shot_judge_is_recorded_and_listed_as_a_deviation(sample_dataset: str, tmp_path: Path) -> None:
    dataset = _without_ranking(sample_dataset, tmp_path)
    with FakeChatServer(_judge_reply) as server:
        run = evaluate("random", ["caption_generation"], dataset=dataset, judge=_spec(server.base_url, tmp_path),
                       out=tmp_path / "run", progress=False)
    config = run.record["tasks"]["caption_generation"]["config"]
    assert config["effective"]["judge"]["n_shots"] == 0
    assert config["effective"]["judge"]["shots_source"] is None
    assert "The judge gets 0 in-context examples; the paper's gets 5." in config["deviations"]


def _spec(base_url: str, tmp_path: Path):
    from nycc_bench.judging import JudgeSpec

    return JudgeSpec("openai", "gpt-4o", base_url=base_url, cache_dir=str(tmp_path / "cache"))


def _answer(body: dict, attempt: int) -> Reply:
    return Reply(text="Let me think.\nAnswer: A", top_logprobs=None)


def test_the_endpoint_is_recorded_without_its_password(sample_dataset: str, tmp_path: Path, capsys) -> None:
    with FakeChatServer(_answer) as server:
        port = server.base_url.split(":")[-1].split("/")[0]
        url = f"http://user:secret@127.0.0.1:{port}/v1"
        code = main(["evaluate", "--system", "openai:fake-model", "--tasks", "matching", "--dataset", sample_dataset,
                     "--base-url", url, "--limit", "2", "--out", str(tmp_path / "run"), "--quiet",
                     "--system-option", f"cache_dir={tmp_path / 'cache'}"])
    assert code == 0, capsys.readouterr().err
    record = load_results(tmp_path / "run").record
    effective = record["tasks"]["matching"]["config"]["effective"]["system"]
    assert effective["endpoint"] == f"http://127.0.0.1:{port}/v1"
    assert effective["request"] == {"model": "fake-model", "n": 1, "temperature": 1.0}
    assert f"--base-url http://127.0.0.1:{port}/v1" in record["commands"][0]
    assert record["model"]["endpoint"] == f"http://127.0.0.1:{port}/v1"  # not OpenAI's: a local server
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert b"secret" not in path.read_bytes(), path


def test_a_failing_server_gives_exit_1_and_an_incomplete_record(sample_dataset: str, tmp_path: Path,
                                                                capsys) -> None:
    with FakeChatServer(lambda body, attempt: Reply(status=500, error_message="down")) as server:
        code = main(["evaluate", "--system", "openai:fake", "--tasks", "matching", "--dataset", sample_dataset,
                     "--base-url", server.base_url, "--limit", "2", "--out", str(tmp_path / "run"), "--quiet",
                     "--system-option", "retries=0", "--system-option", f"cache_dir={tmp_path / 'c'}"])
    assert code == 1
    assert "incomplete: matching: 4 of 4 items failed" in capsys.readouterr().err
    entry = load_results(tmp_path / "run").record["tasks"]["matching"]
    assert entry["status"] == "incomplete" and entry["n_failed"] == 4


def test_limit_runs_and_scores_a_recorded_subset(sample_dataset: str, tmp_path: Path, capsys) -> None:
    run = evaluate("random", ["matching", "humorbench"], dataset=sample_dataset, out=tmp_path / "api", limit=2,
                   folds=[0], progress=False)
    entry = run.record["tasks"]["matching"]
    assert entry["n"] == 2 and entry["config"]["effective"]["subset"] == {"n": 2, "of": 4}
    assert "subset: 2 of 4 instances (--limit)." in entry["config"]["deviations"]
    assert main(["evaluate", "--system", "random", "--tasks", "matching", "--dataset", sample_dataset,
                 "--limit", "2", "--folds", "0", "--out", str(tmp_path / "cli"), "--quiet"]) == 0
    assert load_results(tmp_path / "cli").record["tasks"]["matching"]["n"] == 2


def test_editing_a_builder_changes_code_version_and_refuses_resume(sample_dataset: str, tmp_path: Path,
                                                                   monkeypatch) -> None:
    from nycc_bench.code_version import code_version
    from nycc_bench.kinds import registry as kinds
    from nycc_bench.kinds.loader import load_kinds
    from nycc_bench.runner import run_task

    load_kinds()

    out = tmp_path / "matching.jsonl"
    run_task("matching", "random", out, dataset=sample_dataset, limit=2, progress=False)
    before = code_version(get_task("matching"))
    original = kinds.BUILDERS["hessel"]

    def edited(*args, **kwargs):  # an edited builder: its source differs
        built = original(*args, **kwargs)
        return kinds.Built(built.instances[::-1], built.skipped)

    monkeypatch.setitem(kinds.BUILDERS, "hessel", edited)
    after = code_version(get_task("matching"))
    assert after != before
    with pytest.raises(NyccBenchError, match=f"code_version {before!r}, now {after!r}"):
        run_task("matching", "random", out, dataset=sample_dataset, progress=False)


def test_a_typo_in_a_task_file_fails_tasks_check(tmp_path: Path, monkeypatch, capsys) -> None:
    from nycc_bench.tasks import registry

    copy = tmp_path / "tasks"
    shutil.copytree(ROOT / "nycc_bench" / "tasks", copy)
    path = copy / "hessel2023" / "matching_5shot.yaml"
    path.write_text(path.read_text().replace("options:", "optons:"))
    monkeypatch.setattr(registry, "ROOT", copy)
    registry._raw_files.cache_clear()
    registry._all_tasks.cache_clear()
    try:
        assert main(["tasks", "check", "matching_5shot"]) == 2
    finally:
        registry._raw_files.cache_clear()
        registry._all_tasks.cache_clear()
    err = capsys.readouterr().err
    assert "task file hessel2023/matching_5shot.yaml: unknown key 'optons'; did you mean 'options'?" in err


@pytest.mark.parametrize("name", list(all_tasks()))
def test_every_task_file_passes_tasks_check(name: str, sample_dataset: str, capsys) -> None:
    assert main(["tasks", "check", name, "--dataset", sample_dataset]) == 0
    assert capsys.readouterr().out.startswith(f"ok   {name}:")


def test_tasks_show_json_prints_paper_and_computed_deviations(capsys) -> None:
    assert main(["tasks", "show", "matching_5shot", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["paper_settings"]["shots"]["values"] == [0, 5]
    assert shown["paper_settings"]["shots"]["source"].startswith("§3.1")
    assert not any("worked examples per item" in d for d in shown["deviations"])  # 5 is one of the paper's
    assert main(["tasks", "show", "humorbench", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["judge"]["settings"]["parse_retries"] == 0 == shown["judge"]["default_parse_retries"]


def test_a_three_shot_variant_is_a_computed_deviation(sample_dataset: str, tmp_path: Path) -> None:
    with FakeChatServer(_answer) as server:
        run = evaluate("openai:x", ["matching"], dataset=sample_dataset, out=tmp_path / "r", folds=[0],
                       task_options={"matching": {"shots": 3}}, progress=False, limit=1, base_url=server.base_url,
                       cache_dir=str(tmp_path / "c"))
    deviations = run.record["tasks"]["matching"]["config"]["deviations"]
    assert "3 worked examples per item; the paper used 0 or 5." in deviations


def test_option_rules_are_one_line_errors(sample_dataset: str, tmp_path: Path, capsys) -> None:
    with pytest.raises(NyccBenchError, match="system-option: random takes no option 'sed'"):
        evaluate("random", ["matching"], dataset=sample_dataset, out=tmp_path / "a", sed=1)
    with pytest.raises(NyccBenchError, match="did you mean 'temperature'"):
        evaluate("openai:x", ["matching"], dataset=sample_dataset, out=tmp_path / "b", temprature=1)
    with pytest.raises(NyccBenchError, match="task-option: 'humorbnch' is not among the tasks run"):
        evaluate("random", ["matching"], dataset=sample_dataset, out=tmp_path / "c",
                 task_options={"humorbnch": {"unit": "caption"}})
    with pytest.raises(NyccBenchError, match=r"matching\.shots must be a whole number"):
        evaluate("random", ["matching"], dataset=sample_dataset, out=tmp_path / "d",
                 task_options={"matching": {"shots": "five"}})
    from nycc_bench.judging import JudgeSpec

    with pytest.raises(NyccBenchError, match="judge-option: the judge openai:gpt-4o takes no option 'base_ur'"):
        JudgeSpec.parse("openai:gpt-4o", base_ur="http://127.0.0.1:1/v1")
    assert list_tasks("hessel") == list_tasks("hessel2023") and "matching" in list_tasks("hessel")
    with pytest.raises(NyccBenchError, match="unknown family or group 'hesel'"):
        list_tasks("hesel")


def test_run_honours_shots_and_seed_zero(sample_dataset: str, tmp_path: Path) -> None:
    assert main(["run", "--task", "matching_5shot", "--system", "random", "--dataset", sample_dataset,
                 "--shots", "0", "--seed", "0", "--out", str(tmp_path / "p.jsonl"), "--quiet"]) == 0
    meta = json.loads((tmp_path / "p.jsonl.meta.json").read_text())
    assert meta["options"]["shots"] == 0 and meta["options"]["seed"] == 0


HAND_WRITTEN_CHECKS = {
    "ROUGE-L is the exact mean of per-item F-measures": lambda t: _rouge_is_the_exact_mean(),
    "The paper has no zero-shot prompt for explanations from pixels": lambda t: (
        t.from_pixels and t.kind == "generation" and t.options["prompt"].values == ("nycc",)
        and t.paper_settings["prompt"].values == ("nycc",)),
    "Greedy decoding with at most 256 new tokens is this benchmark's choice for vision models": lambda t: (
        t.from_pixels and t.decoding.get("temperature") == 0.0 and t.decoding.get("max_new_tokens") == 256),
    "The random letter for an unreadable reply is seeded by the instance id": lambda t: _seeded_letter(),
}


def _rouge_is_the_exact_mean() -> bool:
    """ROUGE-L here is the plain mean of the items' F-measures (no bootstrap aggregation)."""
    from rouge_score import rouge_scorer

    from nycc_bench.scoring.overlap import rouge_l

    preds, refs = ["a cat sat", "the dog ran far"], ["a cat sat down", "dog ran"]
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    mean = sum(scorer.score(r, p)["rougeL"].fmeasure for p, r in zip(preds, refs, strict=True)) / 2
    return abs(rouge_l(preds, refs) - mean) < 1e-12


def _seeded_letter() -> bool:
    """The fallback letter of an unreadable reply depends on the instance id alone."""
    from nycc_bench.kinds.parsing import fallback_letter

    return fallback_letter("x", "ABCDE") == fallback_letter("x", "ABCDE")


def test_every_hand_written_deviation_is_still_true() -> None:
    for task in all_tasks().values():
        for sentence in task.deviations:
            check = next((c for start, c in HAND_WRITTEN_CHECKS.items() if sentence.startswith(start)), None)
            assert check is not None, f"{task.name}: no test checks the hand-written deviation {sentence!r}"
            assert check(task), f"{task.name}: {sentence!r} is no longer true"
