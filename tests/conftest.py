"""Shared fixtures: the embedded sample built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from nycc_bench.paths import SAMPLE_DIR


@pytest.fixture(scope="session")
def sample_dataset(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The sample dataset, built once per test session (read only: tests must not write into it)."""
    import datasets

    from nycc_bench.builders import build_dataset

    datasets.disable_progress_bars()
    out = tmp_path_factory.mktemp("sample_dataset")
    build_dataset(SAMPLE_DIR, out, progress=False)
    return str(out)


@pytest.fixture(scope="session")
def sample_judges(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> dict:
    """The offline judges trained on the sample (as the demo and the leaderboard seed train them)."""
    from nycc_bench.offline_judges import train_offline_judges

    return train_offline_judges(sample_dataset, tmp_path_factory.mktemp("judges"),
                                SAMPLE_DIR / "humorbench_reubennarad" / "rubric")


ROOT = Path(__file__).resolve().parents[1]
