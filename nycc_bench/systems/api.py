"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, TGI, Ollama) through the judge engine's client.

Sharing the engine gives systems the judge's cache, bounded concurrency, retries and cost accounting: a
re-run of `nycc-bench run` with an OpenAI system makes no new calls for instances already answered.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..images import image_url
from ..kinds import Instance
from ..tasks import Task
from ..urls import redact_url
from .base import Output, System
from .registry import register_system

if TYPE_CHECKING:  # the engine is imported when a system is built, not when the registry is read
    from ..llm import LLMConfig


def image_part(image: Any) -> dict[str, Any]:
    """A PIL image as an OpenAI `image_url` content part."""
    return {"type": "image_url", "image_url": {"url": image_url(image)}}


def to_messages(inst: Instance) -> list[dict[str, Any]]:
    """An instance as OpenAI chat messages (the image, when there is one, follows the text in the last user turn,
    as Hessel's leaderboard scripts send it)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": inst.system}] if inst.system else []
    messages += [dict(t) for t in inst.turns]
    if inst.image is not None:
        messages.append({"role": "user", "content": [{"type": "text", "text": inst.user}, image_part(inst.image)]})
    else:
        messages.append({"role": "user", "content": inst.user})
    return messages


@register_system("openai", form="openai:<model>", decoding=True,
                 help="any OpenAI-compatible endpoint (--base-url or OPENAI_BASE_URL for vLLM, TGI, Ollama; key from "
                      "OPENAI_API_KEY) through the LLM engine: cached, concurrent, retried")
class OpenAISystem(System):
    """Generation through the chat-completions API; multiple choice by parsing the generated answer.

    The task's decoding settings are sent (temperature, top_p, seed, max tokens; `repetition_penalty` only to a
    non-OpenAI server, which is where it exists). With sampling, every instance is its own cache entry, so two
    instances with the same prompt (HumorBench's rows of one caption) are two calls, as upstream makes them.
    A call that failed after the engine's retries is a failed item (`Output.error`), never an empty answer.
    A generation task's `samples: n` (`--system-option samples=10`) is one request with the API's `n` per prompt,
    whose n texts are the answer (as `hf:` gives them).
    """

    batch_size = 64

    def __init__(self, model: str, base_url: str | None = None, max_concurrency: int = 16,
                 cache_dir: str | None = None, timeout_s: float | None = None, retries: int | None = None,
                 batch: bool = False, batch_wait_s: float | None = None, deadline_s: float | None = None) -> None:
        self.spec, self.model, self.base_url, self.cache_dir = f"openai:{model}", model, base_url, cache_dir
        self.batch = bool(batch)
        self.batch_dir: str | None = None  # where pending batch ids are kept; `evaluate` sets the run folder
        self.served: dict[str, Any] | None = None  # what the endpoint says it serves (`identify`)
        self._identified = False
        self.options = {"max_concurrency": max_concurrency, "cache_dir": cache_dir, "progress": False,
                        **({"timeout_s": float(timeout_s)} if timeout_s else {}),
                        **({"retries": int(retries)} if retries is not None else {}),
                        **({"deadline_s": float(deadline_s)} if deadline_s is not None else {}),
                        **({"batch": True, "progress": True, "batch_wait_s": batch_wait_s} if batch else {})}

    @classmethod
    def from_spec(cls, arg: str, dataset: str, base_url: str | None = None, **options: Any) -> OpenAISystem:
        """`openai:<model>` at `base_url` (else OPENAI_BASE_URL, else OpenAI's)."""
        return cls(arg, base_url=base_url, **options)

    def config(self, task: Task) -> LLMConfig:
        """The engine's config for one task's decoding settings."""
        from ..llm import LLMConfig

        decoding = self.decoding(task)
        extra = {k: decoding[k] for k in ("top_p", "seed") if decoding.get(k) is not None}
        if self.base_url and decoding.get("repetition_penalty") not in (None, 1.0):
            extra["repetition_penalty"] = decoding["repetition_penalty"]
        return LLMConfig(backend="openai", model=self.model, base_url=self.base_url,
                           temperature=decoding.get("temperature"), max_tokens=decoding.get("max_new_tokens"),
                           extra_body=extra, **self.options, **({"batch_dir": self.batch_dir} if self.batch else {}))

    def jobs(self, task: Task, instances: list[Instance]) -> tuple[LLMConfig, list[Any]]:
        """The engine's config and one job per instance: what `generate` sends, and what a dry run estimates."""
        from ..judge import build_generation_jobs
        from ..kinds import stable_seed

        config = self.config(task)
        jobs = build_generation_jobs([to_messages(i) for i in instances], config, prompt_version=task.prompt_version)
        limit = self.decoding(task).get("max_new_tokens")  # None: not sent (the provider's default, as upstream)
        salt = (lambda i: stable_seed(i.instance_id) % 2**31) if config.temperature else (lambda i: 0)
        # sampled: one cache entry per instance, so equal prompts are separate calls (HumorBench's rows);
        # temperature None is not sent (the provider's default, as Zhang's caption_gen.py), never the engine's 1.0
        n = self.samples(task)
        return config, [replace(job, request=replace(job.request, max_tokens=limit, temperature=config.temperature,
                                                     sample_index=salt(i), n=n))
                        for job, i in zip(jobs, instances, strict=True)]

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        from ..llm import run_jobs

        config, jobs = self.jobs(task, instances)
        records = run_jobs(jobs, config, desc="generate")
        if self.samples(task) > 1:
            return [Output(raw=list(r["texts"])) if not r.get("error") and r.get("texts")
                    else Output(raw=None, error=str(r.get("error") or "no reply")) for r in records]
        return [Output(raw=r["text"]) if not r.get("error") and r.get("text") is not None
                else Output(raw=None, error=str(r.get("error") or "no reply")) for r in records]

    def identify(self) -> dict[str, Any] | None:
        """Ask the endpoint once what it serves under the model name (`/models`: id, root, created, fingerprint
        fields); recorded in `describe()`, compared when a run folder is resumed. None when it does not say."""
        if not self._identified:
            from ..llm import LLMConfig, run_sync
            from ..llm.backends.openai_backend import OpenAIBackend

            backend = OpenAIBackend(LLMConfig(backend="openai", model=self.model, base_url=self.base_url))
            self.served, self._identified = run_sync(backend.served_model), True
        return self.served

    def endpoint(self) -> str:
        """The endpoint called, without user, password or token (`scheme://host:port/path`)."""
        from ..llm.backends.openai_backend import resolve_base_url

        return str(redact_url(resolve_base_url(self.base_url)))

    def effective(self, task: Task) -> dict[str, Any]:
        config = self.config(task)
        sent: dict[str, Any] = {"model": self.model, "n": self.samples(task)}
        if config.temperature is not None:
            sent["temperature"] = float(config.temperature)
        if config.max_tokens is not None:
            sent["max_tokens"] = int(config.max_tokens)
        sent.update(config.extra_body)
        return {"request": sent, "answer_by": "generation", "endpoint": self.endpoint(),
                "retries": config.retries, "timeout_s": config.timeout_s, **({"batch": True} if self.batch else {})}

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "model": self.model, "base_url": redact_url(self.base_url),
                "endpoint": self.endpoint(), "source": "api", "revision": None,
                **({"served": self.served} if self.served else {})}
