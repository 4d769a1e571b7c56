"""A local transformers causal LM as judge: chat template, generation, first-position log-probabilities."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from ..chat import UNSET_MAX_TOKENS, ChatRequest, Completion
from ..config import LLMConfig
from ..errors import FatalJudgeError

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".gguf")


def local_fingerprint(model: str) -> str | None:
    """For a local model folder: a hash of ``config.json`` and the weight files' names and sizes.

    Part of the cache key, so retraining into the same folder does not serve stale answers (hashing the
    weights themselves would cost minutes for a 7B model; names+sizes+config catch nearly every change).
    """
    folder = Path(model).expanduser()
    if not folder.is_dir():
        return None
    digest = hashlib.sha256()
    config = folder / "config.json"
    if config.exists():
        digest.update(config.read_bytes())
    for path in sorted(folder.iterdir()):
        if path.suffix in WEIGHT_SUFFIXES:
            digest.update(f"{path.name}:{path.stat().st_size}".encode())
    return digest.hexdigest()[:16]


class TransformersBackend:
    """Runs one request at a time on a worker thread (the model is loaded once, on first use).

    Generation is greedy when the temperature is 0 or None, else plain sampling at that temperature over the
    full vocabulary (top-k 0, top-p 1), like an API. Log-probabilities are read from the raw logits at the
    first generated position: ``top_logprobs`` alternatives (decoded tokens) and, exactly, each string in
    ``request.logprob_tokens`` (the first token of its encoding without special tokens).
    """

    def __init__(self, config: LLMConfig) -> None:
        self._config = config
        self._fingerprint = local_fingerprint(config.model)
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._model: Any = None
        self._device: str | None = None

    def identity(self) -> dict[str, Any]:
        return {
            "backend": "transformers",
            "model": self._config.model,
            "fingerprint": self._fingerprint,
            "extra_body": {},
        }

    @asynccontextmanager
    async def session(self) -> AsyncIterator[TransformersBackend]:
        yield self

    def __repr__(self) -> str:
        return f"TransformersBackend(model={self._config.model!r})"

    async def complete(self, request: ChatRequest) -> Completion:
        return await asyncio.to_thread(self._complete_locked, request)

    def _complete_locked(self, request: ChatRequest) -> Completion:
        with self._lock:
            return self._complete(request)

    def _load(self) -> tuple[Any, Any]:
        if self._model is None:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            try:
                tokenizer = AutoTokenizer.from_pretrained(self._config.model)
                model = AutoModelForCausalLM.from_pretrained(self._config.model, dtype="auto")
            except Exception as exc:  # any loading failure makes the whole run pointless
                raise FatalJudgeError(f"cannot load transformers model {self._config.model!r}: {exc}") from exc
            if tokenizer.chat_template is None:
                raise FatalJudgeError(f"tokenizer of {self._config.model!r} has no chat template")
            self._device = self._config.device or ("cuda" if torch.cuda.is_available() else "cpu")
            self._model = model.to(self._device).eval()
            self._tokenizer = tokenizer
        return self._tokenizer, self._model

    def _complete(self, request: ChatRequest) -> Completion:
        import torch
        from transformers import GenerationConfig

        tokenizer, model = self._load()
        if any(not isinstance(m.get("content"), str) for m in request.messages):
            raise FatalJudgeError("the transformers backend takes text-only messages (no image parts)")
        encoded = tokenizer.apply_chat_template(
            list(request.messages), add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        input_ids = encoded["input_ids"].to(self._device)
        attention_mask = encoded["attention_mask"].to(self._device)
        sample = bool(request.temperature)
        eos = model.generation_config.eos_token_id
        if eos is None:
            eos = tokenizer.eos_token_id
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = eos if isinstance(eos, int) else (eos[0] if eos else 0)
        generation = GenerationConfig(
            max_new_tokens=request.max_tokens or UNSET_MAX_TOKENS,
            do_sample=sample,
            temperature=float(request.temperature) if sample else 1.0,
            top_k=0 if sample else None,
            top_p=1.0,
            eos_token_id=eos,
            pad_token_id=pad,
        )
        with torch.no_grad():
            out = model.generate(
                input_ids=input_ids,
                attention_mask=attention_mask,
                generation_config=generation,
                output_logits=True,
                return_dict_in_generate=True,
            )
        new_tokens = out.sequences[0, input_ids.shape[1] :]
        text = tokenizer.decode(new_tokens, skip_special_tokens=True)
        logprobs = torch.log_softmax(out.logits[0][0].float(), dim=-1)
        top = None
        if request.top_logprobs:
            values, ids = logprobs.topk(min(request.top_logprobs, logprobs.shape[-1]))
            top = tuple((tokenizer.decode([i]), float(v)) for v, i in zip(values.tolist(), ids.tolist(), strict=True))
        token_logprobs = None
        if request.logprob_tokens:
            token_logprobs = {}
            for token in request.logprob_tokens:
                ids = tokenizer.encode(token, add_special_tokens=False)
                if ids:
                    token_logprobs[token] = float(logprobs[ids[0]])
        finish = "stop" if len(new_tokens) < (request.max_tokens or UNSET_MAX_TOKENS) else "length"
        return Completion(
            text=text,
            top_logprobs=top,
            token_logprobs=token_logprobs,
            prompt_tokens=int(input_ids.shape[1]),
            completion_tokens=len(new_tokens),
            finish_reason=finish,
        )
