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

import pytest
from live_leaderboard import free_port

ROOT = Path(__file__).resolve().parents[1]
LIMIT_S = 5.0


def silences(argv: list[str], cwd: Path, until: bytes | None = None) -> tuple[int, list[tuple[float, float, bytes]],
                                                                           bytes]:
    """Run the CLI on a terminal (a pseudo-terminal, as a user sees it); (exit status, [(gap seconds, at, output
    that ended it)] largest first, all output). A server is stopped once its output holds `until` (it is ready)."""
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
        if until is not None and until in b"".join(d for _, d in events):
            proc.terminate()  # ready: the start-up is what is measured
            break
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


def assert_never_silent(gaps: list[tuple[float, float, bytes]], output: bytes, *lines: bytes) -> None:
    """Each slow step's line was shown, and no gap between two outputs was longer than LIMIT_S."""
    for line in lines:
        assert line in output, (line, output.decode(errors="replace")[-2000:])
    assert gaps[0][0] <= LIMIT_S, [(round(g, 1), round(at, 1), text) for g, at, text in gaps[:5]]


def test_tasks_check_is_never_silent(tmp_path: Path) -> None:
    status, gaps, output = silences(["tasks", "check", "matching"], tmp_path)
    assert status == 0, output.decode(errors="replace")[-2000:]
    assert_never_silent(gaps, output, b"tasks check: loading the task files", b"tasks check: the sample dataset",
                        b"tasks check: matching (its file, then a random run)", b"ok   matching")


def test_score_and_show_are_never_silent(judged_random_run, sample_dataset: str, tmp_path: Path) -> None:
    run = Path(judged_random_run.path).parent
    predictions = run / "predictions" / "matching.jsonl"
    status, gaps, output = silences(["score", "--task", "matching", "--predictions", str(predictions), "--fold", "0",
                                     "--dataset", sample_dataset], tmp_path)
    assert status == 0, output.decode(errors="replace")[-2000:]
    assert_never_silent(gaps, output, b"score: loading the libraries", b"score: preflight", b"score: scoring matching",
                        b"Matching")
    import json

    instance = json.loads(predictions.read_text(encoding="utf-8").splitlines()[0])["instance_id"]
    status, gaps, output = silences(["show", str(run), "matching", instance], tmp_path)
    assert status == 0, output.decode(errors="replace")[-2000:]
    assert_never_silent(gaps, output, f"show: matching {instance}".encode(), b"verdict")


def test_publish_dry_run_is_never_silent(sample_dataset: str, tmp_path: Path) -> None:
    status, gaps, output = silences(["publish", "--dry-run", "--out", str(tmp_path / "staged"), "--dataset-dir",
                                     sample_dataset, "--allow-sample"], tmp_path)
    assert status == 0, output.decode(errors="replace")[-2000:]
    assert_never_silent(gaps, output, b"publish: loading the libraries", b"staging the dataset ...",
                        b"staging the metric Spaces ...", b"staging the leaderboard Space ...",
                        b"staging the model cards ...", b"scanning what is staged for secrets ...", b"nothing pushed")


@pytest.mark.slow
def test_view_and_the_leaderboard_start_up_are_never_silent(judged_random_run, sample_dataset: str,
                                                          tmp_path: Path) -> None:
    """Servers: from the command to the line saying where they listen (then stopped)."""
    run = Path(judged_random_run.path).parent
    _, gaps, output = silences(["view", str(run), "--port", "0"], tmp_path, until=b"(Ctrl-C stops)")
    assert_never_silent(gaps, output, b"view: loading the libraries", b"view: reading 1 run folder")
    _, gaps, output = silences(["leaderboard", "--data-dir", str(tmp_path / "board"), "--dataset",
                                     sample_dataset, "--port", str(free_port())], tmp_path, until=b"http://")
    assert_never_silent(gaps, output, b"leaderboard: loading the libraries", b"leaderboard: building the app")
