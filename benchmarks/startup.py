"""What a user waits for at start-up, as whole fresh processes in one run (CPU seconds, user + system; peak memory),
each beside `python -c pass` measured in the same run: `nycc-bench --help` and `nycc-bench tasks` (target: --help
under 0.15 CPU s), and `nycc-bench evaluate --system random --tasks all` on the embedded sample built into a
temporary folder (target: under 2 CPU s with neither torch nor datasets imported; no judge, so the judged scores
are left out as the command says), with `python -c "import torch"` beside it for scale.

The evaluate run is measured twice over, in a fresh cache folder (`NYCC_BENCH_CACHE`, its `models/` linked to the
user's, so the mpnet encoder is not unpacked again): `evaluate_cold` is the first run there, which encodes the
random captions once for SBERT diversity (the encoder and torch load) and builds the sample's novelty index;
`evaluate` (the median of `--repeat` later runs) reads both back, as every run after the first does. Each line
names what the process imported. `--quick`: one repeat of each. The last line printed is one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

from process import measure

PROBE = """
import json, sys
from nycc_bench.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
print(json.dumps({"torch": "torch" in sys.modules, "datasets": "datasets" in sys.modules,
                  "pandas": "pandas" in sys.modules, "sentence_transformers": "sentence_transformers" in sys.modules,
                  "exit": code}))
"""
"""`nycc-bench ARGS` as the console script runs it, then which heavy libraries the process imported."""


def summary(runs: list[dict], last: str) -> dict:
    """The median CPU and wall seconds and the highest peak of several runs, with the last run's `last` field."""
    return {"cpu_s": statistics.median(r["cpu_s"] for r in runs),
            "wall_s": statistics.median(r["wall_s"] for r in runs),
            "peak_mb": max(r["peak_mb"] for r in runs), last: runs[-1][last]}


def median_of(argv: list[str], repeat: int, env: dict[str, str] | None = None) -> dict:
    """`repeat` fresh processes of `python argv...` summarised, with the last one's output."""
    return summary([measure(argv, env) for _ in range(repeat)], "stdout")


def cli(args: list[str], repeat: int, env: dict[str, str] | None = None) -> dict:
    """`nycc-bench ARGS` measured, with the imports it made."""
    found = median_of(["-c", PROBE, *args], repeat, env)
    found["imported"] = json.loads(found.pop("stdout").strip().splitlines()[-1])
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="one repeat of each (CI's check that the script works)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat
    from nycc_bench.builders import build_dataset
    from nycc_bench.paths import SAMPLE_DIR

    figures: dict[str, dict] = {"python_pass": median_of(["-c", "pass"], repeat)}
    figures["python_pass"].pop("stdout")
    figures["help"] = cli(["--help"], repeat)
    figures["tasks"] = cli(["tasks"], repeat)
    with tempfile.TemporaryDirectory() as tmp:
        dataset = Path(tmp) / "dataset"
        build_dataset(SAMPLE_DIR, dataset, progress=False)
        cache = Path(tmp) / "cache"  # cold: no embeddings, no novelty index; the user's unpacked models linked
        cache.mkdir()
        models = Path(os.environ.get("NYCC_BENCH_CACHE") or Path.home() / ".cache" / "nycc_bench") / "models"
        if models.is_dir():
            (cache / "models").symlink_to(models)
        env = {"NYCC_BENCH_CACHE": str(cache)}
        runs = iter(range(1000))

        def evaluate() -> list[str]:
            return ["evaluate", "--system", "random", "--tasks", "all", "--dataset", str(dataset), "--out",
                    str(Path(tmp) / f"run{next(runs)}"), "--quiet"]

        figures["evaluate_cold"] = cli(evaluate(), 1, env)
        figures["evaluate"] = median_of_cli(evaluate, repeat, env)
    figures["python_import_torch"] = median_of(["-c", "import torch"], repeat)
    figures["python_import_torch"].pop("stdout")
    for name, f in figures.items():
        print(f"{name:<22}{f['cpu_s']:>8.3f} CPU s {f['wall_s']:>8.3f} wall s {f['peak_mb']:>8.1f} MB peak"
              + (f"  imported {f['imported']}" if "imported" in f else ""), flush=True)
    help_cpu, run_cpu = figures["help"]["cpu_s"], figures["evaluate"]["cpu_s"]
    imported = figures["evaluate"]["imported"]
    print(json.dumps({**figures, "help_target_cpu_s": 0.15, "help_met": help_cpu < 0.15,
                      "evaluate_target_cpu_s": 2.0,
                      "evaluate_met": run_cpu < 2.0 and not imported["torch"] and not imported["datasets"],
                      "evaluate_torch_imported": imported["torch"], "evaluate_datasets_imported": imported["datasets"],
                      "help_minus_python_cpu_s": round(help_cpu - figures["python_pass"]["cpu_s"], 3),
                      "evaluate_minus_python_cpu_s": round(run_cpu - figures["python_pass"]["cpu_s"], 3),
                      "load_average": round(os.getloadavg()[0], 2), "cpu_count": os.cpu_count()}))


def median_of_cli(argv: object, repeat: int, env: dict[str, str] | None) -> dict:
    """`cli` with a fresh argv each time (a new --out folder per run)."""
    return summary([cli(argv(), 1, env) for _ in range(repeat)], "imported")  # type: ignore[operator]


if __name__ == "__main__":
    main()
