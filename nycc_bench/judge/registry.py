"""The judge protocols by name: the built-in ones (each module registers its own) and any registered since."""

from __future__ import annotations

from .protocols import explanation_pairwise, group_comparison, humorbench
from .protocols.base import Protocol, lookup, registered

BUILT_IN: tuple[Protocol, ...] = (group_comparison.OVERALL, group_comparison.BEST_PICK, humorbench.AUTOGRADER,
                                  explanation_pairwise.PAIRWISE)
"""The protocols this package ships (their modules register them on import)."""


def get_protocol(name: str) -> Protocol:
    """The protocol called ``name``; an unknown name is one line naming the nearest one."""
    return lookup(name)


def protocol_names() -> tuple[str, ...]:
    """The names of every registered protocol, built-in ones first."""
    return tuple(dict.fromkeys([p.name for p in BUILT_IN] + list(registered())))
