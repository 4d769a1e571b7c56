"""What runs a task: the registries a task file names (builders, parsers, scorers) and each family's hooks,
`Instance` / `Built` / `render`, the loader of the built-in and outside kinds, the instances of a split, the
generic parsers and scorer, one module per family (`hessel2023`, `zhang2024`, `humorbench`) and `tasks check`.

`nycc_bench.tasks` is the task model and imports none of this; an outside folder's `kinds.py` registers its own
with the decorators here (`from nycc_bench.kinds import register_builder, ...`).
"""

from __future__ import annotations

from .loader import builders, family_hooks, hooks, load_kinds, option_aliases, parsers, scorers
from .registry import (
    ITEM_JUDGMENTS,
    Built,
    Hooks,
    Instance,
    prompt_text,
    register_builder,
    register_hooks,
    register_parser,
    register_scorer,
    render,
    stable_seed,
)

__all__ = ["ITEM_JUDGMENTS", "Built", "Hooks", "Instance", "builders", "family_hooks", "hooks", "load_kinds",
           "option_aliases", "parsers", "prompt_text", "register_builder", "register_hooks", "register_parser",
           "register_scorer", "render", "scorers", "stable_seed"]
