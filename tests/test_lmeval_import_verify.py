"""`nycc-bench import lm-eval` verifies what it reads: an lm-eval output folder (written here as lm-eval 0.4 writes
it, from the exported tasks' own runtime hooks) whose labels were rewritten, whose samples were cut, repeated or
swapped for foreign ids, or whose logged answers were edited is refused in one line naming what is wrong; with
`--dataset` the gold comes from the dataset; the import takes the run-folder lock."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from nycc_bench.cli import main
from nycc_bench.errors import NyccBenchError
from nycc_bench.evaluation import load_results
from nycc_bench.lmeval import runtime
from nycc_bench.lmeval.importer import import_lm_eval
from nycc_bench.lmeval.verify import doc_hash
from nycc_bench.tasks import get_task

STAMP = "2026-01-01T00-00-00.000000"
NAME = "nycc_matching"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def lm_eval_run(dataset: str, seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(results file, samples) of a seeded random-log-likelihood model on matching, as lm-eval writes them."""
    rng = random.Random(seed)
    task = get_task("matching")
    docs = list(runtime.load_docs("matching", path=dataset)["test"])
    samples = []
    for k, doc in enumerate(docs):
        lls = [rng.uniform(-9, -1) for _ in doc["choices"]]
        metrics = runtime.choice_results("matching", doc, [(ll, False) for ll in lls])
        samples.append({"doc_id": k, "doc": doc, "target": doc["gold"],
                        "arguments": [[doc["prompt"], f" {c}"] for c in doc["choices"]],
                        "resps": [[[ll, False]] for ll in lls], "filtered_resps": [[ll, False] for ll in lls],
                        "filter": "none", "metrics": list(metrics), "doc_hash": doc_hash(doc),
                        "prompt_hash": sha(doc["prompt"]), "target_hash": sha(str(doc["gold"])), **metrics})
    items = [s["accuracy"] for s in samples]
    results = {"results": {NAME: {"alias": NAME, "accuracy,none": runtime.aggregate("matching", "accuracy", items)}},
               "configs": {NAME: {"task": NAME, "output_type": "multiple_choice", "dataset_kwargs": {},
                                  "metadata": {"nycc_task": "matching", "prompt_version": task.prompt_version}}},
               "n-samples": {NAME: {"original": len(docs), "effective": len(docs)}},
               "config": {"model": "hf", "model_args": "pretrained=tiny", "limit": None, "device": "cpu"},
               "model_name": "tiny", "date": 1767225600.0, "lm_eval_version": "0.4.9", "task_hashes": {}}
    return results, samples


def write(folder: Path, results: dict[str, Any], samples: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"results_{STAMP}.json").write_text(json.dumps(results))
    (folder / f"samples_{NAME}_{STAMP}.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return folder


def rehash(sample: dict[str, Any]) -> dict[str, Any]:
    """What a careful forger does after editing a doc: lm-eval's hashes recomputed."""
    sample["doc_hash"], sample["target_hash"] = doc_hash(sample["doc"]), sha(str(sample["target"]))
    return sample


def refused(folder: Path, out: Path, dataset: str | None, *fragments: str) -> None:
    with pytest.raises(NyccBenchError) as caught:
        import_lm_eval(folder, out, dataset)
    text = str(caught.value)
    assert "\n" not in text and all(f in text for f in fragments), text
    assert not (out / "results.json").exists()


@pytest.fixture(scope="module")
def honest(sample_dataset: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return lm_eval_run(sample_dataset)


def test_an_honest_folder_imports_with_the_dataset(honest, sample_dataset: str, tmp_path: Path) -> None:
    results, samples = honest
    folder = write(tmp_path / "lm", results, samples)
    assert main(["import", "lm-eval", str(folder), "--out", str(tmp_path / "run"), "--dataset", sample_dataset]) == 0
    value = load_results(tmp_path / "run").scores["matching"]["accuracy"]["value"]
    assert value == pytest.approx(results["results"][NAME]["accuracy,none"])


def test_rewritten_labels_are_refused_and_the_gold_comes_from_the_dataset(honest, sample_dataset: str,
                                                                          tmp_path: Path) -> None:
    results, samples = honest
    forged = copy.deepcopy(samples)
    for s in forged:  # every label rewritten to the model's answer: accuracy 1.0 if believed
        letter = s["accuracy"]["prediction"]
        s["doc"]["gold"] = s["doc"]["choices"].index(letter)
        s["doc"]["reference"] = json.dumps({"label": letter})
        s["target"] = s["doc"]["gold"]
        for key in s["metrics"]:
            s[key]["reference"] = {"label": letter}
    folder = write(tmp_path / "plain", results, forged)
    refused(folder, tmp_path / "a", None, "doc_hash", "edited")  # lm-eval's hashes no longer match
    folder = write(tmp_path / "rehashed", results, [rehash(s) for s in forged])
    refused(folder, tmp_path / "b", sample_dataset, "differs from the dataset's")
    edited = copy.deepcopy(samples)
    for s in edited:  # only the logged item's reference: the doc still carries the true gold
        for key in s["metrics"]:
            s[key]["reference"] = {"label": s["accuracy"]["prediction"]}
    refused(write(tmp_path / "items", results, edited), tmp_path / "c", None, "logged item is not its doc's")


def test_edited_answers_are_read_again_from_the_model_responses(honest, tmp_path: Path) -> None:
    results, samples = honest
    edited = copy.deepcopy(samples)
    for s in edited:  # every logged answer set to the gold: the log-likelihoods still say otherwise
        for key in s["metrics"]:
            s[key]["prediction"] = s[key]["reference"]["label"]
    import_lm_eval(write(tmp_path / "lm", results, edited), tmp_path / "run")
    value = load_results(tmp_path / "run").scores["matching"]["accuracy"]["value"]
    assert value == pytest.approx(results["results"][NAME]["accuracy,none"]) and value < 1.0


def test_cut_repeated_foreign_and_missing_samples_are_refused(honest, sample_dataset: str, tmp_path: Path) -> None:
    results, samples = honest
    half = samples[: len(samples) // 2]
    refused(write(tmp_path / "half", results, half), tmp_path / "a", None, f"has {len(half)} samples",
            f"evaluated {len(samples)}")
    counted = copy.deepcopy(results)
    counted["n-samples"][NAME] = {"original": len(samples), "effective": len(half)}
    refused(write(tmp_path / "half2", counted, half), tmp_path / "b", None, "without --limit", "incomplete")
    counted["n-samples"][NAME] = {"original": len(half), "effective": len(half)}  # the counts edited too
    missing = min((s["doc"]["fold"], s["doc"]["id"]) for s in samples[len(half):])[1]  # the first one named
    refused(write(tmp_path / "half3", counted, half), tmp_path / "c", sample_dataset, "lacks samples of",
            missing)
    twice = [*samples, samples[0]]
    counted["n-samples"][NAME] = {"original": len(twice), "effective": len(twice)}
    refused(write(tmp_path / "twice", counted, twice), tmp_path / "d", None, "duplicate samples of",
            samples[0]["doc"]["id"])
    foreign = copy.deepcopy(samples)
    foreign[0]["doc"]["id"] = "not-an-instance"
    for key in foreign[0]["metrics"]:
        foreign[0][key]["id"] = "not-an-instance"
    refused(write(tmp_path / "foreign", results, [rehash(foreign[0]), *foreign[1:]]), tmp_path / "e",
            sample_dataset, "ids the dataset does not have", "not-an-instance")


def test_the_import_is_named_after_the_model_lm_eval_ran(honest, tmp_path: Path) -> None:
    results, samples = honest
    named = copy.deepcopy(results)
    named["config"]["model_args"] = "pretrained=EleutherAI/pythia-14m,dtype=float32"
    named["model_name"] = "EleutherAI/pythia-14m"
    import_lm_eval(write(tmp_path / "named", named, samples), tmp_path / "a")
    assert load_results(tmp_path / "a").record["model"]["name"] == "EleutherAI/pythia-14m"
    unnamed = copy.deepcopy(results)  # a model object passed to simple_evaluate: lm-eval makes up an id
    unnamed["config"].update(model="HFLM", model_args=None)
    unnamed["model_name"] = "i82qcls7"
    import_lm_eval(write(tmp_path / "unnamed", unnamed, samples), tmp_path / "b")
    record = load_results(tmp_path / "b").record
    assert record["model"]["name"] == "HFLM (lm-eval recorded no model name)"
    assert "i82qcls7" not in json.dumps(record["model"])
