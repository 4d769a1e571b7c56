"""`hf:<model>`: a transformers causal LM; letters by log-likelihood (lm-evaluation-harness style), text by generation.

Chat template. `--system-option chat_template=auto|none|NAME` picks it (lm-evaluation-harness's
`--apply_chat_template`): `auto` (the default) the tokenizer's own template when it has one, `none` plain text,
NAME one of the tokenizer's named templates; the record's `effective` and the model description name it.

Choice scoring. The context is the prompt with the chat template applied and the assistant turn opened, then
"Answer:" as the start of the reply; without a chat template it is the plain prompt, which already ends in
"Answer:" (the task prompts do). The continuation is " " + letter. So a letter is always scored as " A" right
after "Answer:", the form the instructions ask for ("Answer: C"), with or without a template. As in the harness,
a continuation's tokens are those of the tokenized context+continuation past the context's own tokens, and a
letter's score is the sum of their log-probabilities; the argmax wins (ties: the earlier letter).

Batching. Every distinct input (context plus all but the last continuation token) is one row: when each letter
is one token, all letters share the context's row, so a prompt costs one forward pass. Requests are tokenized a
piece at a time (FIRST_PIECE requests, then about PIECE_TOKENS row tokens), each piece's batches queued on the GPU
before the next piece is tokenized, so tokenizing overlaps the forward passes. Within a piece rows go longest first
in batches of about SCORE_TOKENS tokens (fewer when free GPU memory says so; `batch_size` fixes the rows instead).
Rows are right-padded and run through the decoder with no attention mask: a causal model's real tokens never
see the padding after them, so attention stays on the fused causal kernel. The head is applied only to the
hidden states of the positions that predict a continuation token. A model whose decoder and head cannot be
called apart, or whose own logits differ from decoder + head (logit scales, soft caps: checked once on the
first row), is scored through its own forward instead: left-padded with position ids and `logits_to_keep`
(right-padded when its forward takes no position ids). `compile=true`, when given (not by default), compiles the
decoder once with dynamic shapes, after COMPILE_AFTER_ROWS rows (a short task never waits for compilation).
No KV cache is built for scoring, batches are queued without waiting on the GPU (inputs copied from pinned
memory), and the log-probabilities are read back once per call.

Generation. With `batching=continuous` the prompts go to transformers' continuous batching (`generate_batch`:
paged KV cache, finished sequences replaced by waiting ones, so no row idles to the longest); a failed request
falls back to static batches, never an empty answer. Sampled text there is seeded once per call, but which
requests share a step depends on timing, so it is not reproducible. It is not the default: on an H100 with
transformers 5.17 it was far slower than static batches. By default (`batching=auto` = `static`) prompts are
sorted by length
(longest first, so a batch that does not fit fails first) and generated `batch_size` at a time, or as many as
fit in free GPU memory (`batch_size=auto`, the default on CUDA); outputs come back in the order given.
`compile=true` (the default on CUDA, for models transformers can compile) uses a static KV cache that
`generate` compiles, with prompts padded to a multiple of PAD_MULTIPLE so a few shapes cover a run; a
grouped-query model then decodes through `grouped_attention.grouped_decode_sdpa` (the cache read once per KV head,
not copied per query head; `grouped_attention=false` keeps transformers' `sdpa`). Sampled text is
reproducible for the same batches: each batch is seeded from its instance ids.
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from ..kinds import Instance
from ..progress import bar, progress_shown
from ..tasks import Task
from .api import to_messages
from .base import Output, SystemCannotAnswer
from .grouped_attention import use_grouped_decoding
from .hf import (
    ModelRef,
    PretrainedSystem,
    auto_batch_size,
    batch_option,
    can_compile,
    flag_option,
    free_memory,
    generation_config,
    load_pretrained,
    max_new_tokens,
    on_cuda,
    runner_chunk,
    seed_batch,
    seed_run,
    sent_settings,
)
from .registry import register_system

if TYPE_CHECKING:
    from collections.abc import Iterator

ANSWER_PREFIX = "Answer:"
MC_MODES = ("loglikelihood", "generate")
PAD_MULTIPLE = 64  # compiled generation: prompt widths rounded up to this, so few shapes are compiled
SCORE_TOKENS = 65536  # tokens (padding included) in one scoring forward pass: wide enough to keep the GPU busy
FIRST_PIECE = 32  # requests tokenized before the first batch is queued (the GPU waits only for these)
PIECE_TOKENS = 2 * SCORE_TOKENS  # then about this many row tokens a piece: two batches queued while the next piece
# is tokenized
SCORE_MULTIPLE = 8  # scoring widths rounded up to this (tensor-core friendly shapes)
COMPILE_AFTER_ROWS = 1024  # compile=true: the scoring decoder is compiled once this many rows were scored eagerly
BATCHINGS = ("auto", "continuous", "static")  # auto: static


def chat_templates(tokenizer: Any) -> dict[str, str]:
    """The tokenizer's chat templates by name (a single template is named `default`, as transformers names it)."""
    found = tokenizer.chat_template
    if isinstance(found, dict):
        return dict(found)
    return {} if found is None else {"default": found}


def pick_chat_template(tokenizer: Any, choice: str) -> tuple[str | None, str | None]:
    """(name, template) for the option `chat_template=auto|none|NAME` (lm-evaluation-harness's
    `--apply_chat_template [NAME]`): `auto` the model's default template if it has one, else plain text; `none`
    always plain text; NAME one of the tokenizer's named templates. (None, None) means plain text."""
    if not isinstance(choice, str) or not choice.strip():
        raise ValueError(f"system: chat_template must be auto, none or a template name, got {choice!r}")
    templates = chat_templates(tokenizer)
    names = ", ".join(sorted(templates)) or "none (the tokenizer has no chat template)"
    if choice == "none":
        return None, None
    if choice == "auto":
        if not templates:
            return None, None
        if "default" not in templates:
            raise ValueError(f"system: chat_template=auto: the model has several chat templates and no default "
                             f"({names}); pass --system-option chat_template=NAME")
        return "default", templates["default"]
    if choice not in templates:
        raise ValueError(f"system: chat_template={choice!r} is not a template of this model; use auto, none or "
                         f"one of its templates: {names}")
    return choice, templates[choice]


def token_ids(tokenizer: Any, texts: list[str], add_special_tokens: bool) -> list[list[int]]:
    """`tokenizer(texts)["input_ids"]`, through the Rust backend's batch encoder when the tokenizer is a plain fast
    one: the same ids without building offsets, masks and a Python dict per text, which was most of the CPU time of
    scoring 700-token prompts. The backend is used only when the tokenizer's class adds no Python-side step and its
    ids for the first texts equal the regular call's (which also resets the backend's truncation and padding)."""
    from transformers import PreTrainedTokenizerBase

    head = tokenizer(texts[:4], add_special_tokens=add_special_tokens)["input_ids"]
    backend = getattr(tokenizer, "_tokenizer", None)
    cls = type(tokenizer)
    plain = (getattr(tokenizer, "is_fast", False) and hasattr(backend, "encode_batch_fast")
             and cls.__call__ is PreTrainedTokenizerBase.__call__
             and getattr(cls._encode_plus, "__qualname__", "") == "TokenizersBackend._encode_plus"
             and backend.truncation is None and backend.padding is None)
    if len(texts) <= len(head):
        return head
    if plain:
        encoded = [e.ids for e in backend.encode_batch_fast(texts, add_special_tokens=add_special_tokens)]
        if encoded[:len(head)] == head:
            return encoded
    return tokenizer(texts, add_special_tokens=add_special_tokens)["input_ids"]


def plain_choice_context(text: str) -> str:
    """A plain-text prompt (no chat template) as the letters are scored after it: ending in "Answer:" (the
    lm-evaluation-harness export sends the same text, `nycc_bench.lmeval`)."""
    return text if text.endswith(ANSWER_PREFIX) else f"{text}\n{ANSWER_PREFIX}"


def generation_settings(decoding: dict[str, Any], n: int) -> dict[str, Any]:
    """A task's decoding as a serving engine takes it (vLLM's `SamplingParams`, the completions API's fields), with
    n samples per prompt: what `vllm-server:` and `vllm:` send and record."""
    temperature = float(decoding.get("temperature") or 0.0)
    settings: dict[str, Any] = {"n": n, "temperature": temperature, "max_tokens": max_new_tokens(decoding)}
    if temperature > 0:
        settings["seed"] = int(decoding.get("seed") or 0)
        if decoding.get("top_p") is not None:
            settings["top_p"] = float(decoding["top_p"])
    if decoding.get("repetition_penalty") not in (None, 1.0):
        settings["repetition_penalty"] = float(decoding["repetition_penalty"])
    return settings


def mc_mode_option(mc_mode: str) -> str:
    """The `mc_mode` system option, checked: letters by log-likelihood, or by generating an answer and parsing it."""
    if mc_mode not in MC_MODES:
        raise ValueError(f"system: mc_mode must be one of {', '.join(MC_MODES)}, got {mc_mode!r}")
    return mc_mode


class RunsAsHF:
    """What a kind that runs a Hugging Face causal LM as `hf:` does, on another engine (`vllm-server:`, `vllm:`),
    declares like `hf:`: it reads the cartoon's description, and takes `hf:`'s upstream settings where a task has them
    per kind. Listed first among the bases, so these win over `System`'s defaults."""

    inputs: ClassVar[frozenset[str]] = frozenset({"description"})
    settings_kind: ClassVar[str] = "hf"


class ChoicePrompts:
    """What `hf:`'s letters are scored on, from a tokenizer and a chat template alone: the prompt text, the context
    ending in "Answer:", and each continuation's tokens (lm-evaluation-harness's rule). `vllm-server:` shares it, so a
    served model is asked about exactly the tokens `hf:` scores in-process."""

    tokenizer: Any
    template_name: str | None
    template: str | None
    chat: bool
    system_kind: ClassVar[str]

    def use_tokenizer(self, tokenizer: Any, chat_template: str, spec: str) -> None:
        """Keep `tokenizer` (a pad token set from eos when it has none) and the chat template the option picks."""
        if tokenizer.pad_token is None:
            if tokenizer.eos_token is None:
                raise ValueError(f"system: the tokenizer of {spec!r} has neither a pad nor an eos token")
            tokenizer.pad_token = tokenizer.eos_token
        self.tokenizer = tokenizer
        self.template_name, self.template = pick_chat_template(tokenizer, chat_template)
        self.chat = self.template is not None

    def text_only(self, task: Task) -> None:
        """Refuse a task that shows the cartoon as an image: these models read text."""
        if task.from_pixels:
            raise SystemCannotAnswer(f"system: {self.system_kind}: models read text only and {task.name} shows the "
                                     "cartoon as an image; use vlm:<model> (or clip:<model> for matching/ranking)")

    @staticmethod
    def choices(instances: list[Instance], scores: list[list[float]]) -> list[Output]:
        """Each instance's letter with the highest log-likelihood (ties: the earlier letter), and every letter's."""
        return [Output(raw={"loglikelihoods": {x: round(s, 6) for x, s in zip(inst.letters, lls, strict=True)}},
                       letter=inst.letters[max(range(len(lls)), key=lambda k: (lls[k], -k))])
                for inst, lls in zip(instances, scores, strict=True)]

    def choice_requests(self, instances: list[Instance]) -> list[tuple[str, list[str]]]:
        """(context, continuations) of each instance: the context ends in "Answer:", a continuation is " " + letter."""
        return [(self.choice_context(i), [f" {x}" for x in i.letters]) for i in instances]

    # ---- prompts -------------------------------------------------------------------------------------------------
    def prompt(self, inst: Instance) -> str:
        """The instance as model input text: chat template with the assistant turn opened, else plain text (also
        for an instance that upstream sent as plain text, `Instance.chat` False)."""
        if not self.chat or not inst.chat:
            return inst.text()
        from jinja2 import TemplateError

        messages = to_messages(replace(inst, image=None))
        try:
            return self.tokenizer.apply_chat_template(messages, chat_template=self.template, tokenize=False,
                                                      add_generation_prompt=True)
        except TemplateError:  # templates without a system role (Gemma, early Mistral): fold it into the user turn
            if not inst.system:
                raise
            merged = replace(inst, system=None, image=None, user=f"{inst.system}\n\n{inst.user}")
            return self.tokenizer.apply_chat_template(to_messages(merged), chat_template=self.template, tokenize=False,
                                                      add_generation_prompt=True)

    def choice_context(self, inst: Instance) -> str:
        """The text the letters are scored after; it always ends in "Answer:" (see the module docstring)."""
        text = self.prompt(inst)
        return text + ANSWER_PREFIX if self.chat else plain_choice_context(text)

    def continuations(self, requests: list[tuple[str, list[str]]], add: bool
                      ) -> list[list[tuple[list[int], list[int]]]]:
        """(context tokens, continuation tokens) of each continuation of each request: continuation tokens are those
        of the tokenized context + continuation past the context's own tokens (lm-evaluation-harness's rule)."""
        contexts = token_ids(self.tokenizer, [c for c, _ in requests], add)
        wholes = iter(token_ids(self.tokenizer, [c + x for c, xs in requests for x in xs], add))
        out: list[list[tuple[list[int], list[int]]]] = []
        for (_, continuations), ctx in zip(requests, contexts, strict=True):
            pairs = []
            for continuation in continuations:
                targets = next(wholes)[len(ctx):]
                if not targets:
                    raise ValueError(f"system: continuation {continuation!r} adds no token to its context")
                pairs.append((ctx, targets))
            out.append(pairs)
        return out


@register_system("hf", form="hf:<model>[@revision]", decoding=True, hub_model=True,
                 help="a transformers causal LM (e.g. hf:Qwen/Qwen2.5-0.5B-Instruct): letters by log-likelihood "
                      "(batched), text by generation with the chat template and the task's decoding (Zhang caption "
                      "generation: upstream's plain-text prompt, no template, 10 samples); device_map=auto and bf16 "
                      "on GPUs")
class CausalLMSystem(PretrainedSystem, ChoicePrompts):
    """A causal LM on one device or spread over the GPUs (`device_map="auto"`); see the module docstring."""

    inputs = frozenset({"description"})

    def __init__(self, ref: ModelRef, batch_size: int | str | None = None, device: str | None = None,
                 dtype: str | None = None, mc_mode: str = "loglikelihood", compile: bool | str | None = None,
                 trust_remote_code: bool = False, chat_template: str = "auto", batching: str = "auto",
                 grouped_attention: bool | str | None = None) -> None:
        mc_mode_option(mc_mode)
        if batching not in BATCHINGS:
            raise ValueError(f"system: batching must be one of {', '.join(BATCHINGS)}, got {batching!r}")
        batch_option(batch_size, cuda=True)  # a bad value is named before any loading
        flag_option("compile", compile, False)
        flag_option("grouped_attention", grouped_attention, False)
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.ref, self.spec = ref, ref.spec
        self.mc_mode = mc_mode
        tokenizer, self.model, self.revision = load_pretrained(ref, AutoModelForCausalLM, AutoTokenizer, device, dtype,
                                                               trust_remote_code)
        self.use_tokenizer(tokenizer, chat_template, ref.spec)
        self.tokenizer.padding_side = "left"  # for generation; scoring pads by itself
        params = inspect.signature(self.model.forward).parameters
        self._left = "position_ids" in params
        self._keep = self._left and "logits_to_keep" in params
        cuda = on_cuda(self.model)
        self.fixed_batch = batch_option(batch_size, cuda)  # None: sized from free GPU memory per batch
        self.batch_size = runner_chunk(self.fixed_batch)  # what the runner hands over at a time
        self.compiled = flag_option("compile", compile, cuda) and can_compile(self.model)
        # scoring through a compiled decoder: only when compile=true is asked for (unmeasured at scale on a GPU yet)
        self.compile_scoring = compile is not None and self.compiled
        # continuous batching only when asked for: on the H100 (transformers 5.17) it did not finish 640 prompts in
        # 150 s where static batches take 30 s (benchmarks/results/gpu-h100-2026-11-27.txt)
        self.continuous = hasattr(self.model, "generate_batch") and batching == "continuous"
        # the compiled decoding step reads a grouped-query model's KV cache once, not once per query head
        if flag_option("grouped_attention", grouped_attention, self.compiled):
            use_grouped_decoding(self.model)  # describe() names the attention the model ends up with
        self._scorer: Any = None  # (decoder, head, soft cap) once checked; False: score through the model's forward
        self._rows_scored = 0  # rows scored so far (the decoder is compiled after COMPILE_AFTER_ROWS)
        self._compile_tried = False
        self._seeded_run = False  # `seed_run` is called once, before this system's first upstream-style generation
        self.generated_tokens = 0  # new tokens generated so far, up to each sequence's end (throughput figures)

    # ---- log-likelihood ---------------------------------------------------------------------------------------
    def loglikelihood(self, requests: list[tuple[str, list[str]]], add_special_tokens: bool | None = None
                      ) -> list[list[float]]:
        """log p(continuation | context) for each context and each of its continuations, batched.

        `add_special_tokens` defaults to False with a chat template (the template writes BOS) and True without.
        """
        import torch

        add = (not self.chat) if add_special_tokens is None else add_special_tokens
        free = None if self.fixed_batch or not on_cuda(self.model) else free_memory(self.model)
        owners: list[tuple[int, int]] = []  # (request, continuation) of each target token, as the values come back
        values: list[Any] = []  # per batch: the targets' log-probs, on the device
        start, size = 0, FIRST_PIECE
        while start < len(requests):  # a piece is tokenized while the GPU runs the batches queued before it
            piece = requests[start:start + size]
            rows, items = self._rows(piece, add)
            self._queue_rows(rows, items, free, owners, values, offset=start)
            start += len(piece)
            size = max(1, int(PIECE_TOKENS * len(piece) / sum(map(len, rows))))  # row tokens a request: measured
        out: list[list[float]] = [[0.0] * len(xs) for _, xs in requests]
        for (i, j), value in zip(owners, torch.cat(values).tolist() if values else [], strict=True):
            out[i][j] += value
        return out

    def _rows(self, requests: list[tuple[str, list[str]]], add: bool
              ) -> tuple[list[tuple[int, ...]], list[tuple[int, int, int, list[int]]]]:
        """The distinct rows (context + all but the last continuation token) of `requests` and their items
        (request, continuation, row, continuation tokens), from `continuations`."""
        rows: dict[tuple[int, ...], int] = {}
        items: list[tuple[int, int, int, list[int]]] = []
        for i, pairs in enumerate(self.continuations(requests, add)):
            for j, (ctx, targets) in enumerate(pairs):
                items.append((i, j, rows.setdefault((*ctx, *targets[:-1]), len(rows)), targets))
        return list(rows), items

    def _queue_rows(self, rows: list[tuple[int, ...]], items: list[tuple[int, int, int, list[int]]],
                    free: int | None, owners: list[tuple[int, int]], values: list[Any], offset: int) -> None:
        """Queue the rows through the model longest first, a batch at a time, without waiting for the GPU: each
        target token's log-prob is appended to `values` (on the device) and its (request + offset, continuation)
        to `owners`; the caller reads them all back once."""
        import torch

        by_row: list[list[int]] = [[] for _ in rows]
        for k, (_, _, row, _) in enumerate(items):
            by_row[row].append(k)
        order = sorted(range(len(rows)), key=lambda r: -len(rows[r]))
        start = 0
        while start < len(order):
            chunk = order[start:start + self._rows_per_batch(len(rows[order[start]]), free)]
            start += len(chunk)
            seqs = [rows[r] for r in chunk]
            fast = self._fast_scorer(seqs[0])
            self._rows_scored += len(seqs)
            picks: list[tuple[int, int]] = []  # (batch row, row position that predicts the target)
            targets: list[int] = []
            for b, r in enumerate(chunk):
                for k in by_row[r]:
                    i, j, _, toks = items[k]
                    first = len(rows[r]) - len(toks)  # the row position that predicts toks[0]
                    picks += [(b, first + t) for t in range(len(toks))]
                    targets += toks
                    owners += [(offset + i, j)] * len(toks)
            if fast:
                logits = self._decoder_logits(seqs, picks)
            else:
                keep = max(len(items[k][3]) for r in chunk for k in by_row[r])
                full, offsets = self._forward(seqs, keep)
                logits = full[[b for b, _ in picks], [p + offsets[b] for b, p in picks]]
            logprobs = logits.float().log_softmax(-1)
            index = self._to_device(torch.tensor(targets, dtype=torch.long)[:, None])
            values.append(logprobs.gather(-1, index)[:, 0])

    def _rows_per_batch(self, width: int, free: int | None) -> int:
        """Rows in the next scoring batch: `batch_size` when fixed, else SCORE_TOKENS tokens' worth of rows of this
        width, fewer when the free GPU memory measured for this call holds fewer."""
        if self.fixed_batch:
            return self.fixed_batch
        width = -(-width // SCORE_MULTIPLE) * SCORE_MULTIPLE
        rows = max(1, SCORE_TOKENS // width)
        if free is not None:
            rows = min(rows, auto_batch_size(self.model, width, cache=False, free=free))
        return max(1, rows)

    def _to_device(self, tensor: Any) -> Any:
        """A CPU tensor on the model's device without waiting for the GPU (pinned memory, asynchronous copy)."""
        if not on_cuda(self.model):
            return tensor
        return tensor.pin_memory().to(self.model.device, non_blocking=True)

    def _fast_scorer(self, probe: tuple[int, ...]) -> bool:
        """Whether rows can go through decoder + head (see the module docstring): decided once, on `probe`, by
        comparing with the model's own forward. With `compile=true` given on CUDA, once COMPILE_AFTER_ROWS rows have
        been scored the decoder is compiled (dynamic shapes) and checked the same way, so a short task never
        waits for a compilation; a compile that fails or disagrees leaves the eager decoder, with a warning."""
        if self._scorer is None:
            self._scorer = self._decoder_head(probe, compiled=False)
        elif (self._scorer and self.compile_scoring and not self._compile_tried and on_cuda(self.model)
              and self._rows_scored >= COMPILE_AFTER_ROWS):
            self._compile_tried = True
            eager = self._scorer
            self._scorer = self._decoder_head(probe, compiled=True) or eager
        return bool(self._scorer)

    def _decoder_head(self, probe: tuple[int, ...], compiled: bool) -> Any:
        """(decoder, head, soft cap) when decoder + head give the model's own log-probabilities on `probe`, else
        False; `compiled`: the decoder through `torch.compile`."""
        import warnings

        import torch

        get_decoder = getattr(self.model, "get_decoder", None)
        decoder = get_decoder() if callable(get_decoder) else None
        head = self.model.get_output_embeddings()
        config = self.model.config.get_text_config() if hasattr(self.model.config, "get_text_config") \
            else self.model.config
        if decoder is None or decoder is self.model or head is None or getattr(config, "logit_scale", None):
            return False
        saved, self._scorer = self._scorer, (torch.compile(decoder, dynamic=True) if compiled else decoder, head,
                                             getattr(config, "final_logit_softcapping", None))
        try:
            with torch.inference_mode():
                ids = torch.tensor([probe], device=self.model.device)
                own = self.model(input_ids=ids, use_cache=False).logits[0].float().log_softmax(-1)
                ours = self._decoder_logits([probe], [(0, p) for p in range(len(probe))]).float().log_softmax(-1)
                gap = float((ours - own).abs().max())
        except Exception as err:  # e.g. a compilation the backend cannot do
            warnings.warn(f"hf: scoring through {'the compiled' if compiled else 'the'} decoder failed "
                          f"({type(err).__name__}: {str(err)[:200]}); scoring through the model's forward"
                          + (" (eager decoder)" if compiled else ""), stacklevel=3)
            gap = float("inf")
        checked, self._scorer = self._scorer, saved
        return checked if gap <= (1e-3 if self.model.dtype == torch.float32 else 0.25) else False

    def _decoder_logits(self, seqs: list[tuple[int, ...]], picks: list[tuple[int, int]]) -> Any:
        """Logits at `picks` (batch row, position) of right-padded rows run through the decoder with no mask."""
        import numpy as np
        import torch

        decoder, head, cap = self._scorer
        width = -(-max(map(len, seqs)) // SCORE_MULTIPLE) * SCORE_MULTIPLE
        ids = np.full((len(seqs), width), self.tokenizer.pad_token_id, dtype=np.int64)
        for b, seq in enumerate(seqs):
            ids[b, :len(seq)] = seq
        rows = self._to_device(torch.tensor([b for b, _ in picks], dtype=torch.long))
        cols = self._to_device(torch.tensor([p for _, p in picks], dtype=torch.long))
        with torch.inference_mode():
            hidden = decoder(input_ids=self._to_device(torch.from_numpy(ids)), use_cache=False).last_hidden_state
            logits = head(hidden[rows, cols])
        if cap:
            logits = torch.tanh(logits / cap) * cap
        return logits

    def _forward(self, seqs: list[tuple[int, ...]], keep: int) -> tuple[Any, list[int]]:
        """Logits of a padded batch through the model's own forward and, per row, the offset from a row position
        to its index in those logits (the path for models `_check_decoder_head` refuses)."""
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
            kwargs["position_ids"] = self._to_device((mask.cumsum(-1) - 1).clamp(min=0))
        if self._keep:
            kwargs["logits_to_keep"] = keep
        with torch.inference_mode():
            logits = self.model(input_ids=self._to_device(ids), attention_mask=self._to_device(mask),
                                use_cache=False, **kwargs).logits
        if not self._left:
            return logits, [0] * len(seqs)
        # left-padded: row position p sits at column width - len + p; the logits hold the last `kept` columns
        kept = logits.shape[1]
        return logits, [kept - len(seq) for seq in seqs]

    # ---- the System interface ---------------------------------------------------------------------------------
    def choose(self, task: Task, instances: list[Instance]) -> list[Output]:
        self.text_only(task)
        if self.mc_mode == "generate":
            return self.generate(task, instances)
        return self.choices(instances, self.loglikelihood(self.choice_requests(instances)))

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        """Text for each instance, generated in batches of similar prompt length; returned in the order given.

        With the decoding key `samples` n > 1 (generation tasks), each prompt is generated n times, as n rows of
        its batch (upstream's `[prompt] * num_generation`, `finetuning/save_results.py` L78), and its answer is
        the list of the n texts."""
        self.text_only(task)
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
        if self.continuous:
            try:
                seed_batch(decoding, instances)
                texts = self._generate_continuous(ids, config)
            except Exception as err:  # e.g. a model transformers cannot page: static batches from now on
                import warnings

                warnings.warn(f"hf: continuous batching failed ({type(err).__name__}: {str(err)[:200]}); "
                              "generating in static batches from now on", stacklevel=2)
                self.continuous = False
            else:
                if n == 1:
                    return [Output(raw=t) for t in texts]
                return [Output(raw=texts[k * n:(k + 1) * n]) for k in range(len(instances))]
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

    def _generate_continuous(self, prompts: list[list[int]], config: Any) -> list[str]:
        """Texts of `prompts` through transformers' continuous batching, in the order given; a request that failed or
        did not come back raises (it is never an empty answer)."""
        from transformers import GenerationConfig

        sampling = {"temperature": config.temperature, "top_p": config.top_p} if config.do_sample else {}
        cb = GenerationConfig(max_new_tokens=config.max_new_tokens, do_sample=config.do_sample, **sampling,
                              eos_token_id=config.eos_token_id, pad_token_id=config.pad_token_id,
                              repetition_penalty=config.repetition_penalty)
        results = self.model.generate_batch([list(p) for p in prompts], generation_config=cb,
                                            progress_bar=progress_shown())  # transformers' bar: requests done
        got = {int(key.removeprefix("req_")): value for key, value in results.items()
               if key.removeprefix("req_").isdigit()}
        failed = [k for k in range(len(prompts)) if k not in got or getattr(got[k], "error", None)]
        if failed:
            raise RuntimeError(f"hf: continuous batching returned no text for {len(failed)} of {len(prompts)} "
                               f"prompts (first: {failed[0]}); rerun with --system-option batching=static")
        tokens = [list(got[k].generated_tokens) for k in range(len(prompts))]
        self.generated_tokens += sum(map(len, tokens))
        return self.tokenizer.batch_decode(tokens, skip_special_tokens=True)

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
        with torch.inference_mode(), token_progress(len(prompts), config.max_new_tokens) as counter:
            out = self.model.generate(input_ids=ids.to(self.model.device), attention_mask=mask.to(self.model.device),
                                      generation_config=config, stopping_criteria=counter)
        new = out[:, width:]
        eos = config.eos_token_id if isinstance(config.eos_token_id, list) else [config.eos_token_id]
        ended = torch.isin(new, torch.tensor([e for e in eos if e is not None], device=new.device))
        lengths = torch.where(ended.any(-1), ended.int().argmax(-1) + 1, new.shape[1])
        self.generated_tokens += int(lengths.sum())
        return self.tokenizer.batch_decode(new, skip_special_tokens=True)

    def effective(self, task: Task) -> dict[str, Any]:
        template = {"chat_template": self.template_name or "none"}
        if task.kind == "choice" and self.mc_mode != "generate":
            return {"answer_by": "log-likelihood of each letter", **template}
        decoding = self.decoding(task)
        if task.kind != "generation":  # `samples` applies to generation tasks only (see `generate`)
            decoding = {**decoding, "samples": None}
        return {"request": sent_settings(decoding), "answer_by": "generation", **template,
                "dtype": str(self.model.dtype).removeprefix("torch.")}

    def describe(self) -> dict[str, Any]:
        scoring = f"sum log p(' <letter>' | prompt + {ANSWER_PREFIX!r})" if self.mc_mode == "loglikelihood" \
            else "generate, then parse"
        return {**super().describe(), "mc_mode": self.mc_mode,
                "choice_scoring": scoring, "chat_template": self.template_name,
                "batch_size": self.fixed_batch or "auto",
                "kv_cache": "static" if self.compiled else "dynamic", "compile": self.compiled,
                "batching": "continuous" if self.continuous else "static",
                "attention": getattr(self.model.config, "_attn_implementation", None)}


@contextmanager
def token_progress(rows: int, max_new_tokens: int | None) -> Iterator[Any]:
    """A `generate` stopping criterion that stops nothing and counts decoding steps on a bar (one new token for
    each of the batch's `rows` per step), so a long generation shows its tokens as they come, not a still line."""
    from transformers import StoppingCriteria, StoppingCriteriaList

    shown = bar(max_new_tokens, f"hf: generating {rows} sequence{'s' if rows != 1 else ''}", unit="token",
                leave=False)

    class Counted(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            import torch

            shown.update(1)
            return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)

    try:
        yield StoppingCriteriaList([Counted()])
    finally:
        shown.close()
