"""A completions server (`fake_openai.FakeChatServer`) whose prompt log-probabilities are a real model's, computed by
transformers in this process: `vllm-server:` against it must give `hf:`'s letters and log-likelihoods."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from fake_openai import FakeChatServer, Reply, echo_payload


def model_logprobs(hf: Any) -> Callable[[Sequence[int]], list[float | None]]:
    """Each prompt token's log-probability under `hf`'s model (None for the first), as a server computes them."""
    def logprobs(prompt: Sequence[int]) -> list[float | None]:
        with torch.inference_mode():
            logits = hf.model(input_ids=torch.tensor([list(prompt)])).logits[0].float().log_softmax(-1)
        return [None, *[float(logits[p - 1, t]) for p, t in enumerate(prompt) if p > 0]]
    return logprobs


def scoring_server(hf: Any, with_logprobs: bool = True,
                   models: Sequence[Mapping[str, Any]] | None = None) -> FakeChatServer:
    """A server answering completions with `hf`'s prompt log-probabilities (none at all: `with_logprobs` False)."""
    compute = model_logprobs(hf) if with_logprobs else None
    return FakeChatServer(completions=lambda body, attempt: Reply(body=echo_payload(body["prompt"], compute)),
                          models=models)
