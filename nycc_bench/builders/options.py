"""Choices a build can make beyond which configs to write (each defaults to the papers' protocol)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import NyccBenchError
from .pairs import PAIR_RULES


@dataclass(frozen=True)
class BuildOptions:
    """`pair_rule`: `upstream` (Zhang et al.'s draw, the default) or `distinct` (unique pairs only)."""

    pair_rule: str = "upstream"

    def __post_init__(self) -> None:
        """Refuse an unknown rule, naming the known ones."""
        if self.pair_rule not in PAIR_RULES:
            raise NyccBenchError(f"pair-rule: unknown rule {self.pair_rule!r}; use one of {', '.join(PAIR_RULES)}")
