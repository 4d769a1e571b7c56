"""Systems under test, named by a short spec: `random`, `length`, `sbert:<model>`, `hf:<model>[@rev]`, ..."""

from __future__ import annotations

import difflib

from ..errors import NyccBenchError
from .base import DECODING_KEYS, Output, System, SystemCannotAnswer

# The baselines nycc-bench ships, with their display names (demo, leaderboard seed, model cards).
BASELINES = {
    "random": "Random baseline",
    "length": "Longest-caption baseline",
    "sbert:all-MiniLM-L6-v2": "SBERT similarity baseline (all-MiniLM-L6-v2)",
}

SPECS = {
    "random[:SEED]": "uniform random letters / random train texts (seeded)",
    "length": "the longest caption (multiple choice only)",
    "sbert:<model>": "sentence-transformers similarity to the description; retrieval for generation",
    "hf:<model>[@revision]": "a transformers causal LM: letters by log-likelihood, text by generation",
    "vlm:<model>[@revision]": "a transformers image-text-to-text model, for the from-pixels tasks",
    "clip:<model>[@revision]": "CLIP zero-shot for matching/ranking from pixels",
    "openai:<model>": "any OpenAI-compatible chat endpoint (--base-url; key from OPENAI_API_KEY)",
}


GENERATING = ("openai", "hf", "vlm")
"""System kinds that send decoding settings (the others take none)."""


def check_options(owner: str, options: dict[str, object], accepted: list[str]) -> None:
    """One line naming an option `owner` does not take, and the names it does take."""
    if unknown := sorted(set(options) - set(accepted)):
        near = difflib.get_close_matches(unknown[0], accepted, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise NyccBenchError(f"system-option: {owner} takes no option {unknown[0]!r}{hint}; it takes: "
                             f"{', '.join(accepted) or 'none'}")


def make_system(spec: str, dataset: str, base_url: str | None = None, **options: object) -> System:
    """Build a system from its spec; decoding options (temperature, top_p, ...) override every task's defaults
    and are recorded as deviations. An option the system does not take is refused in one line."""
    kind = spec.partition(":")[0]
    check_options(kind, options, _accepted(kind))  # decoding keys are accepted by the generating kinds only
    decoding = {k: options.pop(k) for k in DECODING_KEYS if k in options}
    system = _make(spec, dataset, base_url, **options)
    system.decoding_overrides = decoding
    return system


def _accepted(kind: str) -> list[str]:
    """The options a system kind's constructor takes (beyond its spec), decoding keys for generating kinds."""
    import inspect

    if kind in ("hf", "vlm", "clip"):
        from .hf import system_class

        cls = system_class(kind)
        skip = ("self", "ref")
    elif kind == "openai":
        from .api import OpenAISystem as cls

        skip = ("self", "model", "base_url")
    elif kind == "sbert":
        from .baselines import SbertSystem as cls

        skip = ("self", "model", "dataset")
    else:
        return []
    names = [p for p in inspect.signature(cls.__init__).parameters if p not in skip]
    return names + (list(DECODING_KEYS) if kind in GENERATING else [])


def _make(spec: str, dataset: str, base_url: str | None = None, **options: object) -> System:
    """The system of a spec; a bad spec gets an error that lists the valid forms."""
    kind, _, arg = spec.partition(":")
    if kind == "random":
        from .baselines import RandomSystem

        if arg and not arg.isdigit():
            raise ValueError(f"system: random takes a whole-number seed (random:7), got {spec!r}")
        return RandomSystem(dataset, int(arg or 0))
    if kind == "length" and not arg:
        from .baselines import LengthSystem

        return LengthSystem()
    if kind == "sbert" and arg:
        from .baselines import SbertSystem

        return SbertSystem(arg, dataset, **options)  # type: ignore[arg-type]
    if kind == "openai" and arg:
        from .api import OpenAISystem

        return OpenAISystem(arg, base_url=base_url, **options)  # type: ignore[arg-type]
    if kind in ("hf", "vlm", "clip") and arg:
        from . import hf

        return hf.make(kind, arg, **options)
    forms = "\n".join(f"  {form:<26} {text}" for form, text in SPECS.items())
    raise NyccBenchError(f"system: cannot read {spec!r}; a system is one of:\n{forms}")


__all__ = ["BASELINES", "DECODING_KEYS", "SPECS", "Output", "System", "SystemCannotAnswer", "make_system"]
