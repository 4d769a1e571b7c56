"""Hugging Face model systems (`hf:`, `vlm:`, `clip:`): spec parsing, loading, placement and the dispatcher.

A `<model>` is a local folder (used when it exists, or when it reads as a path) or a Hub id, optionally
`@revision`. A Hub revision is resolved to its commit once and that commit is passed to every load, so the
weights, tokenizer and processor come from the same repository state and `describe()` can record it.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .base import System

HUB_ID = re.compile(r"^[\w.-]+(/[\w.-]+)?$")
DTYPES = ("auto", "float32", "float16", "bfloat16")
MAX_NEW_TOKENS = 1024  # when a task leaves the length to the provider (HumorBench's explainer)


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


def resolve(ref: ModelRef) -> tuple[str | None, str]:
    """(revision to load, what to record): the Hub commit when it can be resolved, else the local path.

    Offline, a Hub revision may not resolve; the requested revision (or "main") is recorded then, marked.
    """
    if ref.local:
        return None, ref.name
    from transformers.utils import resolve_revision

    revision = resolve_revision(ref.name, ref.revision)
    commit = getattr(revision, "resolved", None)
    if commit is None and revision and re.fullmatch(r"[0-9a-f]{40}", revision):
        commit = revision
    return revision, commit or f"{ref.revision or 'main'} (unresolved)"


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


def load(ref: ModelRef, what: str, loader: Callable[..., Any], revision: str | None, **kwargs: Any) -> Any:
    """`loader.from_pretrained`, with any failure (missing files, unknown id, offline) named by the spec."""
    try:
        return loader(ref.name, revision=revision, **kwargs)
    except (OSError, ValueError, KeyError) as err:
        source = f"folder {ref.name}" if ref.local else f"Hub id {ref.name!r}" + (
            f" at revision {ref.revision!r}" if ref.revision else "")
        raise ValueError(f"system: cannot load the {what} of {ref.spec!r} from {source}: {err}") from err


def placed(model: Any) -> dict[str, str]:
    """The dtype and device(s) a loaded model really sits on, for `describe()`."""
    devices = sorted({str(p.device) for p in model.parameters()})
    return {"dtype": str(model.dtype).removeprefix("torch."), "device": ",".join(devices)}


def generation_config(model: Any, tokenizer: Any, decoding: dict[str, Any]) -> Any:
    """The task's decoding settings and nothing else: a fresh config, so a checkpoint's defaults do not leak in.

    Temperature 0 (or none) is greedy; above 0 it samples with the given top-p and repetition penalty.
    """
    from transformers import GenerationConfig

    eos = model.generation_config.eos_token_id
    eos = tokenizer.eos_token_id if eos is None else eos
    pad = tokenizer.pad_token_id
    if pad is None:
        pad = eos if isinstance(eos, int) else (eos[0] if eos else 0)
    temperature = float(decoding.get("temperature") or 0.0)
    sampling = {"do_sample": True, "temperature": temperature, "top_p": float(decoding.get("top_p") or 1.0)} \
        if temperature > 0 else {"do_sample": False}
    return GenerationConfig(max_new_tokens=int(decoding.get("max_new_tokens") or MAX_NEW_TOKENS), **sampling,
                            repetition_penalty=float(decoding.get("repetition_penalty") or 1.0),
                            eos_token_id=eos, pad_token_id=pad)


def seed_batch(decoding: dict[str, Any], instances: list[Any]) -> None:
    """Seed torch's sampler from the task seed and the batch's instance ids (a re-run draws the same text)."""
    if float(decoding.get("temperature") or 0.0) > 0:
        import torch

        from ..tasks.instances import stable_seed

        torch.manual_seed(stable_seed(decoding.get("seed", 0), [i.instance_id for i in instances]) % 2**63)


def provenance(ref: ModelRef, recorded: str) -> dict[str, Any]:
    """The model, where it came from and the exact revision (Hub commit, or local path and file fingerprint)."""
    out: dict[str, Any] = {"spec": ref.spec, "model": ref.name, "source": "local" if ref.local else "hub",
                           "revision": recorded}
    if ref.local:
        from ..judge.backends.transformers_backend import local_fingerprint

        out["fingerprint"] = local_fingerprint(ref.name)
    return out


SYSTEMS = {"hf": ("hf_causal", "CausalLMSystem"), "vlm": ("hf_vision", "VisionLanguageSystem"),
           "clip": ("clip", "ClipSystem")}


def make(kind: str, arg: str, **options: Any) -> System:
    """Build the `hf:` / `vlm:` / `clip:` system named by `arg`; unknown options are named with the valid ones."""
    import importlib

    module, name = SYSTEMS[kind]
    cls = getattr(importlib.import_module(f".{module}", __package__), name)
    accepted = [p for p in inspect.signature(cls.__init__).parameters if p not in ("self", "ref")]
    if unknown := sorted(set(options) - set(accepted)):
        raise ValueError(f"system: {kind}: takes no option {', '.join(unknown)}; options: {', '.join(accepted)}")
    return cls(parse_ref(kind, arg), **options)
