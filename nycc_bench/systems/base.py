"""The one interface every system under test implements, lm-evaluation-harness style."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from ..tasks import Task
from ..tasks.instances import Instance


@dataclass
class Output:
    """A system's answer to one instance: the raw text it produced and, for choice tasks, its letter."""

    raw: Any
    letter: str | None = None  # set by systems that choose without generating text (log-likelihood, CLIP)


class System(ABC):
    """Answers instances; `choose` for multiple choice, `generate` for free text. Override what you support."""

    spec: str = ""
    batch_size: int = 8

    def choose(self, task: Task, instances: list[Instance]) -> list[Output]:
        """Answer multiple-choice instances (default: generate and let the runner parse the letter)."""
        return self.generate(task, instances)

    @abstractmethod
    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        """Free-text answers, one per instance."""

    def describe(self) -> dict[str, Any]:
        """What to record next to the predictions so a result can be traced to the exact system."""
        return {"spec": self.spec}
