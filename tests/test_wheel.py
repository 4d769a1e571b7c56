"""The package stands alone: a wheel built from this repository, installed in a fresh virtualenv (that reuses the
already-installed dependencies), runs `nycc_bench.evaluate` on the embedded sample and `evaluate.load` of every
metric from another folder — no checkout, no network."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import json, sys, pathlib, evaluate, datasets
datasets.disable_progress_bars()
import nycc_bench
from nycc_bench import evaluate as run, list_tasks
from nycc_bench.metrics import METRIC_NAMES, module_path
from nycc_bench.builders import build_dataset
from nycc_bench.paths import SAMPLE_DIR
out = pathlib.Path(sys.argv[1])
build_dataset(SAMPLE_DIR, out / "dataset", progress=False)
result = run("random", ["matching", "ranking", "caption_generation"], dataset=str(out / "dataset"),
             out=out / "run", progress=False)
loaded = {name: type(evaluate.load(str(module_path(name)))).__name__ for name in METRIC_NAMES}
print(json.dumps({"package": nycc_bench.__file__, "tasks": len(list_tasks()), "loaded": loaded,
                  "matching": result.scores["matching"]["accuracy"]["value"]}))
"""


@pytest.mark.slow
def test_a_wheel_runs_evaluate_and_loads_every_metric_outside_the_checkout(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheels)], check=True, timeout=600)
    (wheel,) = wheels.glob("nycc_bench-*.whl")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # the dependencies already installed here, as a plain path entry: their .pth files (our editable install's
    # among them) are not processed, so nycc_bench can only come from the wheel
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True, timeout=600)
    work = tmp_path / "elsewhere"
    work.mkdir()
    done = subprocess.run([str(python), "-c", SCRIPT, str(work)], cwd=work, capture_output=True, text=True,
                          timeout=900, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HF_HUB_OFFLINE": "1",
                                            "HF_DATASETS_CACHE": str(tmp_path / "hf"), "PYTHONNOUSERSITE": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(report["package"]).is_relative_to(env_dir), report["package"]  # the wheel, not the checkout
    assert report["tasks"] >= 9 and report["matching"] == 0.25
    assert set(report["loaded"]) == {"nycc_accuracy", "crowd_ny_accuracy", "explanation_overlap", "ead_diversity",
                                     "group_win_rate", "element_autograder"}
