"""The judge protocols: one registered `Protocol` object each (prompt files, named parsers, paper settings, job
builder), the named judge configurations (`configs/<name>.yaml`), run on the LLM engine (`nycc_bench.llm`)."""

from .protocols.explanation_pairwise import build_explanation_jobs, explanation_win_rate, judge_explanations
from .protocols.generation import build_generation_jobs, generate_chats
from .protocols.group_comparison import build_group_jobs, draw_shots, judge_groups, judge_reliability
from .protocols.humorbench import (
    build_grader_jobs,
    grade_elements,
    load_rubric,
    truncate_last_k,
    validate_autograder,
)
from .protocols.zhang_format import RankingExample
from .registry import Protocol, get_protocol, protocol_names

__all__ = [
    "Protocol",
    "RankingExample",
    "build_explanation_jobs",
    "build_generation_jobs",
    "build_grader_jobs",
    "build_group_jobs",
    "draw_shots",
    "explanation_win_rate",
    "generate_chats",
    "get_protocol",
    "grade_elements",
    "judge_explanations",
    "judge_groups",
    "judge_reliability",
    "load_rubric",
    "protocol_names",
    "truncate_last_k",
    "validate_autograder",
]
