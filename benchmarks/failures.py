"""How long each failure a new user meets takes to report, offline: a missing key, an endpoint that refuses
connections or does not resolve, unknown or unreachable Hub models, an offline upstream build and a build that
would replace another source's config. Each runs the CLI in a fresh interpreter with every network address
pointed at a closed local port or a name that never resolves, must exit 2 with one line naming what matters,
and should take under 10 s. The last line printed is one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIMIT_S = 10.0
NOWHERE = "http://nycc-bench-offline.invalid"  # .invalid never resolves (RFC 2606)


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def attempt(argv: list[str], env: dict[str, str], expect: list[str]) -> dict[str, object]:
    """Run the CLI once; its wall time, exit code, last stderr line and whether that line names `expect`."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "nycc_bench.cli", *argv], capture_output=True, text=True,
                          env=env, timeout=300)
    took = time.perf_counter() - start
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return {"seconds": round(took, 2), "exit": done.returncode, "one_line": last.startswith("nycc-bench "),
            "names_it": all(word in last for word in expect), "message": last[:300]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="CI mode: the same cases (each is already one short process on the sample)")
    parser.parse_args()
    refused = f"http://127.0.0.1:{closed_port()}"
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "NYCC_JUDGE_API_KEY",
                                                               "OPENAI_BASE_URL", "HF_HUB_OFFLINE",
                                                               "NYCC_BENCH_UPSTREAM_DIR")}
    base |= {"PYTHONPATH": str(Path(__file__).resolve().parents[1]), "HF_ENDPOINT": refused,
             "NYCC_GITHUB_API": refused, "NYCC_GITHUB_RAW": refused, "TOKENIZERS_PARALLELISM": "false"}
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        base["HF_HOME"] = str(tmp / "hf")
        dataset = tmp / "nycc"
        subprocess.run([sys.executable, "-m", "nycc_bench.cli", "build", "--source", "sample", "--out", str(dataset),
                        "--configs", "matching", "humorbench", "--quiet"], env=base, check=True, capture_output=True)
        evaluate = ["evaluate", "--tasks", "matching", "--dataset", str(dataset), "--quiet"]
        cases = {
            "openai_no_key": ([*evaluate, "--system", "openai:gpt-4o", "--out", str(tmp / "r1")], {},
                              ["OPENAI_API_KEY"]),
            "openai_refused": ([*evaluate, "--system", "openai:gpt-4o", "--out", str(tmp / "r2")],
                               {"OPENAI_API_KEY": "sk-benchmark-not-a-key", "OPENAI_BASE_URL": f"{refused}/v1"},
                               ["cannot connect to 127.0.0.1"]),
            "openai_unresolvable": ([*evaluate, "--system", "openai:gpt-4o", "--out", str(tmp / "r3")],
                                    {"OPENAI_API_KEY": "sk-benchmark-not-a-key",
                                     "OPENAI_BASE_URL": f"{NOWHERE}/v1"},
                                    ["cannot connect to nycc-bench-offline.invalid"]),
            "sbert_unreachable_hub": ([*evaluate, "--system", "sbert:nope/nope", "--out", str(tmp / "r4")], {},
                                      ["'nope/nope'", "HF_ENDPOINT", "HF_HUB_OFFLINE"]),
            "sbert_unknown_offline": ([*evaluate, "--system", "sbert:nope/nope", "--out", str(tmp / "r5")],
                                      {"HF_HUB_OFFLINE": "1"}, ["'nope/nope'", "HF_HUB_OFFLINE", "HF_ENDPOINT"]),
            "hf_unreachable_hub": ([*evaluate, "--system", "hf:nobody/nothing", "--out", str(tmp / "r6")], {},
                                   ["'nobody/nothing'", "HF_ENDPOINT", "HF_HUB_OFFLINE"]),
            "build_upstream_offline": (["build", "--source", "upstream", "--out", str(tmp / "up"), "--quiet"], {},
                                       ["NYCC_BENCH_UPSTREAM_DIR", "HF_ENDPOINT"]),
            "build_replaces_other_source": (["build", "--source", str(dataset.parent), "--out", str(dataset),
                                             "--configs", "humorbench", "--quiet"], {},
                                            ["humorbench (built from sample)", "--replace", "--source"]),
        }
        (tmp / "comprehensive_annotations.csv").write_bytes(
            (Path(__file__).resolve().parents[1] / "nycc_bench" / "sample_data" / "humorbench_reubennarad"
             / "comprehensive_annotations.csv").read_bytes())
        figures = {}
        for case, (argv, env, expect) in cases.items():
            figures[case] = attempt(argv, base | env, expect)
            f = figures[case]
            print(f"{case:<30}{f['seconds']:>7.2f} s  exit {f['exit']}  {f['message'][:150]}", flush=True)
    ok = all(f["exit"] == 2 and f["one_line"] and f["names_it"] and f["seconds"] < LIMIT_S for f in figures.values())
    print(json.dumps({"limit_s": LIMIT_S, "all_met": ok,
                      **{f"{case}_s": f["seconds"] for case, f in figures.items()},
                      "failed": [c for c, f in figures.items() if not (f["exit"] == 2 and f["one_line"]
                                                                       and f["names_it"] and f["seconds"] < LIMIT_S)]}))


if __name__ == "__main__":
    main()
