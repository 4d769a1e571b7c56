"""`hf:<model>`: a transformers causal LM; letters by log-likelihood (lm-evaluation-harness style), text by generation.

Choice scoring. The context is the prompt with the chat template applied and the assistant turn opened, then
"Answer:" as the start of the reply; without a chat template it is the plain prompt, which already ends in
"Answer:" (the task prompts do). The continuation is " " + letter. So a letter is always scored as " A" right
after "Answer:", the form the instructions ask for ("Answer: C"), with or without a template. As in the harness,
a continuation's tokens are those of the tokenized context+continuation past the context's own tokens, and a
letter's score is the sum of their log-probabilities; the argmax wins (ties: the earlier letter).

Batching. Every distinct input (context plus all but the last continuation token) is one row: when each letter
is one token, all letters share the context's row, so a prompt costs one forward pass. Rows are left-padded
with explicit position ids (so each row sees the positions it would see alone) and only the last positions'
logits are computed (`logits_to_keep`); a model whose forward takes no position ids is right-padded instead.
No KV cache is built for scoring, and each batch's log-probabilities are read back in one transfer.

Generation. Prompts are sorted by length (longest first, so a batch that does not fit fails first) and generated
`batch_size` at a time, or as many as fit in free GPU memory (`batch_size=auto`, the default on CUDA); outputs
come back in the order given. `compile=true` (the default on CUDA, for models transformers can compile) uses a
static KV cache that `generate` compiles, with prompts padded to a multiple of PAD_MULTIPLE so a few shapes cover
a run. Sampled text is reproducible for the same batches: each batch is seeded from its instance ids.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

from ..tasks import Task
from ..tasks.instances import Instance
from .api import to_messages
from .base import Output, SystemCannotAnswer
from .hf import (
    ModelRef,
    PretrainedSystem,
    auto_batch_size,
    batch_option,
    can_compile,
    flag_option,
    generation_config,
    load_pretrained,
    on_cuda,
    runner_chunk,
    seed_batch,
    seed_run,
    sent_settings,
)
from .registry import register_system

ANSWER_PREFIX = "Answer:"
MC_MODES = ("loglikelihood", "generate")
PAD_MULTIPLE = 64  # compiled generation: prompt widths rounded up to this, so few shapes are compiled


def plain_choice_context(text: str) -> str:
    """A plain-text prompt (no chat template) as the letters are scored after it: ending in "Answer:" (the
    lm-evaluation-harness export sends the same text, `nycc_bench.lmeval`)."""
    return text if text.endswith(ANSWER_PREFIX) else f"{text}\n{ANSWER_PREFIX}"


@register_system("hf", form="hf:<model>[@revision]", decoding=True, hub_model=True,
                 help="a transformers causal LM (e.g. hf:Qwen/Qwen2.5-0.5B-Instruct): letters by log-likelihood "
                      "(batched), text by generation with the chat template and the task's decoding (Zhang caption "
                      "generation: upstream's plain-text prompt, no template, 10 samples); device_map=auto and bf16 "
                      "on GPUs")
class CausalLMSystem(PretrainedSystem):
    """A causal LM on one device or spread over the GPUs (`device_map="auto"`); see the module docstring."""

    def __init__(self, ref: ModelRef, batch_size: int | str | None = None, device: str | None = None,
                 dtype: str | None = None, mc_mode: str = "loglikelihood", compile: bool | str | None = None,
                 trust_remote_code: bool = False) -> None:
        if mc_mode not in MC_MODES:
            raise ValueError(f"system: mc_mode must be one of {', '.join(MC_MODES)}, got {mc_mode!r}")
        batch_option(batch_size, cuda=True)  # a bad value is named before any loading
        flag_option("compile", compile, False)
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.ref, self.spec = ref, ref.spec
        self.mc_mode = mc_mode
        self.tokenizer, self.model, self.revision = load_pretrained(ref, AutoModelForCausalLM, AutoTokenizer, device,
                                                                    dtype, trust_remote_code)
        if self.tokenizer.pad_token is None:
            if self.tokenizer.eos_token is None:
                raise ValueError(f"system: the tokenizer of {ref.spec!r} has neither a pad nor an eos token")
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "left"  # for generation; scoring pads by itself
        self.chat = self.tokenizer.chat_template is not None
        params = inspect.signature(self.model.forward).parameters
        self._left = "position_ids" in params
        self._keep = self._left and "logits_to_keep" in params
        cuda = on_cuda(self.model)
        self.fixed_batch = batch_option(batch_size, cuda)  # None: sized from free GPU memory per batch
        self.batch_size = runner_chunk(self.fixed_batch)  # what the runner hands over at a time
        self.compiled = flag_option("compile", compile, cuda) and can_compile(self.model)
        self._seeded_run = False  # `seed_run` is called once, before this system's first upstream-style generation
        self.generated_tokens = 0  # new tokens generated so far, up to each sequence's end (throughput figures)

    # ---- prompts ----------------------------------------------------------------------------------------------
    def prompt(self, inst: Instance) -> str:
        """The instance as model input text: chat template with the assistant turn opened, else plain text (also
        for an instance that upstream sent as plain text, `Instance.chat` False)."""
        if not self.chat or not inst.chat:
            return inst.text()
        from jinja2 import TemplateError

        messages = to_messages(replace(inst, image=None))
        try:
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        except TemplateError:  # templates without a system role (Gemma, early Mistral): fold it into the user turn
            if not inst.system:
                raise
            merged = replace(inst, system=None, image=None, user=f"{inst.system}\n\n{inst.user}")
            return self.tokenizer.apply_chat_template(to_messages(merged), tokenize=False, add_generation_prompt=True)

    def choice_context(self, inst: Instance) -> str:
        """The text the letters are scored after; it always ends in "Answer:" (see the module docstring)."""
        text = self.prompt(inst)
        return text + ANSWER_PREFIX if self.chat else plain_choice_context(text)

    # ---- log-likelihood ---------------------------------------------------------------------------------------
    def loglikelihood(self, requests: list[tuple[str, list[str]]], add_special_tokens: bool | None = None
                      ) -> list[list[float]]:
        """log p(continuation | context) for each context and each of its continuations, batched.

        `add_special_tokens` defaults to False with a chat template (the template writes BOS) and True without.
        """
        add = (not self.chat) if add_special_tokens is None else add_special_tokens
        contexts = self.tokenizer([c for c, _ in requests], add_special_tokens=add)["input_ids"]
        wholes = iter(self.tokenizer([c + x for c, xs in requests for x in xs], add_special_tokens=add)["input_ids"])
        rows: dict[tuple[int, ...], int] = {}
        items: list[tuple[int, int, list[int]]] = []  # (request, row, continuation tokens)
        for i, ((_, continuations), ctx) in enumerate(zip(requests, contexts, strict=True)):
            for continuation in continuations:
                targets = next(wholes)[len(ctx):]
                if not targets:
                    raise ValueError(f"system: continuation {continuation!r} adds no token to its context")
                items.append((i, rows.setdefault((*ctx, *targets[:-1]), len(rows)), targets))
        sums = self._score_rows(list(rows), items)
        out: list[list[float]] = [[] for _ in requests]
        for (i, _, _), value in zip(items, sums, strict=True):
            out[i].append(value)
        return out

    def _score_rows(self, rows: list[tuple[int, ...]], items: list[tuple[int, int, list[int]]]) -> list[float]:
        """Sum of target log-probs for each item; rows go through the model longest first, a batch at a time."""
        import torch

        by_row: list[list[int]] = [[] for _ in rows]
        for k, (_, row, _) in enumerate(items):
            by_row[row].append(k)
        sums = [0.0] * len(items)
        order = sorted(range(len(rows)), key=lambda r: -len(rows[r]))
        start = 0
        while start < len(order):
            size = self.fixed_batch or auto_batch_size(self.model, len(rows[order[start]]), cache=False)
            chunk = order[start:start + size]
            start += size
            keep = max(len(items[k][2]) for r in chunk for k in by_row[r])
            logits, offsets = self._forward([rows[r] for r in chunk], keep)
            where: list[tuple[int, int, int, int]] = []  # (item, batch row, logits position, target token)
            for b, r in enumerate(chunk):
                for k in by_row[r]:
                    targets = items[k][2]
                    first = len(rows[r]) - len(targets) + offsets[b]  # the position that predicts targets[0]
                    where += [(k, b, first + j, t) for j, t in enumerate(targets)]
            ks, bs, ps, ts = zip(*where, strict=True)
            logprobs = logits[list(bs), list(ps)].float().log_softmax(-1)
            values = logprobs.gather(-1, torch.tensor(ts, device=logprobs.device)[:, None])[:, 0].tolist()
            for k, value in zip(ks, values, strict=True):
                sums[k] += value
        return sums

    def _forward(self, seqs: list[tuple[int, ...]], keep: int) -> tuple[Any, list[int]]:
        """Logits of a padded batch and, per row, the offset from a row position to its index in those logits."""
        import torch

        width = max(map(len, seqs))
        ids = torch.full((len(seqs), width), self.tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for b, seq in enumerate(seqs):
            cols = slice(width - len(seq), width) if self._left else slice(0, len(seq))
            ids[b, cols] = torch.tensor(seq)
            mask[b, cols] = 1
        kwargs: dict[str, Any] = {}
        if self._left:
            kwargs["position_ids"] = (mask.cumsum(-1) - 1).clamp(min=0).to(self.model.device)
        if self._keep:
            kwargs["logits_to_keep"] = keep
        with torch.inference_mode():
            logits = self.model(input_ids=ids.to(self.model.device), attention_mask=mask.to(self.model.device),
                                use_cache=False, **kwargs).logits
        if not self._left:
            return logits, [0] * len(seqs)
        # left-padded: row position p sits at column width - len + p; the logits hold the last `kept` columns
        kept = logits.shape[1]
        return logits, [kept - len(seq) for seq in seqs]

    # ---- the System interface ---------------------------------------------------------------------------------
    def _check(self, task: Task) -> None:
        if task.from_pixels:
            raise SystemCannotAnswer(f"system: hf: models read text only and {task.name} shows the cartoon as an "
                                     "image; use vlm:<model> (or clip:<model> for matching/ranking)")

    def choose(self, task: Task, instances: list[Instance]) -> list[Output]:
        import numpy as np

        self._check(task)
        if self.mc_mode == "generate":
            return self.generate(task, instances)
        scores = self.loglikelihood([(self.choice_context(i), [f" {x}" for x in i.letters]) for i in instances])
        return [Output(raw={"loglikelihoods": {x: round(s, 6) for x, s in zip(inst.letters, lls, strict=True)}},
                       letter=inst.letters[int(np.argmax(lls))])
                for inst, lls in zip(instances, scores, strict=True)]

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        """Text for each instance, generated in batches of similar prompt length; returned in the order given.

        With the decoding key `samples` n > 1 (generation tasks), each prompt is generated n times, as n rows of
        its batch (upstream's `[prompt] * num_generation`, `finetuning/save_results.py` L78), and its answer is
        the list of the n texts."""
        self._check(task)
        decoding = self.decoding(task)
        n = int(decoding.get("samples") or 1) if task.kind == "generation" else 1
        upstream = n > 1 and float(decoding.get("temperature") or 0.0) > 0  # Zhang's runs: see `sent_settings`
        config = generation_config(self.model, self.tokenizer, decoding, compiled=self.compiled,
                                   from_checkpoint=upstream)
        if upstream and not self._seeded_run:
            seed_run(int(decoding.get("seed", 0)))
            self._seeded_run = True
        prompts = [self.prompt(i) for i in instances]
        plain = [not self.chat or not i.chat for i in instances]  # the template writes BOS; plain text needs it
        encoded: list[list[int]] = [[] for _ in instances]
        for flag in set(plain):
            ks = [k for k, p in enumerate(plain) if p == flag]
            for k, row in zip(ks, self.tokenizer([prompts[k] for k in ks], add_special_tokens=flag)["input_ids"],
                              strict=True):
                encoded[k] = row
        owners = [k for k in range(len(instances)) for _ in range(n)]  # row -> instance
        ids = [encoded[k] for k in owners]
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))  # stable: equal lengths keep their order
        texts: list[str] = [""] * len(ids)
        start = 0
        while start < len(order):
            size = self.fixed_batch or auto_batch_size(self.model, len(ids[order[start]]) + config.max_new_tokens)
            chunk = order[start:start + size]
            start += size
            if not upstream:
                seed_batch(decoding, [instances[owners[i]] for i in chunk])
            for i, text in zip(chunk, self._generate_batch([ids[i] for i in chunk], config), strict=True):
                texts[i] = text
        if n == 1:
            return [Output(raw=t) for t in texts]
        return [Output(raw=texts[k * n:(k + 1) * n]) for k in range(len(instances))]

    def _generate_batch(self, prompts: list[list[int]], config: Any) -> list[str]:
        """One left-padded `generate` call; the new tokens decoded, and counted up to each sequence's end."""
        import torch

        width = max(map(len, prompts))
        if self.compiled:
            width = -(-width // PAD_MULTIPLE) * PAD_MULTIPLE
        ids = torch.full((len(prompts), width), self.tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for b, prompt in enumerate(prompts):
            ids[b, width - len(prompt):] = torch.tensor(prompt)
            mask[b, width - len(prompt):] = 1
        with torch.inference_mode():
            out = self.model.generate(input_ids=ids.to(self.model.device), attention_mask=mask.to(self.model.device),
                                      generation_config=config)
        new = out[:, width:]
        eos = config.eos_token_id if isinstance(config.eos_token_id, list) else [config.eos_token_id]
        ended = torch.isin(new, torch.tensor([e for e in eos if e is not None], device=new.device))
        lengths = torch.where(ended.any(-1), ended.int().argmax(-1) + 1, new.shape[1])
        self.generated_tokens += int(lengths.sum())
        return self.tokenizer.batch_decode(new, skip_special_tokens=True)

    def effective(self, task: Task) -> dict[str, Any]:
        if task.kind == "choice" and self.mc_mode != "generate":
            return {"answer_by": "log-likelihood of each letter"}
        decoding = self.decoding(task)
        if task.kind != "generation":  # `samples` applies to generation tasks only (see `generate`)
            decoding = {**decoding, "samples": None}
        return {"request": sent_settings(decoding), "answer_by": "generation",
                "dtype": str(self.model.dtype).removeprefix("torch.")}

    def describe(self) -> dict[str, Any]:
        scoring = f"sum log p(' <letter>' | prompt + {ANSWER_PREFIX!r})" if self.mc_mode == "loglikelihood" \
            else "generate, then parse"
        return {**super().describe(), "mc_mode": self.mc_mode,
                "choice_scoring": scoring, "chat_template": self.chat, "batch_size": self.fixed_batch or "auto",
                "kv_cache": "static" if self.compiled else "dynamic", "compile": self.compiled}
