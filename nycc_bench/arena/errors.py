"""The arena's refusal: a vote or a request it will not take, with the field and the fix in one line."""

from __future__ import annotations

from ..errors import NyccBenchError


class ArenaRefused(NyccBenchError):
    """A battle that cannot be served or a vote that is not counted; the message says why and what to do."""
