"""How long `nycc-bench --help` and `nycc-bench tasks` take (the issue's target: under 0.3 s), against
importing the heavy libraries the CLI avoids at start-up. The last line printed is one JSON object."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

RUNS = 7


def seconds(argv: list[str]) -> float:
    """The median wall time of a fresh interpreter running argv."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run([sys.executable, *argv], capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    cli = ["-m", "nycc_bench.cli"]
    figures = {
        "help_s": seconds([*cli, "--help"]),
        "tasks_s": seconds([*cli, "tasks"]),
        "python_s": seconds(["-c", "pass"]),
        "naive_import_datasets_evaluate_s": seconds(["-c", "import datasets, evaluate"]),
    }
    figures = {k: round(v, 3) for k, v in figures.items()}
    for key, value in figures.items():
        print(f"{key:<36}{value:>8.3f} s")
    print(json.dumps({**figures, "target_s": 0.3, "met": figures["help_s"] < 0.3 and figures["tasks_s"] < 0.3}))


if __name__ == "__main__":
    main()
