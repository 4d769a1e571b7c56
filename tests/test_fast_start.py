"""Scoring and the baselines import no torch, transformers or sentence-transformers (nor `evaluate`, which pulls
torch in): a random run on four items stays a start-up of a second, not ten (`benchmarks/startup.py` times it).
`metrics.compute_metric` scores through each metric's rule and gives what the `evaluate` class gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from nycc_bench.errors import NyccBenchError
from nycc_bench.metrics import METRIC_NAMES, compute_metric, load_metric

HEAVY = ("torch", "transformers", "sentence_transformers", "evaluate")
PROBE = """
import json, sys
from nycc_bench.cli import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code or 0
print(json.dumps({{"code": code, "heavy": sorted(m for m in {heavy!r} if m in sys.modules)}}), file=sys.stderr)
"""


@pytest.mark.parametrize("system", ["random", "length"])
def test_a_baseline_run_imports_no_torch(system: str, sample_dataset: str, tmp_path) -> None:
    argv = ["evaluate", "--system", system, "--tasks", "matching", "--limit", "4", "--dataset", sample_dataset,
            "--out", str(tmp_path / "run")]
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), *argv], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report == {"code": 0, "heavy": []}, done.stderr[-2000:]
    assert "accuracy" in json.loads((tmp_path / "run" / "results.json").read_text())["tasks"]["matching"]["scores"]


JUDGMENTS = [  # both orders per contest; a None verdict is recalibrated from delta_logprob
    {"contest_number": 1, "model_position": "A", "verdict": "A", "delta_logprob": None},
    {"contest_number": 1, "model_position": "B", "verdict": None, "delta_logprob": 1.5},
    {"contest_number": 2, "model_position": "A", "verdict": "B", "delta_logprob": None},
    {"contest_number": 2, "model_position": "B", "verdict": None, "delta_logprob": -2.0},
    {"contest_number": 3, "model_position": "A", "verdict": "A", "delta_logprob": None},
    {"contest_number": 3, "model_position": "B", "verdict": "B", "delta_logprob": None},
]

CASES = {
    "nycc_accuracy": {"predictions": ["A", "C", "E", "B", None], "references": ["A", "C", "D", "B", "B"],
                      "folds": [0, 0, 0, 1, 1], "invalid_as_wrong": True, "n_resamples": 200},
    "crowd_ny_accuracy": {"predictions": ["A", "B", "B", "A"], "references": ["A", "A", "B", "A"],
                          "winner_sources": ["crowd_winner", "official_winner", "crowd_winner", "official_winner"]},
    "explanation_overlap": {"predictions": ["the man is a cat", "a joke about taxes"],
                            "references": ["the man is really a cat", "taxes are the joke"], "folds": [0, 1]},
    "ead_diversity": {"predictions": [["a cat sat", "a dog ran", "the cat sat"], ["one", "two two", "three"]]},
    "group_win_rate": {"judgments": JUDGMENTS, "n_resamples": 100},
    "element_autograder": {"predictions": ["x", "x", "y", "y"], "references": ["e1", "e2", "e1", "e2"],
                           "judgments": ["PASS", "FAIL", "PASS", "PASS"], "caption_ids": ["c1", "c1", "c2", "c2"]},
}


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_compute_metric_gives_what_the_evaluate_class_gives(name: str) -> None:
    assert compute_metric(name, **CASES[name]) == load_metric(name).compute(**CASES[name])


@pytest.mark.parametrize("name", ["nycc_accuracy", "group_win_rate"])
def test_compute_metric_refuses_what_the_class_refuses(name: str) -> None:
    bad = {**CASES[name], "n_resamples": 0}
    with pytest.raises(NyccBenchError) as direct:
        compute_metric(name, **bad)
    with pytest.raises(NyccBenchError) as through_class:
        load_metric(name).compute(**bad)
    assert str(direct.value) == str(through_class.value)
    with pytest.raises(NyccBenchError, match="did you mean"):
        compute_metric(name, **CASES[name], n_resample=10)  # an unknown argument: the class names the nearest


def test_the_python_api_run_imports_no_torch(sample_dataset: str, tmp_path) -> None:
    code = (f"import json, sys; from nycc_bench import evaluate; "
            f"run = evaluate(system='random', tasks='matching', limit=4, dataset={sample_dataset!r}, "
            f"out={str(tmp_path / 'run')!r}, progress=False); "
            f"print(json.dumps([run.scores['matching']['accuracy']['n'], "
            f"sorted(m for m in {HEAVY!r} if m in sys.modules)]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    n, heavy = json.loads(done.stdout.strip().splitlines()[-1])
    assert n > 0 and heavy == []
