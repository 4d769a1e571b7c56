"""The user-facing error type: the CLI prints its message as one line and exits 2 (never a traceback)."""

from __future__ import annotations


class NyccBenchError(ValueError):
    """Bad input or an unusable environment; the message names the field (or file) and the fix."""


class JudgeRequired(NyccBenchError):
    """A task that can only be scored by a judge was scored without one (`evaluate` lists it as skipped)."""


class DryRun(Exception):
    """Raised instead of calling an LLM when a dry run is asked for; carries the estimate of what it would cost."""

    def __init__(self, estimate: object) -> None:
        super().__init__(str(estimate))
        self.estimate = estimate
