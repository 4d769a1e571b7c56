"""The LLM judge engine: backends, cache, concurrency, accounting, prompts and parsers of every protocol."""

from .cache import JudgeCache, cache_key
from .chat import ChatRequest, Completion
from .config import DEFAULT_PRICES, JudgeConfig, default_cache_dir
from .engine import Estimate, Job, JudgeEngine, RunStats, estimate_jobs, run_jobs
from .errors import (
    FatalJudgeError,
    JudgeError,
    LogprobsUnavailableError,
    MalformedReply,
    RequestFailed,
    TransientError,
)
from .protocols.explanation_pairwise import build_explanation_jobs, explanation_win_rate, judge_explanations
from .protocols.generation import build_generation_jobs, generate_chats
from .protocols.group_comparison import (
    build_group_jobs,
    draw_shots,
    judge_groups,
    judge_reliability,
    picked_letter,
)
from .protocols.humorbench import (
    build_explainer_jobs,
    build_grader_jobs,
    explain_captions,
    grade_elements,
    load_rubric,
    truncate_last_k,
    validate_autograder,
)
from .protocols.zhang_format import RankingExample
from .sync import run_sync

__all__ = [
    "DEFAULT_PRICES",
    "ChatRequest",
    "Completion",
    "Estimate",
    "FatalJudgeError",
    "Job",
    "JudgeCache",
    "JudgeConfig",
    "JudgeEngine",
    "JudgeError",
    "LogprobsUnavailableError",
    "MalformedReply",
    "RankingExample",
    "RequestFailed",
    "RunStats",
    "TransientError",
    "build_explainer_jobs",
    "build_explanation_jobs",
    "build_generation_jobs",
    "build_grader_jobs",
    "build_group_jobs",
    "cache_key",
    "default_cache_dir",
    "draw_shots",
    "estimate_jobs",
    "explain_captions",
    "explanation_win_rate",
    "generate_chats",
    "grade_elements",
    "judge_explanations",
    "judge_groups",
    "judge_reliability",
    "load_rubric",
    "picked_letter",
    "run_jobs",
    "run_sync",
    "truncate_last_k",
    "validate_autograder",
]
