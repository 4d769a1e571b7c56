"""The LLM client engine shared by judges and API systems: backends (OpenAI-compatible, local transformers), one
reply-parsing layer, a SQLite cache that concurrent runs share, bounded concurrency, retries, timeouts and cost."""

from .cache import LLMCache, cache_key
from .chat import ChatRequest, Completion
from .config import DEFAULT_PRICES, LLMConfig, default_cache_dir
from .engine import Estimate, Job, LLMEngine, RunStats, estimate_jobs, run_jobs
from .errors import (
    FatalJudgeError,
    JudgeError,
    LogprobsUnavailableError,
    MalformedReply,
    RequestFailed,
    TransientError,
)
from .sync import run_sync

__all__ = [
    "DEFAULT_PRICES",
    "ChatRequest",
    "Completion",
    "Estimate",
    "FatalJudgeError",
    "Job",
    "JudgeError",
    "LLMCache",
    "LLMConfig",
    "LLMEngine",
    "LogprobsUnavailableError",
    "MalformedReply",
    "RequestFailed",
    "RunStats",
    "TransientError",
    "cache_key",
    "default_cache_dir",
    "estimate_jobs",
    "run_jobs",
    "run_sync",
]
