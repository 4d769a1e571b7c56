"""How long a new user's first steps take: the README's "30 seconds" section run as written in a fresh folder
(each block's wall time and the CPU time of its processes: on a shared machine the wall time is mostly waiting
for a core, the CPU time is the work), and `nycc-bench demo` when `--demo` is given. `--cold` runs it with an
empty cache (the paper's SBERT model as `make install` unpacked it, nothing else: no embeddings, no sample
judges), as the README's test does; by default it uses the cache as it is. The last line printed is one JSON
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


def main() -> None:
    from nycc_bench.paths import cache_dir

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--demo", action="store_true", help="also time `nycc-bench demo`")
    parser.add_argument("--cold", action="store_true", help="an empty cache (the paper's unpacked models linked in)")
    parser.add_argument("--quick", action="store_true",
                        help="CI mode: the README section alone (already seconds on the sample), no demo")
    args = parser.parse_args()
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
