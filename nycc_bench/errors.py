"""The user-facing error type: the CLI prints its message as one line and exits 2 (never a traceback)."""

from __future__ import annotations


class NyccBenchError(ValueError):
    """Bad input or an unusable environment; the message names the field (or file) and the fix."""
