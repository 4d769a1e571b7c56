"""Choices a build can make beyond which configs to write (each defaults to the papers' protocol)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import NyccBenchError
from .pairs import PAIR_RULES
from .sources import HUMORBENCH_LABELS


@dataclass(frozen=True)
class BuildOptions:
    """`pair_rule`: `upstream` (Zhang et al.'s draw, the default) or `distinct` (unique pairs only);
    `humorbench_labels`: `paper` (HumorBench's element categories at 41cacd4, Table 3's, the default) or
    `leaderboard` (the later labels at cc99276)."""

    pair_rule: str = "upstream"
    humorbench_labels: str = "paper"

    def __post_init__(self) -> None:
        """Refuse an unknown rule or label version, naming the known ones."""
        if self.pair_rule not in PAIR_RULES:
            raise NyccBenchError(f"pair-rule: unknown rule {self.pair_rule!r}; use one of {', '.join(PAIR_RULES)}")
        if self.humorbench_labels not in HUMORBENCH_LABELS:
            raise NyccBenchError(f"humorbench-labels: unknown labels {self.humorbench_labels!r}; use one of "
                                 f"{', '.join(HUMORBENCH_LABELS)}")
