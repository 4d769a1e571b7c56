"""Judge engine throughput: 500 autograder calls to a local server answering after 100 ms, concurrent vs serial.

The server (``tests/fake_openai.py``) runs in its own process, like a real endpoint; each run uses a
fresh cache folder so every call goes over HTTP. Ideal concurrent time = 500 × 0.1 s / 32 ≈ 1.56 s; target:
within 1.5× of it. Last line: one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openai  # noqa: F401  (imported before timing: the one-off import is not throughput)

from nycc_bench.judge import grade_elements
from nycc_bench.llm import LLMConfig

FAKE_SERVER = Path(__file__).resolve().parents[1] / "tests" / "fake_openai.py"
N_CALLS = 500
DELAY_S = 0.1
CONCURRENCY = 32
REPLY = "<reasoning>The answer names the pun.</reasoning>\n<judgement>PASS</judgement>"


def timed_run(base_url: str, concurrency: int) -> tuple[float, int]:
    """Wall time of N_CALLS autograder calls at this concurrency, and the number of PASS verdicts."""
    with tempfile.TemporaryDirectory() as cache_dir:
        config = LLMConfig(
            model="fake-judge", base_url=base_url, cache_dir=cache_dir, max_concurrency=concurrency, progress=False
        )
        captions = [f"Caption number {i}." for i in range(N_CALLS)]
        start = time.perf_counter()
        records = grade_elements(
            ["A cartoon."] * N_CALLS, captions, ["The element."] * N_CALLS, ["An explanation."] * N_CALLS, config
        )
        wall = time.perf_counter() - start
    return wall, sum(r["verdict"] == "PASS" for r in records)


def main() -> None:
    global N_CALLS
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help=f"CI size: 40 calls (default {N_CALLS})")
    if parser.parse_args().quick:
        N_CALLS = 40
    server = subprocess.Popen(
        [sys.executable, str(FAKE_SERVER), "--delay", str(DELAY_S), "--text", REPLY],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = server.stdout.readline().strip()
        concurrent_s, concurrent_pass = timed_run(base_url, CONCURRENCY)
        print(f"engine, concurrency {CONCURRENCY}: {concurrent_s:.2f} s ({concurrent_pass}/{N_CALLS} PASS)")
        serial_s, serial_pass = timed_run(base_url, 1)
        print(f"one at a time: {serial_s:.2f} s ({serial_pass}/{N_CALLS} PASS)")
    finally:
        server.terminate()
        server.wait()
    ideal_s = N_CALLS * DELAY_S / CONCURRENCY
    figures = {
        "benchmark": "judge_throughput",
        "n_calls": N_CALLS,
        "server_delay_s": DELAY_S,
        "concurrency": CONCURRENCY,
        "concurrent_s": round(concurrent_s, 3),
        "serial_s": round(serial_s, 3),
        "speedup": round(serial_s / concurrent_s, 2),
        "ideal_concurrent_s": round(ideal_s, 3),
        "ratio_to_ideal": round(concurrent_s / ideal_s, 3),
        "target_ratio_to_ideal": 1.5,
        "meets_target": concurrent_s / ideal_s <= 1.5,
        "all_pass": concurrent_pass == serial_pass == N_CALLS,
    }
    print(f"speedup {figures['speedup']}x; {figures['ratio_to_ideal']}x the ideal {ideal_s:.2f} s")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
