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


def _last_json(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, cwd=BENCHMARKS,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_startup_quick() -> None:
    out = _last_json("startup.py", "--quick")
    assert out["help"]["imported"] == {"torch": False, "datasets": False, "pandas": False, "exit": 0}
    assert out["evaluate"]["imported"]["torch"] is False and out["evaluate"]["imported"]["exit"] == 0
    assert out["python_pass"]["cpu_s"] > 0 and out["evaluate"]["peak_mb"] > out["python_pass"]["peak_mb"]


@pytest.mark.slow
def test_score_quick() -> None:
    (row,) = _last_json("score.py", "--quick")["rows"]
    assert row["lines"] == 2000 and row["same_score"] is True and row["new"]["accuracy"] == row["previous"]["accuracy"]
    assert row["floor"]["peak_mb"] < row["new"]["peak_mb"]  # each process's own peak, not the benchmark's


@pytest.mark.slow
def test_novelty_quick() -> None:
    """From a built dataset, first time and again, beside the old way (here: this checkout's HEAD, from git)."""
    whole = _last_json("novelty.py", "--quick", "--baseline-ref", "HEAD")["whole_process"]
    assert whole["n"] == 20000 and whole["novelty_cold"]["cpu_s"] > whole["novelty_warm"]["cpu_s"] > 0
    if (BENCHMARKS.parent / ".git").exists():  # a git checkout: the baseline ran and built the same index
        baseline = whole["baseline_cold"]
        assert baseline["ref"] == "HEAD" and baseline["same_index_files"] and baseline["same_report"]


@pytest.mark.slow
def test_build_quick() -> None:
    out = _last_json("build.py", "--quick")
    assert out["synthetic_captions"] == 20000 and out["same_bytes"] is True
    assert out["whole_process"]["build"]["cpu_s"] > out["whole_process"]["floor"]["cpu_s"] > 0


@pytest.mark.slow
def test_every_benchmark_script_imports() -> None:
    """Every script's imports resolve (leaderboard_render.py imported a name that had moved)."""
    for script in sorted(BENCHMARKS.glob("*.py")):
        done = subprocess.run([sys.executable, "-c", f"import runpy; runpy.run_path({str(script)!r}, "
                               "run_name='not_main')"], capture_output=True, text=True, cwd=BENCHMARKS)
        assert done.returncode == 0, f"{script.name}: {done.stderr[-1500:]}"
