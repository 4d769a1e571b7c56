"""Hugging Face model systems (`hf:`, `vlm:`, `clip:`): spec parsing, the one loader, placement, their base class.

A `<model>` is a local folder (used when it exists, or when it reads as a path) or a Hub id, optionally
`@revision`. A Hub revision is resolved to its commit once (huggingface_hub's `model_info`, or offline the
commit the local cache recorded) and that commit is passed to every load, so the weights, tokenizer and
processor come from the same repository state and `describe()` can record it.

On CUDA the defaults use the GPU well: `batch_size="auto"` sizes batches from free GPU memory (`auto_batch_size`)
and `compile=True` generates with a static KV cache, which transformers' `generate` compiles with `torch.compile`
(`generation_config(..., compiled=True)`). On CPU both default off (a fixed batch of 8, the dynamic cache).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from .base import System

HUB_ID = re.compile(r"^[\w.-]+(/[\w.-]+)?$")
COMMIT = re.compile(r"[0-9a-f]{40}")
DTYPES = ("auto", "float32", "float16", "bfloat16")
MAX_NEW_TOKENS = 1024  # when a task leaves the length to the provider (HumorBench's explainer)
CPU_BATCH_SIZE = 8  # `batch_size="auto"` off CUDA
AUTO_MAX_BATCH = 256  # decoding past this is no longer bound by reading the weights for a ~1B model on an H200
AUTO_CHUNK = 512  # most instances the runner hands over at a time (sorted by length within them)
MEMORY_SHARE = 0.8  # of the free GPU memory, for the batch's KV cache and activations


@dataclass(frozen=True)
class ModelRef:
    """Where a model comes from: a local folder (revision None) or a Hub id and optional revision."""

    spec: str
    name: str
    revision: str | None = None
    local: bool = False


def parse_ref(kind: str, arg: str) -> ModelRef:
    """Read `<model>[@revision]`; a path that does not exist is an error here, before any Hub look-up."""
    spec = f"{kind}:{arg}"
    if os.path.isdir(os.path.expanduser(arg)):
        return ModelRef(spec, os.path.abspath(os.path.expanduser(arg)), local=True)
    name, _, revision = arg.rpartition("@") if "@" in arg else (arg, "", "")
    if not name or ("@" in arg and not revision):
        raise ValueError(f"system: cannot read {spec!r}; expected {kind}:<model>[@revision]")
    if name.startswith(("/", ".", "~")) or not HUB_ID.match(name):
        where = os.path.abspath(os.path.expanduser(name))
        reason = "is not a folder" if os.path.exists(where) else "does not exist"
        hint = " (a local folder takes no @revision)" if revision else ""
        raise ValueError(f"system: {spec!r} names no model folder: {where} {reason}{hint}")
    return ModelRef(spec, name, revision or None)


def hub_commit(name: str, revision: str | None) -> str | None:
    """The commit a Hub model revision points to: asked of the Hub, else read from the local cache; None if neither.

    Any failure falls through (as transformers' own resolution does): the load that follows names the real error.
    """
    from huggingface_hub import HfApi, constants, snapshot_download

    if not constants.HF_HUB_OFFLINE:
        with contextlib.suppress(Exception):  # unknown id, gated, no network: the cache or the load decides
            return HfApi().model_info(name, revision=revision).sha
    try:  # the snapshot folder of a cached revision is named by its commit
        return Path(snapshot_download(name, revision=revision, local_files_only=True)).name
    except Exception:  # not in the cache
        return None


def resolve(ref: ModelRef) -> tuple[str | None, str]:
    """(revision to load, what to record): the Hub commit when it can be resolved, else the local path.

    Offline and uncached, a Hub revision does not resolve; the requested revision (or "main") is recorded then,
    marked, and passed on to the load as asked.
    """
    if ref.local:
        return None, ref.name
    commit = ref.revision if ref.revision and COMMIT.fullmatch(ref.revision) else hub_commit(ref.name, ref.revision)
    if commit is not None and COMMIT.fullmatch(commit):
        return commit, commit
    return ref.revision, f"{ref.revision or 'main'} (unresolved)"


def placement(device: str | None, dtype: str | None) -> tuple[str, Any]:
    """(device_map, torch dtype): `auto` over the GPUs in bf16 (fp16 without bf16) when CUDA is there, else fp32 CPU.

    `dtype` is one of DTYPES; "auto" keeps the checkpoint's dtype. `device` is any device map transformers takes
    ("cpu", "cuda:1", "auto").
    """
    import torch

    cuda = torch.cuda.is_available()
    device_map = device or ("auto" if cuda else "cpu")
    if dtype is None:
        if not (cuda and (device_map == "auto" or device_map.startswith("cuda"))):
            return device_map, torch.float32
        return device_map, torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if dtype not in DTYPES:
        raise ValueError(f"system: dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    return device_map, dtype if dtype == "auto" else getattr(torch, dtype)


REMOTE_CODE_ENV = "NYCC_LB_ALLOW_REMOTE_CODE"


def safe_loading(what: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Loader arguments that never run a repo's code unasked: model weights from safetensors only (a pickled
    `.bin` can run code when loaded), `trust_remote_code` only when the operator set NYCC_LB_ALLOW_REMOTE_CODE."""
    if kwargs.get("trust_remote_code") and os.environ.get(REMOTE_CODE_ENV, "").strip().lower() not in (
            "1", "true", "yes", "on"):
        raise ValueError(f"system: trust_remote_code runs the model repo's own Python code; set {REMOTE_CODE_ENV}=1 "
                         "to allow it, or use a model transformers supports natively")
    return {**kwargs, "use_safetensors": True} if what == "model" else kwargs


def load(ref: ModelRef, what: str, loader: Callable[..., Any], revision: str | None, **kwargs: Any) -> Any:
    """`loader.from_pretrained` (safely: `safe_loading`), with any failure (missing files, unknown id, offline)
    one line naming the spec.

    A Hub id is checked first with one quick request (`hub_check`): an unknown id or an unreachable Hub fails in
    seconds instead of after the loaders' retries, and a cached model loads from the cache when offline.
    """
    from ..errors import NyccBenchError
    from .hub_check import check_hub_model

    kwargs = safe_loading(what, kwargs)
    if not ref.local and check_hub_model(ref.spec, ref.name, revision):
        kwargs = {**kwargs, "local_files_only": True}
    try:
        return loader(ref.name, revision=revision, **kwargs)
    except (OSError, ValueError, KeyError) as err:
        source = f"folder {ref.name}" if ref.local else f"Hub id {ref.name!r}" + (
            f" at revision {ref.revision!r}" if ref.revision else "")
        reason = " ".join(str(err).split())[:300]
        raise NyccBenchError(f"system: cannot load the {what} of {ref.spec!r} from {source}: {reason}; check the "
                             "id, or HF_ENDPOINT / HF_HUB_OFFLINE") from None


class Pretrained(NamedTuple):
    """A loaded model with its tokenizer or processor, and the revision to record (`resolve`)."""

    processor: Any
    model: Any
    revision: str


def load_pretrained(ref: ModelRef, model_class: Any, processor_class: Any, device: str | None = None,
                    dtype: str | None = None, trust_remote_code: bool = False,
                    check_processor: Callable[[Any], None] | None = None) -> Pretrained:
    """The tokenizer or processor (`processor_class`) and the model (`model_class`, in eval mode) of `ref`, both
    from the one revision `resolve` gives, placed by `placement`, loaded by `load` (safetensors only, a repo's code
    only when the operator allows it). `check_processor` may refuse the processor before the weights load."""
    from ..progress import stages

    what = "tokenizer" if "Tokenizer" in processor_class.__name__ else "processor"
    # a step bar (downloads and sharded checkpoints add their own byte and shard bars): no silent minutes
    with stages(["revision", what, "weights"], f"load {ref.spec}") as shown:
        shown.step("resolve the revision")
        revision, recorded = resolve(ref)
        device_map, torch_dtype = placement(device, dtype)
        shown.step(f"load the {what}")
        processor = load(ref, what, processor_class.from_pretrained, revision, trust_remote_code=trust_remote_code)
        if check_processor is not None:
            check_processor(processor)
        shown.step("load the weights")
        model = load(ref, "model", model_class.from_pretrained, revision, dtype=torch_dtype, device_map=device_map,
                     trust_remote_code=trust_remote_code).eval()
    return Pretrained(processor, model, recorded)


def placed(model: Any) -> dict[str, Any]:
    """The dtype, device(s) and parameter count of a loaded model, for `describe()` (and the results record)."""
    devices = sorted({str(p.device) for p in model.parameters()})
    return {"dtype": str(model.dtype).removeprefix("torch."), "device": ",".join(devices),
            "parameters": sum(p.numel() for p in model.parameters())}


def on_cuda(model: Any) -> bool:
    """Whether the model's (first) parameters sit on a CUDA device."""
    return model.device.type == "cuda"


def can_compile(model: Any) -> bool:
    """Whether transformers compiles this model's decoding step: a static cache is supported and the model is whole
    on accelerators (no CPU or disk offload)."""
    devices = {str(d) for d in getattr(model, "hf_device_map", {}).values()}
    offloaded = "disk" in devices or ("cpu" in devices and len(devices) > 1)
    return bool(getattr(model, "_can_compile_fullgraph", False)) and not offloaded


def generation_config(model: Any, tokenizer: Any, decoding: dict[str, Any], compiled: bool = False,
                      from_checkpoint: bool = False) -> Any:
    """The task's decoding settings and nothing else: a fresh config, so a checkpoint's defaults do not leak in;
    or (`from_checkpoint`, Zhang's Hugging Face runs: `GenerationConfig.from_pretrained(model)` with their
    settings over it, `save_results.py` L13-23) the checkpoint's own config, so its defaults such as `top_k` stay.

    Temperature 0 (or none) is greedy; above 0 it samples with the given top-p and repetition penalty.
    `compiled`: a static KV cache, whose decoding step `generate` compiles on an accelerator (CUDA graphs);
    otherwise the dynamic cache and no compilation.
    """
    import copy

    from transformers import GenerationConfig

    eos = model.generation_config.eos_token_id
    eos = tokenizer.eos_token_id if eos is None else eos
    pad = tokenizer.pad_token_id
    if pad is None:
        pad = eos if isinstance(eos, int) else (eos[0] if eos else 0)
    temperature = float(decoding.get("temperature") or 0.0)
    sampling = {"do_sample": True, "temperature": temperature, "top_p": float(decoding.get("top_p") or 1.0)} \
        if temperature > 0 else {"do_sample": False}
    cache = {"cache_implementation": "static"} if compiled else {"disable_compile": True}
    settings = {"max_new_tokens": max_new_tokens(decoding), **sampling, **cache,
                "repetition_penalty": float(decoding.get("repetition_penalty") or 1.0), "pad_token_id": pad}
    if from_checkpoint and getattr(model, "generation_config", None) is not None:
        config = copy.deepcopy(model.generation_config)
        config.update(**settings, **({} if config.eos_token_id is not None else {"eos_token_id": eos}))
        return config
    return GenerationConfig(**settings, eos_token_id=eos)


def sent_settings(decoding: dict[str, Any]) -> dict[str, Any]:
    """The `generate` parameters `generation_config` sets from `decoding`, in the request vocabulary of the
    record (temperature 0 is greedy; top_p and the repetition penalty only when they change anything)."""
    temperature = float(decoding.get("temperature") or 0.0)
    sent: dict[str, Any] = {"temperature": temperature, "max_tokens": max_new_tokens(decoding),
                            "n": int(decoding.get("samples") or 1)}  # n: generations per prompt
    if temperature > 0:
        sent["seed"] = decoding.get("seed", 0)
        if sent["n"] > 1:  # Zhang's Hugging Face runs: seed_everything once, the checkpoint's generation config
            sent["seeding"], sent["generation_config"] = "once per run", "checkpoint"
        if float(decoding.get("top_p") or 1.0) != 1.0:
            sent["top_p"] = float(decoding["top_p"])
    if float(decoding.get("repetition_penalty") or 1.0) != 1.0:
        sent["repetition_penalty"] = float(decoding["repetition_penalty"])
    return sent


def max_new_tokens(decoding: dict[str, Any]) -> int:
    """The generation length: the task's, else MAX_NEW_TOKENS (a task that leaves it to the provider)."""
    return int(decoding.get("max_new_tokens") or MAX_NEW_TOKENS)


def batch_option(batch_size: int | str | None, cuda: bool) -> int | None:
    """A `batch_size` option as a fixed size, or None for sizing from free memory (`auto`, the default on CUDA)."""
    if batch_size is None:
        batch_size = "auto" if cuda else CPU_BATCH_SIZE
    if batch_size == "auto":
        return None if cuda else CPU_BATCH_SIZE
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"system: batch_size must be a whole number >= 1 or auto, got {batch_size!r}")
    return batch_size


def runner_chunk(fixed: int | None) -> int:
    """How many instances the runner hands the system at a time (its `batch_size`): eight batches' worth, up to
    AUTO_CHUNK, so sorting by length has prompts to choose from; a run killed loses at most this many answers."""
    return AUTO_CHUNK if fixed is None else max(fixed, min(AUTO_CHUNK, 8 * fixed))


def flag_option(name: str, value: bool | str | None, default: bool) -> bool:
    """A yes/no option (`compile=true`); None takes the default."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "1", "yes", "on", "false", "0", "no", "off"):
        return str(value).lower() in ("true", "1", "yes", "on")
    raise ValueError(f"system: {name} must be true or false, got {value!r}")


def free_memory(model: Any) -> int:
    """Bytes the model's first GPU can still give: free device memory plus what torch holds cached but unused."""
    import torch

    device = model.device
    free, _ = torch.cuda.mem_get_info(device)
    return int(free + torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device))


def bytes_per_sequence(model: Any, length: int, cache: bool) -> int:
    """Estimated peak bytes one sequence of `length` tokens adds: its KV cache (when kept), one layer's
    activations, and a few copies of one row of logits in float32 (the sampler's)."""
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    width = model.dtype.itemsize
    hidden, heads = config.hidden_size, config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or hidden // heads
    kv_heads = getattr(config, "num_key_value_heads", None) or heads
    intermediate = getattr(config, "intermediate_size", None) or 4 * hidden
    kv = 2 * config.num_hidden_layers * kv_heads * head_dim * width if cache else 0
    activations = (4 * hidden + 3 * intermediate) * width
    return length * (kv + activations) + 4 * config.vocab_size * 4


def auto_batch_size(model: Any, length: int, cache: bool = True, free: int | None = None) -> int:
    """The batch (1..AUTO_MAX_BATCH, a multiple of 8 from 8 up) whose sequences of `length` tokens fit in
    MEMORY_SHARE of the free GPU memory; `free` overrides the measurement (tests, planning)."""
    free = free_memory(model) if free is None else free
    fits = int(MEMORY_SHARE * free // bytes_per_sequence(model, length, cache))
    fits = max(1, min(AUTO_MAX_BATCH, fits))
    return fits - fits % 8 if fits >= 8 else fits


def seed_run(seed: int) -> None:
    """Seed every generator once for a whole run, as upstream's `seed_everything(seed)` (`save_results.py` L253,
    `util.py`): Python's, numpy's and torch's."""
    import random

    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def seed_batch(decoding: dict[str, Any], instances: list[Any]) -> None:
    """Seed torch's sampler from the task seed and the batch's instance ids (a re-run draws the same text)."""
    if float(decoding.get("temperature") or 0.0) > 0:
        import torch

        from ..kinds import stable_seed

        torch.manual_seed(stable_seed(decoding.get("seed", 0), [i.instance_id for i in instances]) % 2**63)


def provenance(ref: ModelRef, recorded: str) -> dict[str, Any]:
    """The model, where it came from and the exact revision (Hub commit, or local path and file fingerprint)."""
    out: dict[str, Any] = {"spec": ref.spec, "model": ref.name, "source": "local" if ref.local else "hub",
                           "revision": recorded}
    if ref.local:
        from ..llm.backends.transformers_backend import local_fingerprint

        out["fingerprint"] = local_fingerprint(ref.name)
    return out


class PretrainedSystem(System):
    """A system around one transformers model (`hf:`, `vlm:`, `clip:`): a spec `<kind>:<model>[@revision]` whose
    model is loaded by `load_pretrained` and described with its provenance and placement."""

    ref: ModelRef
    revision: str
    model: Any

    @classmethod
    def from_spec(cls, arg: str, dataset: str, base_url: str | None = None, **options: Any) -> System:
        """`<kind>:<model>[@revision]`: a local folder or a Hub id (`parse_ref`)."""
        return cls(parse_ref(cls.system_kind, arg), **options)  # type: ignore[call-arg]

    def describe(self) -> dict[str, Any]:
        return {**provenance(self.ref, self.revision), **placed(self.model)}
