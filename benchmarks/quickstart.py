"""How long a new user's first steps take: the README's "30 seconds" section run as written in a fresh folder
(each block's wall time), and `nycc-bench demo` when `--demo` is given. The last line printed is one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import re
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


def timed(argv: list[str] | str, cwd: Path, env: dict[str, str]) -> float:
    began = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, shell=isinstance(argv, str), check=True, capture_output=True)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--demo", action="store_true", help="also time `nycc-bench demo`")
    parser.add_argument("--quick", action="store_true",
                        help="CI mode: the README section alone (already seconds on the sample), no demo")
    args = parser.parse_args()
    bin_dir = Path(sys.executable).parent
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="nycc-quickstart-") as tmp:
        env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "HF_HUB_OFFLINE": "1",
               "NYCC_BENCH_CACHE": os.environ.get("NYCC_BENCH_CACHE", str(Path.home() / ".cache" / "nycc_bench"))}
        total = 0.0
        for k, (language, code) in enumerate(section("30 seconds")):
            if language == "python":
                spent = timed([sys.executable, "-c", code], Path(tmp), env)
            else:
                spent = sum(timed(line.strip(), Path(tmp), env) for line in code.splitlines()
                            if line.strip() and not line.strip().startswith("#"))
            figures[f"block_{k}_{language}_s"] = round(spent, 1)
            total += spent
            print(f"block {k} ({language}): {spent:.1f} s", flush=True)
        figures["readme_30_seconds_s"] = round(total, 1)
        print(f"README '30 seconds' section: {total:.1f} s", flush=True)
        if args.demo and not args.quick:
            figures["demo_s"] = round(timed([str(bin_dir / "nycc-bench"), "demo", "--out", str(Path(tmp) / "demo")],
                                            Path(tmp), env), 1)
            print(f"nycc-bench demo: {figures['demo_s']:.1f} s", flush=True)
    figures["cpus"] = os.cpu_count() or 0
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
