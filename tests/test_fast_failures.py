"""Failures a new user meets are one line that says why: a missing key before any request, a dead endpoint after
two quick attempts, an unknown or unreachable Hub model, an offline upstream build (timings: benchmarks/failures.py)."""

from __future__ import annotations

import socket

import pytest
from huggingface_hub import constants

from nycc_bench.building import resolve_source
from nycc_bench.cli import main
from nycc_bench.errors import NyccBenchError
from nycc_bench.systems import make_system


@pytest.fixture
def dead() -> str:
    """The URL of a local port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def _evaluate(dataset: str, tmp_path, capsys: pytest.CaptureFixture[str], system: str) -> str:
    """Run `evaluate` on the sample's matching task; it must fail (exit 2) with one line on stderr."""
    capsys.readouterr()
    assert main(["evaluate", "--system", system, "--tasks", "matching", "--dataset", dataset,
                 "--out", str(tmp_path / "run"), "--quiet"]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def test_missing_openai_key_is_named_before_any_request(sample_dataset: str, tmp_path, monkeypatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("OPENAI_API_KEY", "NYCC_JUDGE_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    line = _evaluate(sample_dataset, tmp_path, capsys, "openai:gpt-4o")
    assert "OPENAI_API_KEY" in line and "is not set" in line and "no reply" not in line


def test_a_refusing_endpoint_is_named_after_two_attempts(sample_dataset: str, tmp_path, monkeypatch, dead: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{dead}/v1")
    line = _evaluate(sample_dataset, tmp_path, capsys, "openai:gpt-4o")
    assert f"cannot connect to {dead.removeprefix('http://')}" in line and "2 attempts" in line
    assert "sk-test-not-a-real-key" not in line


def test_hub_models_that_cannot_load_are_one_line_naming_the_settings(sample_dataset: str, monkeypatch,
                                                                      dead: str) -> None:
    monkeypatch.setattr(constants, "ENDPOINT", dead)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    for spec, model in (("sbert:nope/nope", "'nope/nope'"), ("hf:nobody/nothing", "'nobody/nothing'")):
        with pytest.raises(NyccBenchError) as err:
            make_system(spec, sample_dataset)
        message = str(err.value)
        assert "\n" not in message and model in message and "HF_ENDPOINT" in message
        assert "HF_HUB_OFFLINE" in message and "cannot reach the Hub" in message
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(NyccBenchError, match="'nope/nope' is not in the local Hub cache and HF_HUB_OFFLINE"):
        make_system("sbert:nope/nope", sample_dataset)


def test_an_offline_upstream_build_names_the_mirror_variables(monkeypatch, dead: str) -> None:
    monkeypatch.delenv("NYCC_BENCH_UPSTREAM_DIR", raising=False)
    for name in ("HF_ENDPOINT", "NYCC_GITHUB_API", "NYCC_GITHUB_RAW"):
        monkeypatch.setenv(name, dead)
    with pytest.raises(NyccBenchError) as err:
        resolve_source("upstream", progress=False)
    message = str(err.value)
    assert "\n" not in message and "NYCC_BENCH_UPSTREAM_DIR" in message and "HF_ENDPOINT" in message
    assert "--source upstream" in message
