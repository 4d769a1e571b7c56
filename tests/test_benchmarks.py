"""Every benchmark this issue measures with runs in its quick mode and ends with one JSON object whose figures are
there (the sizes are small: that the script works is what CI checks; benchmarks/results holds the real runs)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
CHROMIUM = Path("/usr/bin/chromium")
# Every other benchmark script's quick mode and a figure its last line must hold (the four above have their own
# tests); process.py is the whole-process helper the others use, not a benchmark.
QUICK = {
    "arena.py": "gold_rule", "diversity.py": "sbert_captions_per_s", "failures.py": "all_met",
    "judge_throughput.py": "all_pass", "leaderboard.py": "cells", "prompt_log_size.py": "within_budget",
    "quickstart.py": "readme_30_seconds_s", "reward_judge.py": "grader_accuracy", "runner.py": "letters_agree",
    "search_bound.py": "speedup",
}
GPU = {"gpu.py": "gpu", "evaluate_gpu.py": "model", "worker_gpu.py": "status"}
BROWSER = {"leaderboard_render.py": "runs"}
OWN_TESTS = {"startup.py", "score.py", "novelty.py", "build.py", "process.py"}


def _has_cuda() -> bool:
    """Whether torch sees a CUDA device here (torch imported in a child: this process stays light)."""
    done = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                          capture_output=True, text=True)
    return done.stdout.strip() == "True"


def _last_json(script: str, *args: str, cwd: Path = BENCHMARKS, **env: str) -> dict:
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, "HF_HUB_OFFLINE": "1", **env})
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
    """From a built dataset, first time and again, beside the old way (here: this checkout's HEAD, from git), run
    from the checkout's root as the README does."""
    whole = _last_json("novelty.py", "--quick", "--baseline-ref", "HEAD", cwd=BENCHMARKS.parent)["whole_process"]
    assert whole["n"] == 20000 and whole["novelty_cold"]["cpu_s"] > whole["novelty_warm"]["cpu_s"] > 0
    if (BENCHMARKS.parent / ".git").exists():  # a git checkout: the baseline ran and built the same index
        baseline = whole["baseline_cold"]
        assert baseline["ref"] == "HEAD" and baseline["same_index_files"] and baseline["same_report"]
        assert baseline["package_from_ref"]  # the ref's code ran, not this checkout's (its root is the cwd)


@pytest.mark.slow
def test_build_quick() -> None:
    out = _last_json("build.py", "--quick")
    assert out["synthetic_captions"] == 20000 and out["same_bytes"] is True
    whole = out["whole_process"]
    assert whole["build"]["cpu_s"] > whole["floor"]["cpu_s"] > 0 and whole["same_bytes"] is True
    assert "datasets" not in whole["heavy_imports"] and "huggingface_hub" not in whole["heavy_imports"]


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


def test_every_benchmark_has_a_quick_mode_and_a_test() -> None:
    """A new script gets a quick mode and a place in this file, or this fails."""
    scripts = {p.name for p in BENCHMARKS.glob("*.py")}
    assert scripts == set(QUICK) | set(GPU) | set(BROWSER) | OWN_TESTS, scripts ^ (set(QUICK) | set(GPU) | set(BROWSER)
                                                                                   | OWN_TESTS)
    for name in scripts - {"process.py"}:
        assert '"--quick"' in (BENCHMARKS / name).read_text(encoding="utf-8"), name


@pytest.mark.slow
@pytest.mark.parametrize(("script", "figure"), sorted(QUICK.items()))
def test_quick_mode(script: str, figure: str) -> None:
    """The script's quick mode runs (CPU, offline, the embedded sample) and its last line holds its figure."""
    assert figure in _last_json(script, "--quick")


@pytest.mark.slow
@pytest.mark.parametrize(("script", "figure"), sorted(GPU.items()))
def test_gpu_quick_mode(script: str, figure: str) -> None:
    """The GPU benchmarks' quick mode (a 2-layer model: on the GPU when there is one, else CPU) runs through."""
    assert figure in _last_json(script, "--quick")


@pytest.mark.slow
def test_gpu_quick_mode_on_the_device() -> None:
    """On a machine with a GPU, the quick mode measures that device (its name is in the figures)."""
    if not _has_cuda():
        pytest.skip("no CUDA device here: the GPU benchmarks' quick mode ran on CPU (test_gpu_quick_mode)")
    assert _last_json("gpu.py", "--quick")["gpu"]


@pytest.mark.slow
def test_browser_quick_mode() -> None:
    """The leaderboard page in headless Chromium, 5 runs, once."""
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("playwright is not installed (the leaderboard extra's test dependency)")
    assert "runs" in _last_json("leaderboard_render.py", "--quick")


@pytest.mark.slow
def test_demo_versus_a_git_ref() -> None:
    """Fresh demos of this checkout and of a git ref (here HEAD) in turn, each whole, with their medians and ratio
    (the "demo in half" figure is this run against the ref the issue was filed at)."""
    if not (BENCHMARKS.parent / ".git").exists():
        pytest.skip("not a git checkout: no ref to compare with")
    out = _last_json("quickstart.py", "--demo-versus", "HEAD", "--rounds", "1", cwd=BENCHMARKS.parent)
    assert out["ref"] == "HEAD" and out["rounds"] == 1 and out["demo_this_s"] > 0 and out["demo_ref_s"] > 0
    assert out["wall_ratio"] == round(out["demo_this_s"] / out["demo_ref_s"], 3) and out["cpu_ratio"] > 0
