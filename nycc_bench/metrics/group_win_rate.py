"""Zhang et al. (2024) group-comparison win rate from LLM-judge verdicts, both orders pooled, with a contest CI."""

import datasets
import evaluate

from nycc_bench.citations import ZHANG2024
from nycc_bench.errors import NyccBenchError
from nycc_bench.judging import group_judgments
from nycc_bench.metrics import rules
from nycc_bench.metrics._judge_args import check_judge_args
from nycc_bench.metrics._support import check_add_call, check_compute_call
from nycc_bench.scoring.bootstrap import CONFIDENCE, N_RESAMPLES, SEED
from nycc_bench.scoring.checks import (
    INT64_MAX,
    check_groups,
    check_int,
    check_length,
    check_sequence,
    check_strings,
)
from nycc_bench.scoring.win_rate import THRESHOLD, check_judgments, check_pairs

PROTOCOLS = ("overall", "best_pick")

_DESCRIPTION = """
Win rate of a caption generator against a human caption group (Zhang et al. 2024, Table 3): for each held-out
contest an LLM judge compares the model's 10 captions with the human group twice, once with the model's group
as A and once as B; the win rate is the share of all valid judgments that pick the model's group, as a
fraction in [0, 1] (the paper prints percentages). Overall protocol: the verdict is "A" iff
Δ = log p("A") − log p("B") > 3.003349167 (the paper's recalibration of the judge's A-bias); give `verdict=None`
and `delta_logprob` to have it applied. Best Pick protocol: give the parsed verdict. An ERROR verdict (an
unparseable judge reply) leaves numerator and denominator and is counted in `n_error`. Every contest needs
exactly one judgment per order: a duplicate or a missing order is an error, since it would reweight the
contest. The interval is a seeded percentile bootstrap over contests (a contest's judgments stay together); where
every contest won (or lost) all its judgments, the exact Clopper-Pearson interval over contests.
Give `judgments`, or give the groups and a `judge_model` and the module runs the judge first (an LLM,
cached, or the offline humor reward model).
"""

_CITATION = ZHANG2024.bibtex

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
    >>> from nycc_bench.metrics import load_metric
    >>> group_win_rate = load_metric("group_win_rate")  # or evaluate.load("nycc-bench/group_win_rate")
    >>> result = group_win_rate.compute(judgments=[
    ...     {"contest_number": 543, "model_position": "A", "verdict": None, "delta_logprob": 4.1},
    ...     {"contest_number": 543, "model_position": "B", "verdict": None, "delta_logprob": 2.0},
    ...     {"contest_number": 544, "model_position": "A", "verdict": "B", "delta_logprob": None},
    ...     {"contest_number": 544, "model_position": "B", "verdict": "ERROR", "delta_logprob": None},
    ... ])
    >>> result["win_rate"], result["n_judgments"], result["n_error"], result["n_contests"]
    (0.6666666666666666, 4, 1, 2)
"""

# `verdict` is a large_string because evaluate refuses None in a plain string column, and None is how the
# Overall protocol says "recalibrate from delta_logprob".
_JUDGMENT = {
    "contest_number": datasets.Value("int64"),
    "model_position": datasets.Value("string"),
    "verdict": datasets.Value("large_string"),
    "delta_logprob": datasets.Value("float64"),
}
_JUDGE_INPUTS = ("model_groups", "human_groups", "contest_numbers", "descriptions", "images", "protocol",
                 "judge_model", "judge_backend", "judge_base_url", "cache_dir", "max_concurrency")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GroupWinRate(evaluate.Metric):
    """Group win rate (Zhang et al. 2024); the rule lives in `nycc_bench.scoring.win_rate`."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"judgments": _JUDGMENT}),
            homepage="https://github.com/yguooo/cartoon-caption-generation",
            codebase_urls=["https://github.com/yguooo/cartoon-caption-generation"],
            reference_urls=["https://arxiv.org/abs/2406.10522"],
        )

    def add_batch(self, *, judgments=None, **kwargs):
        """Add judgments, checked and cut to the four schema fields (evaluate's encoder rejects other keys)."""
        check_add_call(self, kwargs)
        super().add_batch(judgments=check_judgments(judgments))

    def add(self, *, judgments=None, **kwargs):
        """Add one judgment, checked and cut to the four schema fields."""
        check_add_call(self, kwargs)
        super().add(judgments=check_judgments([judgments])[0])

    def compute(self, *, judgments=None, model_groups=None, human_groups=None, contest_numbers=None,
                descriptions=None, images=None, protocol="overall", judge_model=None, judge_backend=None,
                judge_base_url=None, cache_dir=None, max_concurrency=16, **kwargs):
        """Aggregate given judgments, or first obtain them from a judge; every argument is checked first."""
        judge_args = (judge_model, judge_backend, judge_base_url, cache_dir, max_concurrency)
        if (judge := check_judge_args(*judge_args)) is not None:
            if judgments is not None:
                raise NyccBenchError("judgments: give either judgments or judge_model, not both")
            check_compute_call(self, {"judgments": "from the judge"}, kwargs, extra=_JUDGE_INPUTS)
            rules.check_win_rate_settings(**kwargs)
            _check_judge_inputs(model_groups, human_groups, contest_numbers, descriptions, images, protocol)
            judgments = group_judgments(judge, model_groups, {"human": human_groups}, contest_numbers, descriptions,
                                        protocol, images=images)
        else:
            given = {"model_groups": model_groups, "human_groups": human_groups, "contest_numbers": contest_numbers,
                     "descriptions": descriptions, "images": images}
            if unused := [name for name, value in given.items() if value is not None]:
                raise NyccBenchError(f"{unused[0]}: only used with a judge_model; pass judgments, or a judge_model")
            check_compute_call(self, {"judgments": judgments}, kwargs, extra=_JUDGE_INPUTS)
            if judgments is not None:
                rules.check_win_rate_settings(**kwargs)
                judgments = check_pairs(check_judgments(judgments))
        return super().compute(judgments=judgments, **kwargs)

    def _compute(self, judgments, threshold=THRESHOLD, confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED):
        return rules.group_win_rate(judgments, threshold, confidence, n_resamples, seed)


def _check_judge_inputs(model_groups, human_groups, contest_numbers, descriptions, images, protocol):
    """What a judge needs, checked before it is built or called: one group of each kind per contest."""
    if protocol not in PROTOCOLS:
        raise NyccBenchError(f"protocol = {protocol!r}; expected 'overall' or 'best_pick'")
    if model_groups is None or human_groups is None or contest_numbers is None:
        raise NyccBenchError("model_groups, human_groups, contest_numbers: a judge needs the groups to compare")
    n = len(check_groups(model_groups, "model_groups"))
    check_length(check_groups(human_groups, "human_groups"), "human_groups", n, "model_groups")
    contests = check_sequence(contest_numbers, "contest_numbers")
    check_length(contests, "contest_numbers", n, "model_groups")
    for i, contest in enumerate(contests):
        check_int(contest, f"contest_numbers[{i}]", 0, INT64_MAX)
    if len(set(map(int, contests))) != n:
        raise NyccBenchError("contest_numbers: a contest appears twice; expected one group pair per contest")
    if descriptions is not None:
        rows = check_sequence(descriptions, "descriptions")
        check_length(rows, "descriptions", n, "model_groups")
        for i, row in enumerate(rows):
            parts = row if isinstance(row, (tuple, list)) else [row]
            check_strings(parts, f"descriptions[{i}]")
    if images is not None:
        urls = check_sequence(images, "images")
        check_length(urls, "images", n, "model_groups")
        check_strings([u for u in urls if u is not None], "images", allow_empty=True)
