"""`code_version` covers the metric a task's scores reach: a changed accuracy formula is a new version, and
predictions made under the old one are refused, not resumed."""

from __future__ import annotations

from pathlib import Path

import pytest

from nycc_bench import code_version as cv
from nycc_bench.errors import NyccBenchError
from nycc_bench.metrics import metric_class
from nycc_bench.tasks import get_task


def test_a_halved_accuracy_formula_changes_code_version_and_refuses_resume(sample_dataset: str, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from nycc_bench.runner import run_task

    out = tmp_path / "matching.jsonl"
    run_task("matching", "random", out, dataset=sample_dataset, limit=2, progress=False)
    before = cv.code_version(get_task("matching"))
    from nycc_bench.metrics import rules as module  # what the metric class and scoring both run

    original = module.accuracy

    def accuracy(*args, **kwargs):  # the formula halved: its source differs
        result = original(*args, **kwargs)
        return {**result, "accuracy": result["accuracy"] / 2}

    monkeypatch.setattr(module, "accuracy", accuracy)
    cv._version.cache_clear()  # a new process would hash the edited code afresh
    after = cv.code_version(get_task("matching"))
    assert after != before
    assert "nycc_bench.metrics.nycc_accuracy" in cv.code_sources(get_task("matching"))  # the class module, as text
    with pytest.raises(NyccBenchError, match=f"code_version {before!r}, now {after!r}"):
        run_task("matching", "random", out, dataset=sample_dataset, progress=False)
    monkeypatch.undo()
    cv._version.cache_clear()
    assert cv.code_version(get_task("matching")) == before


def test_an_unrelated_metric_does_not_change_code_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = cv.code_version(get_task("matching"))
    module = __import__(metric_class("ead_diversity").__module__, fromlist=["x"])
    monkeypatch.setattr(module, "EadDiversity", type("EadDiversity", (), {}))
    cv._version.cache_clear()
    assert cv.code_version(get_task("matching")) == before
