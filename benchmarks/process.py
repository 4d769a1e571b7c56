"""One fresh process measured whole, as a user waits for it: its CPU seconds (user + system) and peak resident
memory, read with `os.wait4` for that child alone; the benchmarks run their baselines the same way in the same run.

The child is started by a small launcher process (this file run as a script), not by the benchmark itself: a
forked child's peak memory counts the parent's pages it held before `exec`, so a child of a benchmark that has
imported datasets would start at that benchmark's size."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time


def measure(argv: list[str], env: dict[str, str] | None = None) -> dict:
    """Run `python argv...` and return {"cpu_s", "wall_s", "peak_mb", "stdout"}; raise if it fails."""
    done = subprocess.run([sys.executable, __file__, json.dumps(argv)], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})})
    if done.returncode:
        raise RuntimeError(f"{argv[:4]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main() -> None:
    """`python process.py '["-c", "pass"]'`: one JSON line with the child's figures."""
    argv = json.loads(sys.argv[1])
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    errors: list[bytes] = []  # read beside stdout, so a child writing much to both never blocks on a full pipe
    reader = threading.Thread(target=lambda: errors.append(child.stderr.read()))
    reader.start()
    out = child.stdout.read()
    reader.join()
    err = errors[0]
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if child.returncode:
        sys.stderr.write(err.decode(errors="replace"))
        sys.exit(child.returncode)
    print(json.dumps({"cpu_s": round(usage.ru_utime + usage.ru_stime, 3), "wall_s": round(wall, 3),
                      "peak_mb": round(usage.ru_maxrss / 1024, 1), "stdout": out.decode(errors="replace")}))


if __name__ == "__main__":
    main()
