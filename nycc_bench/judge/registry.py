"""The judge protocols by name: the built-in ones (each module registers its own) and any registered since."""

from __future__ import annotations

from .protocols import explanation_pairwise, group_comparison, humorbench
from .protocols.base import Protocol, registered
from .protocols.base import lookup as get_protocol  # an unknown name is one line naming the nearest one

__all__ = ["BUILT_IN", "Protocol", "get_protocol", "protocol_names"]

BUILT_IN: tuple[Protocol, ...] = (group_comparison.OVERALL, group_comparison.BEST_PICK, humorbench.AUTOGRADER,
                                  explanation_pairwise.PAIRWISE)
"""The protocols this package ships (their modules register them on import)."""


def protocol_names() -> tuple[str, ...]:
    """The names of every registered protocol, built-in ones first."""
    return tuple(dict.fromkeys([p.name for p in BUILT_IN] + list(registered())))
