"""No silent second: a command on the sample never goes more than `LIMIT_S` without output (a line or a bar's
redraw) from its start to its last line, on a terminal as a user runs it. Silence is measured from the timestamps
at which output arrives, read as it comes; the interpreter's own teardown after the last line is not the
command's. Every long step (loading the libraries, the preflight, each task's run and scoring, writing the record)
shows its name at once and its elapsed time while it works (`progress.working`)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT_S = 5.0


def silences(argv: list[str], cwd: Path) -> tuple[int, list[tuple[float, float, bytes]], bytes]:
    """Run the CLI on a terminal (a pseudo-terminal, as a user sees it); (exit status, [(gap seconds, at, output
    that ended it)] largest first, all output)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    env.pop("TQDM_DISABLE", None)
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # 40 rows of 120 columns
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "nycc_bench.cli", *argv], stdin=subprocess.DEVNULL,
                            stdout=child, stderr=child, cwd=cwd, env=env)
    os.close(child)
    events: list[tuple[float, bytes]] = []
    while True:
        select.select([main], [], [])  # wakes on output (or the terminal's end): each arrival is timestamped
        try:
            data = os.read(main, 1 << 16)
        except OSError:  # the child's side is closed: it has exited
            break
        if not data:
            break
        events.append((time.monotonic() - start, data))
    os.close(main)
    proc.wait()
    times = [0.0, *(t for t, _ in events)]
    gaps = sorted(((b - a, a, d[-120:]) for a, (b, d) in zip(times[:-1], events, strict=True)), reverse=True)
    return proc.returncode, gaps, b"".join(d for _, d in events)


def test_evaluate_is_never_silent(sample_dataset: str, tmp_path: Path) -> None:
    status, gaps, output = silences(["evaluate", "--system", "random", "--tasks", "caption_generation,matching",
                                     "--folds", "0", "--dataset", sample_dataset, "--out", str(tmp_path / "run")],
                                    tmp_path)
    assert status == 0, output.decode(errors="replace")[-2000:]
    assert b"evaluate: loading the libraries" in output and b"caption_generation: scoring" in output
    assert gaps[0][0] <= LIMIT_S, [(round(g, 1), round(at, 1), text) for g, at, text in gaps[:5]]
