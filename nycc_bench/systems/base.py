"""The one interface every system under test implements, lm-evaluation-harness style."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import NyccBenchError
from ..kinds import Instance
from ..tasks import Task

DECODING_KEYS = ("temperature", "top_p", "repetition_penalty", "seed", "max_new_tokens", "samples")
TASK_KINDS = frozenset({"choice", "generation"})  # a task file's `kind:`
INPUTS = frozenset({"description", "pixels"})  # what a task shows of the cartoon: its text description, or its image


class SystemCannotAnswer(NyccBenchError):
    """The system cannot do this task at all (e.g. `length` on a generation task): nothing is written."""


@dataclass
class Output:
    """A system's answer to one instance: the raw text it produced and, for choice tasks, its letter.

    `error` set means no answer was received (transport or API failure after retries, no key): the item is
    recorded as failed and retried by the next run, never stored or scored as an answer.
    """

    raw: Any
    letter: str | None = None  # set by systems that choose without generating text (log-likelihood, CLIP)
    error: str | None = None


class System(ABC):
    """Answers instances; `choose` for multiple choice, `generate` for free text. Override what you support."""

    spec: str = ""
    system_kind: ClassVar[str] = ""  # the name it is registered under (`@register_system`), the spec's kind
    settings_kind: ClassVar[str] = ""  # the kind whose upstream settings (a task's `by_system_kind`) it takes, when
    # not its own: a served Hugging Face model (`vllm-server:`, `vllm:`) runs as `hf:` runs it
    answers: ClassVar[frozenset[str]] = TASK_KINDS  # the task kinds it answers (`choice`, `generation`)
    inputs: ClassVar[frozenset[str]] = INPUTS  # the inputs it reads: `description` (text) and/or `pixels` (image)
    batch_size: int = 8
    decoding_overrides: dict[str, Any] = {}  # noqa: RUF012 (replaced per instance by make_system)

    @classmethod
    def from_spec(cls, arg: str, dataset: str, base_url: str | None = None, **options: Any) -> System:
        """The system a spec names (`make_system` has checked `arg` against the registered form): by default the
        options are the constructor's keywords. Override it to read an argument (`random:7`, `hf:<model>`)."""
        return cls(**options)

    @classmethod
    def can_answer(cls, task: Task) -> bool:
        """Whether the system answers `task` by its declarations (the task's kind, and description or pixels):
        the seed, the cards and the tests derive which baseline runs which task from this."""
        return task.kind in cls.answers and ("pixels" if task.from_pixels else "description") in cls.inputs

    def decoding(self, task: Task) -> dict[str, Any]:
        """The decoding settings used for a task: the task's (the paper's) with the system's overrides on top."""
        return {**task.decoding, **self.decoding_overrides}

    def samples(self, task: Task) -> int:
        """Generations per prompt: the decoding's `samples` on a generation task (Zhang's ten), else 1."""
        return int(self.decoding(task).get("samples") or 1) if task.kind == "generation" else 1

    def choose(self, task: Task, instances: list[Instance]) -> list[Output]:
        """Answer multiple-choice instances (default: generate and let the runner parse the letter)."""
        return self.generate(task, instances)

    @abstractmethod
    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        """Free-text answers, one per instance."""

    def reads(self, task: Task) -> list[tuple[str, str]]:
        """The dataset (config, split) pairs it reads for `task` beyond the task's own (a retrieval pool): the
        preflight checks each before the run answers anything."""
        return []

    def describe(self) -> dict[str, Any]:
        """What to record next to the predictions so a result can be traced to the exact system."""
        return {"spec": self.spec}

    def effective(self, task: Task) -> dict[str, Any]:
        """What this system actually sends or does for `task` (recorded as `config.effective.system`): the
        request or `generate` parameters (`request`), how letters are chosen (`answer_by`), the endpoint (no
        credentials), retries. Empty: it sends no request (baselines)."""
        return {}
