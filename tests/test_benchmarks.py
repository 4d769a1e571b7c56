"""Every benchmark this issue measures with runs in its quick mode and ends with one JSON object whose figures are
there (the sizes are small: that the script works is what CI checks; benchmarks/results holds the real runs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _last_json(script: str, *args: str, **env: str) -> dict:
    done = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, cwd=BENCHMARKS,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", **env})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_startup_quick() -> None:
    out = _last_json("startup.py", "--quick")
    assert out["help"]["imported"] == {"torch": False, "datasets": False, "pandas": False,
                                       "sentence_transformers": False, "exit": 0}
    warm = out["evaluate"]["imported"]
    assert warm["torch"] is False and warm["datasets"] is False and warm["exit"] == 0
    assert out["evaluate_cold"]["imported"]["exit"] == 0  # a fresh cache: the captions are encoded once
    assert out["python_pass"]["cpu_s"] > 0 and out["evaluate"]["peak_mb"] > out["python_pass"]["peak_mb"]


@pytest.mark.slow
def test_score_quick() -> None:
    (row,) = _last_json("score.py", "--quick")["rows"]
    assert row["lines"] == 2000 and row["same_score"] is True and row["new"]["accuracy"] == row["previous"]["accuracy"]
    assert row["floor"]["peak_mb"] < row["new"]["peak_mb"]  # each process's own peak, not the benchmark's


@pytest.mark.slow
def test_novelty_quick() -> None:
    whole = _last_json("novelty.py", "--quick")["whole_process"]
    assert whole["n"] == 20000 and whole["novelty_cold"]["cpu_s"] > whole["novelty_warm"]["cpu_s"] > 0


@pytest.mark.slow
def test_build_quick() -> None:
    out = _last_json("build.py", "--quick")
    assert out["synthetic_captions"] == 20000 and out["same_bytes"] is True
    assert out["whole_process"]["build"]["cpu_s"] > out["whole_process"]["floor"]["cpu_s"] > 0


@pytest.mark.slow
def test_runner_served_without_vllm_says_why(tmp_path: Path) -> None:
    """`runner.py --served` where vLLM's environment is absent: `hf:` is measured, and the `vllm-server:` and `vllm:`
    rows say they were skipped and why, instead of the run failing."""
    out = _last_json("runner.py", "--served", "--instances", "2", NYCC_VLLM_PYTHON=str(tmp_path / "no" / "python"))
    rows = out["rows"]
    assert out["instances"] == 2 and out["engine"] is None and rows["hf"]["wall_s"] > 0 and rows["hf"]["cpu_s"] > 0
    for name in ("vllm-server", "vllm"):
        assert rows[name] == {"skipped": "no vLLM environment: run `make vllm-env` (or set NYCC_VLLM_PYTHON)"}


@pytest.mark.slow
def test_every_benchmark_script_imports() -> None:
    """Every script's imports resolve (leaderboard_render.py imported a name that had moved)."""
    for script in sorted(BENCHMARKS.glob("*.py")):
        done = subprocess.run([sys.executable, "-c", f"import runpy; runpy.run_path({str(script)!r}, "
                               "run_name='not_main')"], capture_output=True, text=True, cwd=BENCHMARKS)
        assert done.returncode == 0, f"{script.name}: {done.stderr[-1500:]}"
