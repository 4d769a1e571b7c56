"""`vllm-server:<model>`: a model behind an OpenAI-compatible server (vLLM, SGLang…), run as `hf:` runs it.

Multiple choice by log-likelihood. The letters are scored on exactly the tokens `hf:` scores in-process
(`hf_causal.ChoicePrompts`, from the model's tokenizer loaded here: the same chat template, context ending in
"Answer:", continuation " " + letter, continuation tokens those of context + continuation past the context's own):
each instance is one completions request whose prompts are its letters' token ids, with `echo` and `logprobs`,
so the server returns every prompt token's log-probability; a letter's score is the sum over its continuation
tokens, the argmax wins (ties: the earlier letter). The requests go through the LLM engine: cached per endpoint and
served model, concurrent (`max_concurrency`), retried. The first request of a run is sent alone: a server that
returns no prompt log-probabilities stops the run there with one line, before any other call; OpenAI's own API
(which does not echo them) is refused before any call. `mc_mode=generate` answers by generation instead.

Generation goes to the completions endpoint too, with `hf:`'s prompt text as token ids (the chat template applied
here, or upstream's plain text where the task sends plain text), so the served model sees the prompt `hf:` would
build; the task's decoding settings are sent (temperature, top_p, seed, repetition_penalty, max_tokens), and a
task's `samples: n` is one request with `n` (`samples_in_one_request=false`: n requests, for a server without `n`).
The kind takes `hf:`'s upstream settings where a task has them per kind (`settings_kind`).
"""

from __future__ import annotations

from typing import Any

from ..errors import NyccBenchError
from ..kinds import Instance, stable_seed
from ..tasks import Task
from .api import OpenAISystem
from .base import Output
from .hf import flag_option, parse_ref
from .hf_causal import ANSWER_PREFIX, ChoicePrompts, RunsAsHF, generation_settings, mc_mode_option
from .registry import register_system

SCORING_REQUEST = {"route": "/completions", "echo": True, "logprobs": 1, "max_tokens": 1, "temperature": 0.0}
"""What a scoring request sends besides the model and the token-id prompts (`openai_backend.scoring_body`)."""


def summed(completion: Any) -> dict[str, Any]:
    """A scoring reply as a record: each prompt's continuation log-likelihood (ERROR when it carries none)."""
    if completion.prompt_logprobs is None:
        return {"verdict": "ERROR"}
    return {"loglikelihoods": [sum(values) for values in completion.prompt_logprobs]}


def generated(completion: Any) -> dict[str, Any]:
    """A completions generation reply as a record: its texts (one per sample)."""
    return {"texts": list(completion.texts) if completion.texts is not None else [completion.text]}


@register_system("vllm-server", form="vllm-server:<model>", decoding=True, hub_model=True,
                 help="a model served by vLLM (or SGLang, llama-cpp-python: any server with the completions API, echo "
                      "and prompt logprobs) at --base-url, run as hf: runs it: letters by log-likelihood on hf:'s "
                      "tokens, text from hf:'s prompt, n samples in one request; cached, concurrent, retried")
class ServedLMSystem(RunsAsHF, OpenAISystem, ChoicePrompts):
    """`hf:`'s scoring and prompts, answered by a server (see the module docstring)."""


    def __init__(self, model: str, base_url: str | None = None, mc_mode: str = "loglikelihood",
                 tokenizer: str | None = None, chat_template: str = "auto", trust_remote_code: bool = False,
                 samples_in_one_request: bool | str = True, max_concurrency: int = 16, cache_dir: str | None = None,
                 timeout_s: float | None = None, retries: int | None = None) -> None:
        mc_mode_option(mc_mode)
        super().__init__(model, base_url=base_url, max_concurrency=max_concurrency, cache_dir=cache_dir,
                         timeout_s=timeout_s, retries=retries)
        self.spec, self.mc_mode = f"vllm-server:{model}", mc_mode
        self.one_request = flag_option("samples_in_one_request", samples_in_one_request, True)
        if mc_mode == "loglikelihood" and self.is_openai():
            raise NyccBenchError(f"system: {self.endpoint()} (OpenAI's API) returns no prompt log-probabilities, so "
                                 f"{self.spec} cannot score letters by log-likelihood there; pass --base-url of a "
                                 "vLLM server, or --system-option mc_mode=generate")
        from transformers import AutoTokenizer

        from .hf import load, resolve

        self.tokenizer_ref = parse_ref("vllm-server", tokenizer or model)
        revision, self.tokenizer_revision = resolve(self.tokenizer_ref)
        loaded = load(self.tokenizer_ref, "tokenizer", AutoTokenizer.from_pretrained, revision,
                      trust_remote_code=trust_remote_code)
        self.use_tokenizer(loaded, chat_template, self.spec)
        self._engine: Any = None
        self._probed = False  # the first scoring request of this system has been answered

    def is_openai(self) -> bool:
        """Whether the endpoint is OpenAI's own API."""
        from urllib.parse import urlsplit

        from ..llm.backends.openai_backend import resolve_base_url

        return urlsplit(resolve_base_url(self.base_url)).hostname == "api.openai.com"

    def engine(self, task: Task) -> Any:
        """The LLM engine of this system (one, so its stats accumulate and its cache stays open)."""
        from ..llm import LLMConfig, LLMEngine

        config = LLMConfig(backend="openai", model=self.model, base_url=self.base_url, temperature=0.0,
                           max_tokens=1, **self.options)
        if self._engine is None or self._engine.config != config:
            self._engine = LLMEngine(config)
        return self._engine

    def scoring_jobs(self, task: Task, instances: list[Instance]) -> list[Any]:
        """One completions job per instance: its letters' token-id prompts (context + continuation) and how many
        of each prompt's last tokens are the continuation."""
        from ..llm import ChatRequest, Job

        jobs = []
        for pairs in self.continuations(self.choice_requests(instances), not self.chat):
            request = ChatRequest(messages=(), max_tokens=1, temperature=0.0,
                                  prompts=tuple((*ctx, *targets) for ctx, targets in pairs),
                                  scored=tuple(len(targets) for _, targets in pairs))
            jobs.append(Job(request=request, parse=summed, prompt_version=task.prompt_version,
                            expected_output_tokens=len(pairs)))
        return jobs

    def run(self, task: Task, jobs: list[Any], desc: str) -> list[dict[str, Any]]:
        """The jobs' records through the engine; the very first job alone, so a server that cannot answer stops
        the run after one call."""
        from ..llm import run_jobs

        engine = self.engine(task)
        head = [] if self._probed or not jobs else run_jobs(jobs[:1], engine, desc=desc)
        self._probed = True
        return head + run_jobs(jobs[len(head):], engine, desc=desc)

    def choose(self, task: Task, instances: list[Instance]) -> list[Output]:
        self.text_only(task)
        if self.mc_mode == "generate":
            return self.generate(task, instances)
        records = self.run(task, self.scoring_jobs(task, instances), "score")
        failed = {k: str(r.get("error") or "no log-likelihoods") for k, r in enumerate(records)
                  if r.get("error") or len(r.get("loglikelihoods") or ()) != len(instances[k].letters)}
        answered = self.choices([i for k, i in enumerate(instances) if k not in failed],
                                [r["loglikelihoods"] for k, r in enumerate(records) if k not in failed])[::-1]
        return [Output(raw=None, error=failed[k]) if k in failed else answered.pop() for k in range(len(instances))]

    def sent(self, task: Task) -> dict[str, Any]:
        """The generation request's settings (besides model, prompt and n): the task's decoding, as sent."""
        return {k: v for k, v in generation_settings(self.decoding(task), 1).items() if k != "n"}

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        """Text for each instance from `hf:`'s prompt; n samples as one request with `n` (or n requests)."""
        from ..llm import ChatRequest, Job, LLMConfig, LLMEngine

        self.text_only(task)
        sent, n = self.sent(task), self.samples(task)
        per_request = n if self.one_request else 1
        extra = {k: v for k, v in sent.items() if k not in ("temperature", "max_tokens")}
        config = LLMConfig(backend="openai", model=self.model, base_url=self.base_url,
                           temperature=sent["temperature"], max_tokens=sent["max_tokens"], extra_body=extra,
                           **self.options)
        plain = [not self.chat or not i.chat for i in instances]  # the template writes BOS; plain text needs it
        ids = [self.tokenizer(self.prompt(i), add_special_tokens=p)["input_ids"] for i, p in zip(instances, plain,
                                                                                                     strict=True)]
        jobs = []
        for inst, prompt in zip(instances, ids, strict=True):
            for k in range(n // per_request):
                salt = stable_seed(inst.instance_id) % 2**31 + k if sent["temperature"] else k
                request = ChatRequest(messages=(), max_tokens=sent["max_tokens"], temperature=sent["temperature"],
                                      prompts=(tuple(prompt),), n=per_request, sample_index=salt)
                jobs.append(Job(request=request, parse=generated, prompt_version=task.prompt_version))
        engine = LLMEngine(config)
        try:
            records = engine.run(jobs, desc="generate")
        finally:
            engine.close()
        out: list[Output] = []
        per_instance = n // per_request
        for k in range(len(instances)):
            mine = records[k * per_instance:(k + 1) * per_instance]
            if failed := next((r for r in mine if r.get("error")), None):
                out.append(Output(raw=None, error=str(failed["error"])))
                continue
            texts = [t for r in mine for t in r["texts"]]
            out.append(Output(raw=texts if n > 1 else texts[0]))
        return out

    def effective(self, task: Task) -> dict[str, Any]:
        common = {"endpoint": self.endpoint(), "chat_template": self.template_name or "none",
                  "retries": self.options.get("retries"), "timeout_s": self.options.get("timeout_s")}
        if task.kind == "choice" and self.mc_mode != "generate":
            return {"answer_by": "log-likelihood of each letter", "request": dict(SCORING_REQUEST), **common}
        n = self.samples(task)
        per_request = n if self.one_request else 1
        return {"request": {"route": "/completions", "model": self.model, "n": per_request, **self.sent(task)},
                "requests_per_prompt": n // per_request, "answer_by": "generation", **common}

    def describe(self) -> dict[str, Any]:
        scoring = f"sum log p(' <letter>' | prompt + {ANSWER_PREFIX!r}) from the server's prompt logprobs" \
            if self.mc_mode == "loglikelihood" else "generate, then parse"
        return {**super().describe(), "mc_mode": self.mc_mode, "choice_scoring": scoring,
                "chat_template": self.template_name,
                "tokenizer": {"spec": self.tokenizer_ref.name, "revision": self.tokenizer_revision}}
