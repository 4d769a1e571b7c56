"""Systems under test, named by a short spec: `random`, `length`, `sbert:<model>`, `hf:<model>[@rev]`, ...

Each is one class registered with `@register_system` (`registry.py`); importing this package registers the
built-in ones. The modules import no heavy library at import time (they do so when a system is built), so the
CLI's help can list every system at once.
"""

from __future__ import annotations

import importlib

from .base import DECODING_KEYS, Output, System, SystemCannotAnswer
from .registry import BASELINES, SPECS, make_system, register_system

BUILT_IN = ("baselines", "api", "hf_causal", "served", "vllm", "hf_vision", "clip")
"""The modules of the built-in systems, imported here in this order (the order of `--help` and the README)."""
for _module in BUILT_IN:
    importlib.import_module(f".{_module}", __name__)

__all__ = ["BASELINES", "DECODING_KEYS", "SPECS", "Output", "System", "SystemCannotAnswer", "make_system",
           "register_system"]
