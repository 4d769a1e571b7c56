"""Zhang et al. 2024 group comparison: a model's 10 captions vs a human group, judged in both orders.

Entry points::

    judge_groups(model_groups, human_groups, contest_numbers, descriptions, protocol, config,
                 shots=None, *, images=None, n_shots=5, seed=0, rule=None) -> list[dict]
    build_group_jobs(...same arguments...) -> list[Job]        # for estimate_jobs(...) (dry run)
    judge_reliability(top_groups, low_groups, ...build_group_jobs's other arguments...,
                      threshold=None (3.003349167), n_resamples=10000, confidence=0.95) -> dict
    OVERALL, BEST_PICK                                           # the two registered Protocol objects

``model_groups[i]`` and each ``human_groups[name][i]`` are the captions of contest ``contest_numbers[i]``;
``human_groups`` maps a group name (e.g. ``"top10"``, ``"#200-209"``) to its per-contest groups (a bare list
is named ``"human"``). ``descriptions[i]`` is ``(canny, uncanny)`` or one text; ``images[i]`` a URL or
``data:`` URL switches Best Pick to its vision form. ``shots`` are :class:`RankingExample` s (Hessel ranking
train data): a mapping contest -> its examples, already drawn (upstream's draw: :mod:`.zhang_shots`), or a pool
from which each contest gets ``n_shots`` drawn with ``random.Random(f"{seed}:{contest}")`` from those of other
contests; either way the same for both orders and every human group. ``shots=None`` is zero-shot.
``config`` is a :class:`LLMConfig` or a :class:`LLMEngine` (reused, its ``last_stats`` kept). ``rule``
names how a reply is read (:mod:`.overall`: ``zhang_top2`` by default; :mod:`.best_pick`: ``exact_letter``
for the vision form, ``last_char`` for the text form, by default: upstream's rules).

One record per call, human group by human group, contest by contest, model as A then as B::

    {"contest_number": int, "model_position": "A"|"B", "verdict": "A"|"B"|"ERROR"|None,
     "delta_logprob": float|None, "human_group": str, "protocol": "overall"|"best_pick", "rule": str,
     "raw": str, "prompt_version": str, "error": str|None}

plus, for Overall, ``top_logprobs`` (as returned) and ``logprob_missing`` (letters not among the tokens the rule
read); for Best Pick, ``answer`` (the reply's letter or None) and ``nonletter``. Overall leaves ``verdict``
None (the scoring package applies the threshold); Best Pick's ``verdict`` is the letter scored (see
:mod:`.best_pick` for non-letter replies). ``"ERROR"`` marks a failed or unreadable call.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from ...llm.chat import ChatRequest, Completion
from ...llm.config import LLMConfig
from ...llm.engine import ERROR, Job, LLMEngine, Record
from . import best_pick, judge_config, overall, resolve_prompt_version
from .base import Protocol, register_protocol, runner
from .zhang_format import Description, RankingExample

PROTOCOLS: tuple[str, ...] = ("overall", "best_pick")


def draw_shots(pool: Sequence[RankingExample], contest_number: int, n_shots: int, seed: int) -> list[RankingExample]:
    """``n_shots`` examples from ``pool`` excluding the contest itself, seeded per contest (stable when the
    contest list changes, so cached calls stay valid)."""
    candidates = [example for example in pool if example.contest_number != contest_number]
    if len(candidates) < n_shots:
        raise ValueError(f"contest {contest_number}: {len(candidates)} shot candidates, {n_shots} needed")
    return random.Random(f"{seed}:{contest_number}").sample(candidates, n_shots)


def _named_groups(
    human_groups: Mapping[str, Sequence[Sequence[str]]] | Sequence[Sequence[str]],
) -> dict[str, Sequence[Sequence[str]]]:
    if isinstance(human_groups, Mapping):
        return dict(human_groups)
    return {"human": human_groups}


def build_group_jobs(
    model_groups: Sequence[Sequence[str]],
    human_groups: Mapping[str, Sequence[Sequence[str]]] | Sequence[Sequence[str]],
    contest_numbers: Sequence[int],
    descriptions: Sequence[Description] | None,
    protocol: str,
    config: LLMConfig | LLMEngine,
    shots: Sequence[RankingExample] | Mapping[int, Sequence[RankingExample]] | None = None,
    *,
    images: Sequence[str | None] | None = None,
    n_shots: int = 5,
    seed: int = 0,
    rule: str | None = None,
) -> list[Job]:
    """The judge jobs of :func:`judge_groups` (2 per contest and human group), for running or estimating."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    named = _named_groups(human_groups)
    n = len(contest_numbers)
    if len(model_groups) != n or any(len(groups) != n for groups in named.values()):
        raise ValueError("model_groups and every human group list need one entry per contest")
    if descriptions is not None and len(descriptions) != n:
        raise ValueError("descriptions need one entry per contest")
    if images is not None and len(images) != n:
        raise ValueError("images need one entry per contest")
    if protocol == "overall" and descriptions is None:
        raise ValueError("the Overall protocol is a text judge: descriptions are required")
    cfg = judge_config(config)
    module = overall if protocol == "overall" else best_pick
    version = resolve_prompt_version(config, module.KNOWN_VERSIONS)
    temperature = module.DEFAULT_TEMPERATURE if cfg.temperature is None else cfg.temperature
    max_tokens = module.DEFAULT_MAX_TOKENS if cfg.max_tokens is None else cfg.max_tokens
    if protocol == "overall":
        rule = overall.check_rule(rule)
        top_logprobs = overall.request_top_logprobs(rule, cfg.top_logprobs)
    else:
        best_pick.check_rule(rule, vision=True)  # an unknown name fails before any job is built
        top_logprobs = best_pick.TOP_LOGPROBS  # asked for as upstream asks (rank_more.py L443-444), never read
    if isinstance(shots, Mapping):  # drawn per contest by the caller (upstream's draw)
        contest_shots = {int(c): list(shots.get(int(c), ())) for c in contest_numbers}
    else:
        contest_shots = {
            int(c): (draw_shots(shots, int(c), n_shots, seed) if shots else []) for c in contest_numbers
        }
    jobs: list[Job] = []
    for name, groups in named.items():
        for i, contest in enumerate(contest_numbers):
            description = None if descriptions is None else descriptions[i]
            image = None if images is None else images[i]
            model, human = list(model_groups[i]), list(groups[i])
            job_rule = rule if protocol == "overall" else best_pick.check_rule(rule, vision=image is not None)
            for position, (group_a, group_b) in (("A", (model, human)), ("B", (human, model))):
                if protocol == "overall":
                    messages = overall.build_messages(
                        description, group_a, group_b, contest_shots[int(contest)], version
                    )
                    parse = partial(overall.parse, rule=job_rule)
                else:
                    messages = best_pick.build_messages(
                        description, group_a, group_b, contest_shots[int(contest)], image, version
                    )
                    parse = partial(best_pick.parse, rule=job_rule, model_position=position)
                request = ChatRequest(
                    messages=messages,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    top_logprobs=top_logprobs,
                    logprob_tokens=("A", "B") if protocol == "overall" else (),
                    logprobs_required=protocol == "overall",  # Best Pick asks as upstream asks, reads the text
                )
                meta = {
                    "contest_number": int(contest),
                    "model_position": position,
                    "human_group": name,
                    "protocol": protocol,
                }
                failure: dict[str, Any] = {"verdict": ERROR, "delta_logprob": None, "rule": job_rule}
                if protocol == "overall":
                    failure.update(logprob_missing=[], top_logprobs=[])
                else:
                    failure.update(answer=None, nonletter=False)
                jobs.append(
                    Job(
                        request=request,
                        parse=parse,
                        prompt_version=version,
                        meta=meta,
                        failure=failure,
                        expected_output_tokens=1 if protocol == "overall" else best_pick.EXPECTED_OUTPUT_TOKENS,
                    )
                )
    return jobs


judge_groups = runner(build_group_jobs, "judge {protocol}")
"""Judge every contest's model group against every human group, both orders (see the module docstring)."""


def judge_reliability(
    top_groups: Sequence[Sequence[str]],
    low_groups: Sequence[Sequence[str]],
    *args: Any,
    threshold: float | None = None,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    **kwargs: Any,
) -> dict[str, Any]:
    """Zhang et al.'s Table 2 check: human top10 vs #1000–1009, both orders (the other arguments are
    :func:`build_group_jobs`'s); the share of judgments picking the top group, with a percentile bootstrap CI
    over contests (``nycc_bench.scoring.win_rate`` with the top group in the model's place; ERROR judgments
    are left out and counted).

    Returns ``{"protocol", "accuracy" (0–1), "percent", "ci_low", "ci_high", "confidence", "n_contests",
    "n_judgments", "n_error", "n_nonletter", "threshold" (Overall only, else None), "judgments"}``.
    """
    from nycc_bench.scoring.win_rate import THRESHOLD, win_rate  # lazy: scoring imports heavy packages

    threshold = THRESHOLD if threshold is None else threshold
    bound = inspect.signature(build_group_jobs).bind(top_groups, {"#1000-1009": low_groups}, *args, **kwargs)
    bound.apply_defaults()
    records = judge_groups(*bound.args, **bound.kwargs)
    protocol, seed = bound.arguments["protocol"], bound.arguments["seed"]
    rate = win_rate(records, threshold=threshold, confidence=confidence, n_resamples=n_resamples, seed=seed)
    accuracy = rate["win_rate"]
    return {
        "protocol": protocol,
        "accuracy": accuracy,
        "percent": None if accuracy is None else 100.0 * accuracy,
        "ci_low": rate["ci_low"],
        "ci_high": rate["ci_high"],
        "confidence": confidence,
        "n_contests": rate["n_contests"],
        "n_judgments": rate["n_judgments"],
        "n_error": rate["n_error"],
        "n_nonletter": count_nonletter(records),
        "threshold": threshold if protocol == "overall" else None,
        "judgments": records,
    }


def count_nonletter(records: Sequence[Record]) -> int:
    """Best Pick judgments whose reply was not a letter under their rule (scored as losses, or ERROR under
    ``last_letter``); 0 for Overall.

    >>> count_nonletter([{"nonletter": True}, {"nonletter": False}, {"verdict": None}])
    1
    """
    return sum(bool(record.get("nonletter")) for record in records)


_PROBE: dict[str, Any] = {"model_groups": [["a"]], "human_groups": {"h": [["b"]]}, "contest_numbers": [1],
                          "descriptions": [("c.", "u.")], "shots": None}


def _overall_parse(completion: Completion, rule: str = overall.DEFAULT_RULE, **_: Any) -> dict[str, Any]:
    """Overall's reading of a reply (the order a group was shown in does not matter to it)."""
    return overall.parse(completion, rule)


OVERALL = register_protocol(Protocol(
    name="overall", build=build_group_jobs, parse=_overall_parse, versions=overall.KNOWN_VERSIONS,
    parsers=overall.RULES, prompts=overall.prompt_files, probe=_PROBE, fixed={"protocol": "overall"},
    modules=("overall", "group_comparison", "zhang_format"), parser_args=("top_logprobs", "parse_retries"),
    has_threshold=True, desc="judge overall",
    paper={"source": "Zhang et al. 2024, App. B.2 and C.2; ranking/rank_more.py (yguooo/cartoon-caption-generation)",
           "sent": {"model": overall.PAPER_MODEL, "temperature": 0.0, "logprobs": True, "top_logprobs": 2},
           "rule": overall.DEFAULT_RULE, "n_shots": 5},
))
BEST_PICK = register_protocol(Protocol(
    name="best_pick", build=build_group_jobs, parse=best_pick.parse, versions=best_pick.KNOWN_VERSIONS,
    parsers=best_pick.RULES, prompts=best_pick.prompt_files, probe={**_PROBE, "images": ["data:image/png;base64,"]},
    fixed={"protocol": "best_pick"}, modules=("best_pick", "group_comparison", "zhang_format"),
    desc="judge best_pick",
    paper={"source": "Zhang et al. 2024, App. B.2; ranking/rank_more.py (vision Best Pick, GPT-4o with the cartoon)",
           "sent": {"model": best_pick.PAPER_MODEL, "temperature": 0.0, "logprobs": True, "top_logprobs": 2},
           "rule": "exact_letter", "n_shots": 5},
))
