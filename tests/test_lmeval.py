"""nycc-bench inside lm-evaluation-harness: the exported tasks run under the real `lm_eval` (the `lm-eval` extra)
on the sample with a tiny local causal LM, give per instance the same answers and log-likelihoods as
`nycc-bench evaluate --system hf:DIR`, and `nycc-bench import lm-eval` turns that output into a record that
`load_results` accepts and the leaderboard shows."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
lm_eval = pytest.importorskip("lm_eval")

from tiny_models import save_tiny_llama  # noqa: E402

from nycc_bench.cli import main  # noqa: E402
from nycc_bench.errors import NyccBenchError  # noqa: E402
from nycc_bench.evaluation import evaluate, load_results  # noqa: E402
from nycc_bench.kinds.instances import build_instances  # noqa: E402
from nycc_bench.lmeval.export import export, exported_tasks, judge_tasks  # noqa: E402
from nycc_bench.lmeval.importer import import_lm_eval  # noqa: E402
from nycc_bench.predictions import read_predictions  # noqa: E402
from nycc_bench.standings import Filters, build_frame, tab_table  # noqa: E402
from nycc_bench.tasks import get_task  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("matching", "ranking")


def cli(*argv: str) -> str:
    """`nycc-bench ARGV` in process; its stdout (exit status 0 asserted)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def plain_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny random Llama without a chat template: `hf:` then sends the plain-text prompt, as the export does."""
    folder = save_tiny_llama(tmp_path_factory.mktemp("models") / "tiny")
    (folder / "chat_template.jinja").unlink()
    return folder


@pytest.fixture(scope="module")
def runs(plain_llama: Path, sample_dataset: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`lm_eval` (its CLI, as the README runs it) and `nycc-bench evaluate` on matching and ranking."""
    root = tmp_path_factory.mktemp("runs")
    env = {**os.environ, "NYCC_BENCH_CACHE": str(root / "cache"), "NYCC_BENCH_DATASET": sample_dataset,
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_CACHE": str(root / "hf")}
    path = subprocess.run([sys.executable, "-m", "nycc_bench.cli", "lm-eval", "path"], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()
    done = subprocess.run([sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args",
                           f"pretrained={plain_llama},dtype=float32", "--device", "cpu", "--batch_size", "4",
                           "--tasks", ",".join(f"nycc_{t}" for t in TASKS), "--include_path", path, "--log_samples",
                           "--output_path", str(root / "lm_eval")], env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    evaluate(f"hf:{plain_llama}", list(TASKS), dataset=sample_dataset, out=root / "nycc", progress=False,
             device="cpu", dtype="float32")
    return {"lm_eval": root / "lm_eval", "nycc": root / "nycc", "path": Path(path)}


def lm_eval_samples(folder: Path, task: str) -> list[dict]:
    """The nycc-bench items of one task's `--log_samples` file."""
    (path,) = folder.rglob(f"samples_nycc_{task}_*.jsonl")
    return [json.loads(line)["accuracy"] for line in path.read_text().splitlines()]


@pytest.mark.parametrize("task", TASKS)
def test_lm_eval_gives_the_same_answer_per_instance_as_evaluate(task: str, runs: dict[str, Path]) -> None:
    items = lm_eval_samples(runs["lm_eval"], task)
    nycc = {}
    for path in sorted((runs["nycc"] / "predictions").glob(f"{task}*.jsonl")):
        fold = int(path.stem.split("_fold")[1]) if "_fold" in path.stem else 0
        nycc.update({(fold, k): r for k, r in read_predictions(path).items()})
    assert len(items) == len(nycc) >= 8 and {(i["fold"], i["id"]) for i in items} == set(nycc)
    for item in items:
        mine = nycc[(item["fold"], item["id"])]
        assert item["prediction"] == mine["prediction"], item["id"]
        for letter, value in mine["raw"]["loglikelihoods"].items():  # the same numbers, not just the same argmax
            assert item["loglikelihoods"][letter] == pytest.approx(value, abs=1e-4)
    # and the same scores: lm-eval's aggregation is nycc-bench's metric, folds averaged
    (results,) = runs["lm_eval"].rglob("results_*.json")
    reported = json.loads(results.read_text())["results"][f"nycc_{task}"]
    scores = load_results(runs["nycc"]).scores[task]
    for key, score in scores.items():
        assert reported[f"{key},none"] == pytest.approx(score["value"], abs=1e-12)


def test_import_gives_a_record_that_loads_and_the_leaderboard_shows(runs: dict[str, Path], sample_dataset: str,
                                                                     tmp_path: Path) -> None:
    printed = cli("import", "lm-eval", str(runs["lm_eval"]), "--out", str(tmp_path / "run"), "--dataset",
                  sample_dataset)
    assert "Matching" in printed and "CrowdAcc" in printed
    record = load_results(tmp_path / "run").record
    evaluated = load_results(runs["nycc"]).record
    for task in TASKS:  # the same scores, intervals and counts as `evaluate` (the answers are the same)
        assert record["tasks"][task]["scores"] == evaluated["tasks"][task]["scores"]
        assert record["tasks"][task]["n"] == evaluated["tasks"][task]["n"]
        assert record["tasks"][task]["config"]["prompt_version"] == get_task(task).prompt_version
        assert any("lm-evaluation-harness" in d for d in record["tasks"][task]["config"]["deviations"])
        files = record["tasks"][task]["predictions"]
        assert [read_predictions(tmp_path / "run" / f) == {} for f in files] == [False] * len(files)
    assert record["model"]["source"] == "lm-eval" and record["model"]["parameters"] > 0
    assert record["dataset"]["fingerprint"] == evaluated["dataset"]["fingerprint"]
    unknown = record["extra"]["lm_eval"]["unknown"]
    assert {"model.revision", "git_commit", "environment.evaluate"} <= set(unknown)
    assert all(u in record["notes"][-1] or u in " ".join(record["notes"]) for u in unknown)
    table = tab_table(build_frame([record]), "hessel2023", Filters())
    assert len(table) == 1 and record["model"]["name"] in table.texts.loc[0, "Model"]
    assert table.values.loc[0, "Matching"] == pytest.approx(100 * record["tasks"]["matching"]["scores"]["accuracy"][
        "value"])
    assert table.values.loc[0, "CrowdAcc"] == pytest.approx(100 * record["tasks"]["ranking"]["scores"][
        "crowd_accuracy"]["value"])


def test_import_without_samples_or_nycc_tasks_says_what_to_do(runs: dict[str, Path], tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    (results,) = runs["lm_eval"].rglob("results_*.json")
    bare.mkdir()
    (bare / results.name).write_text(results.read_text())
    with pytest.raises(NyccBenchError, match="--log_samples"):
        import_lm_eval(bare, tmp_path / "out")
    data = json.loads(results.read_text())
    data["results"] = {"hellaswag": {}}
    (bare / results.name).write_text(json.dumps(data))
    with pytest.raises(NyccBenchError, match="no nycc task results"):
        import_lm_eval(bare, tmp_path / "out")


def test_export_is_generated_from_the_task_files(tmp_path: Path, sample_dataset: str) -> None:
    printed = cli("lm-eval", "export", str(tmp_path / "tasks"), "--dataset", sample_dataset)
    names = {f"nycc_{t.name}" for t in exported_tasks()}
    assert names == {"nycc_matching", "nycc_ranking", "nycc_matching_5shot", "nycc_explanation"}
    assert all(n in printed for n in names)
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(tmp_path / "tasks"))
    assert names <= set(manager.all_tasks)
    text = {p.name: p.read_text() for p in (tmp_path / "tasks").iterdir()}
    # no second copy of a prompt: no prompt file's text is in what was written
    for task in exported_tasks():
        for role, prompt in task.prompts.items():
            body = prompt.strip().splitlines()[-1]
            assert len(body) < 25 or not any(body in t for t in text.values()), (task.name, role)
    assert "output_type: multiple_choice" in text["nycc_matching.yaml"]
    assert "output_type: generate_until" in text["nycc_explanation.yaml"]
    assert f"path: {json.dumps(sample_dataset)}" in text["nycc_ranking.yaml"]
    assert {t.name for t in judge_tasks()} == {"caption_generation", "humorbench"}
    assert all(f"`{t.name}`" in text["README.md"] and "--judge" in text["README.md"] for t in judge_tasks())
    assert "acc_norm" in text["README.md"] and "chat template" in text["README.md"]


def test_docs_are_nycc_bench_instances(sample_dataset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 5-shot docs hold upstream's worked examples (the task's `shots`), built by nycc-bench."""
    from nycc_bench.lmeval.runtime import load_docs

    docs = load_docs("matching_5shot", path=sample_dataset)["test"]
    built = build_instances(get_task("matching_5shot"), sample_dataset, fold=0)
    first = next(d for d in docs if d["fold"] == 0)
    assert first["id"] == built[0].instance_id and first["prompt"].startswith(built[0].text())
    assert first["prompt"].endswith("Answer:") and first["prompt"].count("Answer: ") >= 5
    monkeypatch.delenv("NYCC_BENCH_DATASET", raising=False)
    with pytest.raises(NyccBenchError, match="NYCC_BENCH_DATASET"):
        load_docs("matching")


def test_explanation_runs_under_lm_eval_and_is_scored_per_fold(plain_llama: Path, sample_dataset: str,
                                                                tmp_path: Path) -> None:
    from lm_eval.tasks import TaskManager

    from nycc_bench.metrics import load_metric

    export(tmp_path / "tasks", sample_dataset)
    out = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={plain_llama},dtype=float32", device="cpu",
                                  tasks=["nycc_explanation"], task_manager=TaskManager(include_path=str(tmp_path /
                                                                                                        "tasks")),
                                  gen_kwargs="max_gen_toks=6", batch_size=4, log_samples=True)
    reported = out["results"]["nycc_explanation"]
    items = [s["rouge_l"] for s in out["samples"]["nycc_explanation"]]
    references = {}
    for fold in (0, 1):
        references.update({(fold, i.instance_id): i.reference["label"]
                           for i in build_instances(get_task("explanation"), sample_dataset, fold=fold)})
    expected = load_metric("explanation_overlap").compute(
        predictions=[i["prediction"] or "" for i in items],
        references=[references[(i["fold"], i["id"])] for i in items], folds=[i["fold"] for i in items])
    assert reported["rouge_l,none"] == pytest.approx(expected["rouge_l"])
    assert reported["bleu,none"] == pytest.approx(expected["bleu"])
