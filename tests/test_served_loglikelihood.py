"""`vllm-server:` against a local completions server: letters by log-likelihood as `hf:` scores them, refusals
before any call, the per-endpoint cache, and n samples in one request with the task's decoding sent and recorded.

The server here answers the completions API with the prompt log-probabilities of the same tiny Llama computed by
transformers in this process, so its letters and log-likelihoods must equal `hf:`'s; the real engine (vLLM's CPU
build) is `test_served_real.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer, Reply, echo_payload
from served_helpers import scoring_server

from nycc_bench.errors import NyccBenchError
from nycc_bench.kinds.instances import build_instances
from nycc_bench.runner import run_task
from nycc_bench.systems import make_system
from nycc_bench.tasks import get_task

torch = pytest.importorskip("torch")
TOLERANCE = 1e-4  # float32 on both sides, the same weights: batched vs one prompt at a time


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tiny_models import save_tiny_llama

    return save_tiny_llama(tmp_path_factory.mktemp("served") / "llama")


@pytest.fixture(scope="module")
def hf(llama: Path, sample_dataset: str) -> Any:
    return make_system(f"hf:{llama}", sample_dataset)


@pytest.mark.parametrize("task", ["matching", "ranking"])
def test_letters_and_loglikelihoods_equal_hf(task: str, hf: Any, llama: Path, sample_dataset: str,
                                             tmp_path: Path) -> None:
    """Item 1: the same letters as `hf:` and log-likelihoods within TOLERANCE; one request per instance holding one
    token-id prompt per letter, echo + logprobs; a second run is answered from the cache, another endpoint is not."""
    instances = build_instances(get_task(task), sample_dataset)[:6]
    expected = hf.choose(get_task(task), instances)
    with scoring_server(hf) as server:
        served = make_system(f"vllm-server:{llama}", sample_dataset, base_url=server.base_url,
                             cache_dir=str(tmp_path / "cache"))
        got = served.choose(get_task(task), instances)
        assert server.count() == len(instances)
        body = server.requests[0].body
        assert (body["echo"], body["logprobs"], body["max_tokens"], body["temperature"]) == (True, 1, 1, 0.0)
        assert len(body["prompt"]) == len(instances[0].letters) and all(isinstance(t, int) for t in body["prompt"][0])
        again = make_system(f"vllm-server:{llama}", sample_dataset, base_url=server.base_url,
                            cache_dir=str(tmp_path / "cache")).choose(get_task(task), instances)
        assert server.count() == len(instances)  # cached per endpoint
    worst = 0.0
    for e, g, a in zip(expected, got, again, strict=True):
        assert g.error is None and g.letter == e.letter == a.letter
        for letter, value in e.raw["loglikelihoods"].items():
            worst = max(worst, abs(value - g.raw["loglikelihoods"][letter]))
    assert worst <= TOLERANCE
    with scoring_server(hf) as other:
        make_system(f"vllm-server:{llama}", sample_dataset, base_url=other.base_url,
                    cache_dir=str(tmp_path / "cache")).choose(get_task(task), instances[:2])
        assert other.count() == 2  # another endpoint is asked again


def test_a_server_without_prompt_logprobs_is_refused_after_one_call(hf: Any, llama: Path, sample_dataset: str,
                                                                    tmp_path: Path) -> None:
    """A server that returns no prompt log-probabilities (or has no completions route) stops the run in one line
    after its first request, before any other; OpenAI's API is refused before any call."""
    instances = build_instances(get_task("matching"), sample_dataset)[:5]
    with scoring_server(hf, with_logprobs=False) as server:
        system = make_system(f"vllm-server:{llama}", sample_dataset, base_url=server.base_url,
                             cache_dir=str(tmp_path / "c1"))
        with pytest.raises(NyccBenchError) as err:
            system.choose(get_task("matching"), instances)
        assert server.count() == 1
    assert "\n" not in str(err.value) and "cannot return prompt log-probabilities" in str(err.value)
    assert "mc_mode=generate" in str(err.value)
    with FakeChatServer() as chat_only:
        system = make_system(f"vllm-server:{llama}", sample_dataset, base_url=chat_only.base_url,
                             cache_dir=str(tmp_path / "c2"))
        with pytest.raises(NyccBenchError, match="no completions route"):
            system.choose(get_task("matching"), instances)
        assert chat_only.count() == 0  # the 404 is not recorded as a request, and nothing more is sent
    with pytest.raises(NyccBenchError, match=r"OpenAI's API.*returns no prompt log-probabilities"):
        make_system(f"vllm-server:{llama}", sample_dataset, base_url="https://api.openai.com/v1")


def test_ten_samples_in_one_request_with_the_decoding_sent_and_recorded(llama: Path, sample_dataset: str,
                                                                        tmp_path: Path) -> None:
    """Item 2: Zhang's caption generation through the server as `hf:` runs it: hf:'s upstream settings, one
    request per contest with n=10, temperature, top_p, repetition penalty, seed and max_tokens sent, upstream's
    plain-text prompt (BOS added) as token ids; the request is recorded in the run's meta."""
    def reply(body: dict, attempt: int) -> Reply:
        texts = [f"caption {k}\nmore" for k in range(body.get("n", 1))]
        return Reply(body=echo_payload([body["prompt"]] * body.get("n", 1), None, texts))

    with FakeChatServer(completions=reply) as server:
        system = make_system(f"vllm-server:{llama}", sample_dataset, base_url=server.base_url,
                             cache_dir=str(tmp_path / "cache"))
        out = tmp_path / "gen.jsonl"
        run_task("caption_generation", system.spec, out, dataset=sample_dataset, system=system, progress=False)
        bodies = [r.body for r in server.requests]
    meta = json.loads(out.with_name(out.name + ".meta.json").read_text())
    instances = build_instances(get_task("caption_generation"), sample_dataset, options=meta["options"])
    assert len(bodies) == len(instances)
    assert {(b["n"], b["temperature"], b["top_p"], b["repetition_penalty"], b["seed"], b["max_tokens"])
            for b in bodies} == {(10, 0.7, 0.95, 1.15, 2024, 256)}
    tokenizer = system.tokenizer
    assert sorted(map(tuple, (b["prompt"] for b in bodies))) == \
        sorted(tuple(tokenizer(i.user)["input_ids"]) for i in instances)  # upstream's plain text, BOS added
    assert meta["effective"]["kind"] == "hf"
    assert meta["effective"]["request"] == {"route": "/completions", "model": str(llama), "n": 10,
                                            "temperature": 0.7, "max_tokens": 256, "seed": 2024, "top_p": 0.95,
                                            "repetition_penalty": 1.15}
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(len(r["raw"]) == 10 for r in records if r["status"] == "ok")


def test_vllm_in_process_without_vllm_is_refused_in_one_line(llama: Path, sample_dataset: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """`vllm:` where vLLM is not installed (the project's environment: vLLM pins another transformers) is one line
    naming the install and `vllm-server:`; it runs on vLLM's CPU build in `test_served_real.py`."""
    import sys

    monkeypatch.setitem(sys.modules, "vllm", None)  # `import vllm` raises ImportError, installed or not
    with pytest.raises(NyccBenchError) as err:
        make_system(f"vllm:{llama}", sample_dataset, tensor_parallel_size=2)
    assert "\n" not in str(err.value) and "needs vLLM installed" in str(err.value) and "vllm-server:" in str(err.value)


@pytest.mark.parametrize("kind", ["hf", "vllm-server", "vllm"])
def test_hf_on_another_engine_reads_and_sets_as_hf(kind: str, llama: Path, sample_dataset: str) -> None:
    """`vllm-server:` and `vllm:` run `hf:`'s model elsewhere: the description as their input, `hf:`'s upstream
    settings, and the same `mc_mode` check, made before anything loads or is called."""
    from nycc_bench.systems.registry import lookup

    cls = lookup(f"{kind}:{llama}").cls
    assert cls.inputs == frozenset({"description"}) and (cls.settings_kind or cls.system_kind) == "hf"
    with pytest.raises(ValueError, match="mc_mode must be one of loglikelihood, generate, got 'vibes'"):
        make_system(f"{kind}:{llama}", sample_dataset, base_url="http://127.0.0.1:9/v1", mc_mode="vibes")
