"""Checks of the judge arguments the judge-capable metrics share, made before any judge is built or called."""

from __future__ import annotations

from typing import Any

from nycc_bench.errors import NyccBenchError
from nycc_bench.scoring.checks import check_int, check_optional_str

MAX_CONCURRENCY = 1024


def check_judge_args(judge_model: Any = None, judge_backend: Any = None, judge_base_url: Any = None,
                     cache_dir: Any = None, max_concurrency: Any = 16) -> bool:
    """Check the judge options by type (their meaning is the judge spec's); True when a judge is asked for."""
    check_optional_str(judge_model, "judge_model")
    check_optional_str(judge_backend, "judge_backend")
    check_optional_str(judge_base_url, "judge_base_url")
    if cache_dir is not None and not isinstance(cache_dir, str) and not hasattr(cache_dir, "__fspath__"):
        raise NyccBenchError(f"cache_dir = {type(cache_dir).__name__}; expected a folder path or None")
    check_int(max_concurrency, "max_concurrency", 1, MAX_CONCURRENCY)
    if judge_model is None and (judge_backend, judge_base_url) != (None, None):
        raise NyccBenchError("judge_model: judge_backend or judge_base_url was given without a judge_model")
    return judge_model is not None
