"""The README is a contract: every ```bash and ```python block runs as written, in order, in a fresh copy of the
repository. Offline substitutes only where a download is unavoidable, chosen by environment flags this test sets:
`NYCC_BENCH_UPSTREAM_DIR` (a mirror of the upstream files: ../shared/data, plus the sample's Hessel parquet and
leaderboard sets, which have no real subset here) and `OPENAI_BASE_URL` (a local OpenAI-compatible server). `make`
lines are what CI runs around this test, and `nycc-bench leaderboard` and `nycc-bench view --port N` (servers) are
started, probed over HTTP, and stopped."""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply, last_user_text
from live_leaderboard import free_port

from nycc_bench.paths import cache_dir

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
BIN = Path(sys.executable).parent
BLOCK = re.compile(r"^```(bash|python)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks() -> list[tuple[str, str]]:
    """(language, code) of every runnable block, in README order."""
    return BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def section_blocks(title: str) -> list[str]:
    """The code of the runnable blocks under one `## title` of the README (up to the next `## `)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return [code for _, code in BLOCK.findall(text[start:end if end > 0 else None])]


def reply(body: dict, attempt: int) -> Reply:
    """A plausible model or judge for every prompt the README's commands send."""
    text = last_user_text(body)
    everything = " ".join(str(m.get("content")) for m in body["messages"])
    tag = hashlib.sha256(everything.encode()).hexdigest()[:6]
    if "generate 10 funny captions" in everything:
        return Reply(text="\n".join(f'{i}. "A caption {tag} number {i}." - a reason' for i in range(1, 11)))
    if "anticipated answer point" in text.lower():
        return Reply(text="<reasoning>It covers it.</reasoning>\n<judgement>PASS</judgement>", top_logprobs=None)
    if "<explanation>" in text:
        return Reply(text=f"<explanation>The joke {tag} turns the scene around.</explanation>", top_logprobs=None)
    return Reply(text="A", top_logprobs=[("A", -0.1), ("B", -2.4)])


def copy_repo(target: Path) -> None:
    """The working tree as a fresh clone would have it (tracked and untracked-but-not-ignored files)."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-co", "--exclude-standard", "-z"], check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target / name)


def mirror(target: Path) -> Path:
    """The offline stand-in for `--source upstream`."""
    target.mkdir()
    for folder in SHARED.iterdir():
        (target / folder.name).symlink_to(folder)
    (target / "newyorker_caption_contest").symlink_to(ROOT / "nycc_bench" / "sample_data" / "newyorker_caption_contest")
    (target / "hessel_leaderboard").symlink_to(ROOT / "nycc_bench" / "sample_data" / "hessel_leaderboard")  # no zips
    return target


def serve_and_probe(command: str, cwd: Path, env: dict[str, str]) -> None:
    """Start a server command on a free port instead of the README's (7860 may be taken by another server on this
    machine), wait until it answers HTTP 200, stop it."""
    port = free_port()
    command = re.sub(r"--port \d+", f"--port {port}", command)
    proc = subprocess.Popen(command.split("#")[0], shell=True, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.time() + 180
        while True:
            assert proc.poll() is None, proc.stdout.read().decode()[-3000:]  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                    assert page.status == 200
                    break
            except OSError:
                assert time.time() < deadline, f"{command} never answered"
                time.sleep(1)
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is not beside the repository")
def test_every_readme_block_runs_as_written(tmp_path: Path) -> None:
    repo = tmp_path / "clone"
    copy_repo(repo)
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "NYCC_BENCH_UPSTREAM_DIR": str(mirror(tmp_path / "up")),
           "OPENAI_API_KEY": "sk-readme-test-0000", "NYCC_BENCH_CACHE": str(tmp_path / "cache"),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_CACHE": str(tmp_path / "hf"), "PYTHONUNBUFFERED": "1"}
    env.pop("NYCC_JUDGE_API_KEY", None)
    installed = cache_dir("models")  # `make install` unpacks the paper's SBERT model there, before the README runs
    if (installed / "all-mpnet-base-v2" / "model.safetensors").is_file():
        (tmp_path / "cache").mkdir()
        (tmp_path / "cache" / "models").symlink_to(installed)
    ran = []
    quick = section_blocks("30 seconds")  # timed as a new user runs it: the machine's figure, printed
    quick_s = quick_cpu = 0.0  # wall, and the CPU time of the processes (a loaded machine's wall is mostly waiting)
    with FakeChatServer(reply) as server:
        env["OPENAI_BASE_URL"] = server.base_url
        for language, code in blocks():
            began, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
            if language == "python":
                done = subprocess.run([sys.executable, "-c", code], cwd=repo, env=env, capture_output=True, text=True,
                                      timeout=900)
                assert done.returncode == 0, f"README python block failed:\n{code}\n{done.stderr[-3000:]}"
                ran.append(code.splitlines()[0])
            else:
                for command in re.sub(r"\\\n\s*", " ", code).splitlines():
                    command = command.strip()
                    if not command or command.startswith("#") or command.startswith("make "):
                        continue
                    if command.startswith(("nycc-bench leaderboard", "nycc-bench view")) and "--port" in command:
                        serve_and_probe(command, repo, env)
                    else:
                        done = subprocess.run(command, shell=True, cwd=repo, env=env, capture_output=True,
                                              text=True, timeout=900)
                        assert done.returncode == 0, f"README command failed: {command}\n{done.stderr[-3000:]}"
                    ran.append(command)
            if code in quick:
                quick_s += time.perf_counter() - began
                now = resource.getrusage(resource.RUSAGE_CHILDREN)
                quick_cpu += (now.ru_utime - cpu.ru_utime) + (now.ru_stime - cpu.ru_stime)
        assert server.count() > 0  # the OpenAI examples really went through the (local) server
    assert len(ran) >= 20
    figure = {"readme_30_seconds_s": round(quick_s, 1), "readme_30_seconds_cpu_s": round(quick_cpu, 1),
              "blocks": len(quick), "cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 1)}
    (ROOT / "out").mkdir(exist_ok=True)
    (ROOT / "out" / "readme_30_seconds.json").write_text(json.dumps(figure) + "\n")
    print(f"README '30 seconds' section: {quick_s:.1f} s ({quick_cpu:.1f} CPU s) on this machine "
          f"({os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})")
    assert (repo / "runs" / "gpt-4o" / "results.json").is_file()
    assert "sk-readme-test-0000" not in (repo / "runs" / "gpt-4o" / "results.json").read_text()
