"""How long a new user's first steps take: the README's "30 seconds" section run as written in a fresh folder
(each block's wall time and the CPU time of its processes: on a shared machine the wall time is mostly waiting
for a core, the CPU time is the work), and `nycc-bench demo` when `--demo` is given. `--cold` runs it with an
empty cache (the paper's SBERT model as `make install` unpacked it, nothing else: no embeddings, no sample
judges), as the README's test does; by default it uses the cache as it is. `--demo-versus REF` times only fresh
demos of this checkout and of git REF in turn (the "demo in half" figure). The last line printed is one JSON
object."""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```(bash|python)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def section(title: str) -> list[tuple[str, str]]:
    """(language, code) of the runnable blocks under `## title`."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return BLOCK.findall(text[start:end if end > 0 else None])


def timed(argv: list[str] | str, cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children) of one command."""
    began, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, env=env, shell=isinstance(argv, str), check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - began, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _checkout(ref: str, into: Path) -> Path:
    """The repository as it was at git `ref` (package, metrics, spaces: what the demo reads), extracted under `into`."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True)
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def demo_versus(ref: str, rounds: int, tmp: Path) -> dict[str, float | str]:
    """Fresh `nycc-bench demo`s of this checkout and of git `ref`, in turn for `rounds` rounds (the machine's drift
    falls on both), each in a fresh process with an empty cache but the unpacked models (as `make install` leaves
    them); the median wall and CPU seconds of each and their ratio."""
    from statistics import median

    from nycc_bench.paths import cache_dir

    roots = {"this": ROOT, ref: _checkout(ref, tmp / "ref")}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in roots}
    for k in range(rounds):
        for name, root in roots.items():
            cache = tmp / f"cache-{name}-{k}"
            cache.mkdir()
            if (cache_dir("models") / "all-mpnet-base-v2").is_dir():
                (cache / "models").symlink_to(cache_dir("models"))
            # PYTHONSAFEPATH: the package comes from PYTHONPATH, never from the working directory
            env = {**os.environ, "PYTHONPATH": str(root), "PYTHONSAFEPATH": "1", "HF_HUB_OFFLINE": "1",
                   "NYCC_BENCH_CACHE": str(cache), "HF_DATASETS_CACHE": str(cache / "hf")}
            spent, cpu = timed([sys.executable, "-m", "nycc_bench.cli", "demo", "--out", str(cache / "demo"),
                                "--quiet"], tmp, env)
            times[name].append((spent, cpu))
            print(f"round {k + 1}: {name:<10} demo {spent:.2f} s ({cpu:.2f} CPU s)", flush=True)
    figures: dict[str, float | str] = {"ref": ref, "rounds": rounds}
    for name, runs in times.items():
        key = "this" if name == "this" else "ref"
        figures[f"demo_{key}_s"] = round(median(w for w, _ in runs), 2)
        figures[f"demo_{key}_cpu_s"] = round(median(c for _, c in runs), 2)
    figures["wall_ratio"] = round(float(figures["demo_this_s"]) / float(figures["demo_ref_s"]), 3)
    figures["cpu_ratio"] = round(float(figures["demo_this_cpu_s"]) / float(figures["demo_ref_cpu_s"]), 3)
    print(f"median: this {figures['demo_this_s']} s ({figures['demo_this_cpu_s']} CPU s), {ref} "
          f"{figures['demo_ref_s']} s ({figures['demo_ref_cpu_s']} CPU s): {figures['wall_ratio']}x the wall, "
          f"{figures['cpu_ratio']}x the CPU", flush=True)
    return figures


def main() -> None:
    from nycc_bench.paths import cache_dir

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--demo", action="store_true", help="also time `nycc-bench demo`")
    parser.add_argument("--cold", action="store_true", help="an empty cache (the paper's unpacked models linked in)")
    parser.add_argument("--quick", action="store_true",
                        help="CI mode: the README section alone (already seconds on the sample), no demo")
    parser.add_argument("--demo-versus", metavar="GIT_REF", default=None,
                        help="only fresh demos of this checkout and of GIT_REF in turn (their medians and ratio)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of --demo-versus (default 3)")
    args = parser.parse_args()
    if args.demo_versus:
        with tempfile.TemporaryDirectory(prefix="nycc-demo-versus-") as tmp:
            figures = demo_versus(args.demo_versus, args.rounds, Path(tmp))
        figures["cpus"], figures["load_1min"] = os.cpu_count() or 0, round(os.getloadavg()[0], 1)
        print(json.dumps(figures))
        return
    bin_dir = Path(sys.executable).parent
    figures: dict[str, float | str] = {"cache": "cold" if args.cold else "as it is"}
    with tempfile.TemporaryDirectory(prefix="nycc-quickstart-") as tmp:
        cache = os.environ.get("NYCC_BENCH_CACHE", str(cache_dir("x").parent))
        if args.cold:
            cache = str(Path(tmp) / "cache")
            Path(cache).mkdir()
            if (cache_dir("models") / "all-mpnet-base-v2").is_dir():
                (Path(cache) / "models").symlink_to(cache_dir("models"))
        env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "HF_HUB_OFFLINE": "1",
               "NYCC_BENCH_CACHE": cache, "HF_DATASETS_CACHE": str(Path(tmp) / "hf")}
        total, total_cpu = 0.0, 0.0
        work = Path(tmp) / "work"
        work.mkdir()
        for k, (language, code) in enumerate(section("30 seconds")):
            if language == "python":
                spent, cpu = timed([sys.executable, "-c", code], work, env)
            else:
                each = [timed(line.strip(), work, env) for line in code.splitlines()
                        if line.strip() and not line.strip().startswith("#")]
                spent, cpu = sum(w for w, _ in each), sum(c for _, c in each)
            figures[f"block_{k}_{language}_s"] = round(spent, 1)
            figures[f"block_{k}_{language}_cpu_s"] = round(cpu, 1)
            total, total_cpu = total + spent, total_cpu + cpu
            print(f"block {k} ({language}): {spent:.1f} s, {cpu:.1f} CPU s", flush=True)
        figures["readme_30_seconds_s"] = round(total, 1)
        figures["readme_30_seconds_cpu_s"] = round(total_cpu, 1)
        print(f"README '30 seconds' section: {total:.1f} s ({total_cpu:.1f} CPU s)", flush=True)
        if args.demo and not args.quick:
            spent, cpu = timed([str(bin_dir / "nycc-bench"), "demo", "--out", str(Path(tmp) / "demo")], work, env)
            figures["demo_s"], figures["demo_cpu_s"] = round(spent, 1), round(cpu, 1)
            print(f"nycc-bench demo: {spent:.1f} s ({cpu:.1f} CPU s)", flush=True)
    figures["cpus"] = os.cpu_count() or 0
    figures["load_1min"] = round(os.getloadavg()[0], 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
