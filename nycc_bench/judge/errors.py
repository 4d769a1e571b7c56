"""Exceptions of the judge engine; their messages never carry an API key."""

from ..errors import NyccBenchError


class JudgeError(Exception):
    """Base class of every error the judge engine raises."""


class FatalJudgeError(JudgeError, NyccBenchError):
    """An error that makes every further call pointless (bad key, unknown model, bad URL): the run stops."""


class LogprobsUnavailableError(FatalJudgeError):
    """The endpoint returned no log-probabilities although the protocol needs them."""
