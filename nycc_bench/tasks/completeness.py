"""A task file's `completeness:` block: the shares that make a scored task whole. The rule that reads them is
`nycc_bench.wholeness` (decided once, when a task is scored); the block itself is part of the task model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import NyccBenchError


@dataclass(frozen=True)
class Completeness:
    """A task file's `completeness:` block: the shares that make a scored task whole (each 0 to 1)."""

    min_coverage: float = 0.9  # scored instances / instances asked for (unpromptable rows count against it)
    max_unparsed: float = 0.5  # answers received but unreadable / scored instances
    max_judge_errors: float = 0.0  # judge ERROR verdicts / judge verdicts (0: any error makes it incomplete)

    @classmethod
    def read(cls, raw: Any, where: str) -> Completeness:
        """The block as the task file gives it (absent keys take the defaults); a share outside [0, 1] is refused."""
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):
            raise NyccBenchError(f"{where}: completeness must be a mapping such as {{min_coverage: 0.9}}")
        values = {}
        for key, value in raw.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise NyccBenchError(f"{where}: completeness.{key} must be a share between 0 and 1, got {value!r}")
            values[key] = float(value)
        return cls(**values)

    def to_dict(self) -> dict[str, float]:
        return {"min_coverage": self.min_coverage, "max_unparsed": self.max_unparsed,
                "max_judge_errors": self.max_judge_errors}
