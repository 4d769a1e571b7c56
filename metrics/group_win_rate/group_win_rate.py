"""Zhang et al. (2024) group-comparison win rate from LLM-judge verdicts, both orders pooled, with a contest CI.

The Space face of `nycc_bench.metrics.group_win_rate` (generated from it: do not edit; regenerate with
`python -m nycc_bench.metrics._faces`). The rule and the class live in the package; this file carries evaluate's
conventions: this docstring, `_KWARGS_DESCRIPTION` with examples that run through `evaluate.load`, and the class
they document.
"""

import evaluate

import nycc_bench.metrics.group_win_rate as package

_DESCRIPTION = package._DESCRIPTION
_CITATION = package._CITATION

_KWARGS_DESCRIPTION = """
Args:
    judgments (`list` of `dict`): one per judge call, with `contest_number` (`int` ≥ 0), `model_position`
        ("A" or "B": where the model's group was shown), `verdict` ("A", "B", "ERROR", or None to
        recalibrate from `delta_logprob`) and `delta_logprob` (`float` or None). Exactly one judgment per
        contest and order. Other keys (e.g. `human_group`, `raw`) are ignored; filter by human group before
        calling for one win rate per group.
    model_groups, human_groups (`list` of `list` of `str`), contest_numbers (`list` of `int`), descriptions
        (`list` of `str` or of (description, uncanny description)), images (`list` of image URLs or None, for
        Best Pick's vision form), protocol ("overall" or "best_pick"):
        instead of `judgments`, with `judge_model`: the model's 10 captions and one human group per contest.
    judge_model (`str`), judge_backend ("openai", "transformers" or "reward"), judge_base_url, cache_dir,
        max_concurrency: the judge (API key from OPENAI_API_KEY or NYCC_JUDGE_API_KEY, never an argument).
    threshold (`float`, default 3.003349167): the recalibration threshold (exactly at it → "B").
    confidence (`float`, default 0.95), n_resamples (`int`, default 1000), seed (`int`, default 0):
        the percentile bootstrap interval.
Returns:
    win_rate (`float` in [0, 1], None if no valid judgment), ci_low, ci_high (`float`), n_wins,
    n_judgments (all judgments, ERROR included), n_error, n_contests (`int`).
Raises:
    ValueError (`nycc_bench.errors.NyccBenchError`), naming the argument: a judgment with neither verdict nor
        delta_logprob, a position or verdict outside the allowed letters, a contest number that is not a
        non-negative int, a non-finite delta_logprob, a contest without exactly one judgment per order, no
        judgment at all, a bad setting, an argument the metric does not take. All checks run before any
        judge call.
Examples:
    >>> import evaluate
    >>> group_win_rate = evaluate.load("group_win_rate")  # the Space: evaluate.load("nycc-bench/group_win_rate")
    >>> result = group_win_rate.compute(judgments=[
    ...     {"contest_number": 543, "model_position": "A", "verdict": None, "delta_logprob": 4.1},
    ...     {"contest_number": 543, "model_position": "B", "verdict": None, "delta_logprob": 2.0},
    ...     {"contest_number": 544, "model_position": "A", "verdict": "B", "delta_logprob": None},
    ...     {"contest_number": 544, "model_position": "B", "verdict": "ERROR", "delta_logprob": None},
    ... ])
    >>> result["win_rate"], result["n_judgments"], result["n_error"], result["n_contests"]
    (0.6666666666666666, 4, 1, 2)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GroupWinRate(package.GroupWinRate):
    """Group win rate (Zhang et al. 2024); the rule lives in `nycc_bench.scoring.win_rate`."""

    def _info(self):
        info = super()._info()
        info.inputs_description = _KWARGS_DESCRIPTION
        return info
