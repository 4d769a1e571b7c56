"""The judge protocols: prompts, parsers and settings of every protocol, run on the LLM engine (`nycc_bench.llm`)."""

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

__all__ = [
    "RankingExample",
    "build_explainer_jobs",
    "build_explanation_jobs",
    "build_generation_jobs",
    "build_grader_jobs",
    "build_group_jobs",
    "draw_shots",
    "explain_captions",
    "explanation_win_rate",
    "generate_chats",
    "grade_elements",
    "judge_explanations",
    "judge_groups",
    "judge_reliability",
    "load_rubric",
    "picked_letter",
    "truncate_last_k",
    "validate_autograder",
]
