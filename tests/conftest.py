"""Shared fixtures: the embedded sample built once, the sample's offline judges, and one judged run of `random` on
every task; each made once per test session, and once for all workers under pytest-xdist (`make test` and
`make test-slow` run `-n auto`): the first worker makes it in the session's shared folder under a file lock, the
others find it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

from nycc_bench.paths import SAMPLE_DIR

# Spaces started from the environment in tests make no judges reports behind the About tab (each would judge the
# sample in a background thread beside the test); tests/test_judges_reports_tab.py makes them explicitly.
os.environ.setdefault("NYCC_LB_JUDGES_REPORTS", "0")


def shared_folder(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], object]) -> Path:
    """A folder `make` fills once per session, shared by every xdist worker (read only once made)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    folder = root / f"shared-{name}"
    with FileLock(str(folder) + ".lock"):
        if not (folder / ".made").is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            make(folder)
            (folder / ".made").touch()
    return folder


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files that hold a test marked slow first, each whole and in its own order (a stable sort, so module
    fixtures still run once): spread over workers, the longest start at once instead of ending the run on one
    worker while the others idle."""
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(scope="session")
def sample_dataset(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The sample dataset, built once per test session (read only: tests must not write into it)."""
    import datasets

    from nycc_bench.builders import build_dataset

    datasets.disable_progress_bars()
    return str(shared_folder(tmp_path_factory, "sample_dataset",
                             lambda out: build_dataset(SAMPLE_DIR, out, progress=False)))


@pytest.fixture(scope="session")
def sample_judges() -> dict:
    """The sample's offline judges (`reward:sample`, `embedding:sample`), as the demo, the seed and the cards name
    them: trained into the cache once (test workers wait on one training; `make demo` usually did it already)."""
    from nycc_bench.offline_judges import sample_judges

    return sample_judges()


@pytest.fixture(scope="session")
def judged_random_run(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str, sample_judges: dict):
    """`random` on every task of the sample, judged by the sample's offline judges: one run folder per session
    (read only) for the tests of the record, its numbers and its files (`test_evaluate`, `test_truth`)."""
    from nycc_bench.evaluation import evaluate, load_results

    folder = shared_folder(tmp_path_factory, "judged_random_run",
                           lambda out: evaluate("random", "all", dataset=sample_dataset, judge=sample_judges,
                                                out=out / "run", progress=False))
    return load_results(folder / "run")


ROOT = Path(__file__).resolve().parents[1]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The figures a test reports with `record_property("figure", line)` (a real server's agreement with `hf:`),
    printed after the run, from every xdist worker too (reports carry their properties)."""
    lines = [value for report in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", [])
             for name, value in getattr(report, "user_properties", []) if name == "figure"]
    if lines:
        terminalreporter.section("figures")
        for line in lines:
            terminalreporter.write_line(str(line))
