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


def test_sources_are_read_as_inspect_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """`code_version` reads each definition from one parse of its module (speed); the text is inspect's, byte for
    byte, for everything any task's version covers (so a version computed either way is the same)."""
    import inspect

    from nycc_bench.tasks.registry import all_tasks

    tasks = [get_task(name) for name in all_tasks()]
    fast = {task.name: cv.code_sources(task) for task in tasks}
    monkeypatch.setattr(cv, "_source", inspect.getsource)
    slow = {task.name: cv.code_sources(task) for task in tasks}
    assert sum(len(sources) for sources in slow.values()) > 100  # builders, parsers, scorers and what they reach
    assert fast == slow


def test_a_source_edited_on_disk_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module file changed while the process runs gives its new text, as inspect would."""
    import importlib
    import sys

    (tmp_path / "edited_mod.py").write_text("def f():\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("edited_mod")
    assert cv._source(module.f) == "def f():\n    return 1\n"
    (tmp_path / "edited_mod.py").write_text("import os\n\n\ndef f():\n    return 2  # edited\n")
    sys.modules.pop("edited_mod")
    module = importlib.import_module("edited_mod")
    assert cv._source(module.f) == "def f():\n    return 2  # edited\n"
