"""Checks of the judge arguments the judge-capable metrics share, made before any judge is built or called."""

from __future__ import annotations

from typing import Any

from nycc_bench.errors import NyccBenchError
from nycc_bench.judging import JudgeSpec, judge_from_kwargs
from nycc_bench.scoring.checks import check_int, check_optional_str

MAX_CONCURRENCY = 1024


def check_judge_args(judge_model: Any = None, judge_backend: Any = None, judge_base_url: Any = None,
                     cache_dir: Any = None, max_concurrency: Any = 16) -> JudgeSpec | None:
    """The judge the options ask for (None for none), checked by type and then by the judge spec itself."""
    check_optional_str(judge_model, "judge_model")
    check_optional_str(judge_backend, "judge_backend")
    check_optional_str(judge_base_url, "judge_base_url")
    if cache_dir is not None and not isinstance(cache_dir, str) and not hasattr(cache_dir, "__fspath__"):
        raise NyccBenchError(f"cache_dir = {type(cache_dir).__name__}; expected a folder path or None")
    check_int(max_concurrency, "max_concurrency", 1, MAX_CONCURRENCY)
    if judge_model is None:
        for name, value in (("judge_backend", judge_backend), ("judge_base_url", judge_base_url)):
            if value is not None:
                raise NyccBenchError(f"{name}: given without a judge_model; add judge_model (e.g. openai:gpt-4o) "
                                     "or drop it")
    return judge_from_kwargs(judge_model, judge_backend, judge_base_url, cache_dir, max_concurrency)
