"""How long `nycc-bench --help` and `nycc-bench tasks` take (the issue's target: under 0.3 s), against
importing the heavy libraries the CLI avoids at start-up; and the CPU seconds of a whole small run,
`nycc-bench evaluate --system random --tasks matching --limit 4` (target: under 2 s), against
`python -c "import torch"` in the same run (scoring imports no torch). The last line printed is one JSON object."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 7
CPU_RUNS = 3


def seconds(argv: list[str]) -> float:
    """The median wall time of a fresh interpreter running argv."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run([sys.executable, *argv], capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cpu_once(argv: list[str]) -> float:
    """The CPU time (user + system) of a fresh interpreter running argv, offline."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, *argv], capture_output=True, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def small_run_figures() -> dict[str, float]:
    """Median CPU seconds of a random run on 4 matching items (a fresh --out each time) and of `import torch`."""
    from nycc_bench.builders import build_dataset
    from nycc_bench.paths import SAMPLE_DIR

    with tempfile.TemporaryDirectory() as tmp:
        dataset = Path(tmp) / "dataset"
        build_dataset(SAMPLE_DIR, dataset, progress=False)
        argv = ["-m", "nycc_bench.cli", "evaluate", "--system", "random", "--tasks", "matching", "--limit", "4",
                "--dataset", str(dataset)]
        run = [cpu_once([*argv, "--out", str(Path(tmp) / f"run{i}")]) for i in range(CPU_RUNS)]
    return {"random_matching_limit4_cpu_s": statistics.median(run),
            "naive_import_torch_cpu_s": statistics.median(cpu_once(["-c", "import torch"]) for _ in range(CPU_RUNS))}


def main() -> None:
    cli = ["-m", "nycc_bench.cli"]
    figures = {
        "help_s": seconds([*cli, "--help"]),
        "tasks_s": seconds([*cli, "tasks"]),
        "python_s": seconds(["-c", "pass"]),
        "naive_import_datasets_evaluate_s": seconds(["-c", "import datasets, evaluate"]),
    }
    figures |= small_run_figures()
    figures = {k: round(v, 3) for k, v in figures.items()}
    for key, value in figures.items():
        print(f"{key:<36}{value:>8.3f} s")
    run_s, torch_s = figures["random_matching_limit4_cpu_s"], figures["naive_import_torch_cpu_s"]
    print(json.dumps({**figures, "target_s": 0.3, "met": figures["help_s"] < 0.3 and figures["tasks_s"] < 0.3,
                      "run_target_cpu_s": 2.0, "run_met": run_s < 2.0,
                      "run_vs_import_torch": round(run_s / torch_s, 3)}))


if __name__ == "__main__":
    main()
