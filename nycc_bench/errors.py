"""The user-facing error type: the CLI prints its message as one line and exits 2 (never a traceback)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any


class NyccBenchError(ValueError):
    """Bad input or an unusable environment; the message names the field (or file) and the fix."""


class JudgeRequired(NyccBenchError):
    """A task that can only be scored by a judge was scored without one (`evaluate` lists it as skipped)."""


class BatchPending(NyccBenchError):
    """A run stopped while an OpenAI Batch API batch is still answered; the same command again collects it (the
    CLI says so and exits 3)."""


class DryRun(Exception):
    """Raised instead of calling an LLM when a dry run is asked for; carries the estimate of what it would cost."""

    def __init__(self, estimate: object) -> None:
        super().__init__(str(estimate))
        self.estimate = estimate


def refuse_unknown_keys(data: Any, allowed: Sequence[str], where: str, at: str = "", fix: str = "") -> None:
    """One line naming the file, the first unknown key and the nearest known one (a typo is never dropped)."""
    if not isinstance(data, Mapping):
        raise NyccBenchError(f"{where}: {at or 'the file'} must be a mapping of keys, got {type(data).__name__}")
    for key in data:
        if key not in allowed:
            near = difflib.get_close_matches(str(key), list(allowed), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else f"; known keys: {', '.join(allowed)}"
            raise NyccBenchError(f"{where}: unknown key {(at + '.' if at else '') + str(key)!r}{hint}{fix}")
