"""One entry point per judged protocol, whatever the judge: an LLM (OpenAI-compatible or local transformers),
the humor reward model, or the embedding element grader. Metrics, `nycc-bench score` and the leaderboard
call these, so a judge is named the same way everywhere:

    openai:<model>          any OpenAI-compatible endpoint (`base_url`; key from OPENAI_API_KEY / NYCC_JUDGE_API_KEY)
    transformers:<path|id>  a local causal LM
    reward:<path|repo>      the humor reward model (group comparisons; free, offline)
    embedding:<path|repo>   the embedding element grader (HumorBench; free, offline)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Any

from .errors import DryRun, NyccBenchError
from .judge import (
    build_explanation_jobs,
    build_grader_jobs,
    build_group_jobs,
    grade_elements,
    judge_explanations,
    judge_groups,
)
from .judge.protocols.zhang_format import Description, RankingExample
from .llm import LLMConfig, estimate_jobs
from .urls import redact_url

BACKENDS = ("openai", "transformers", "reward", "embedding")


@dataclass(frozen=True)
class JudgeSpec:
    """Which judge, and how to reach it (never a key: keys come from the environment)."""

    backend: str
    model: str
    base_url: str | None = None
    cache_dir: str | None = None
    max_concurrency: int = 16
    dry_run: bool = False  # LLM judges: count the calls still needed and their cost, then stop (DryRun)
    timeout_s: float | None = None  # LLM judges: seconds one call may take before it is retried (None: 120)

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise NyccBenchError(f"judge_backend: expected one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if not self.model:
            raise NyccBenchError("judge_model: empty; name a model (e.g. gpt-4o) or a folder")
        if self.timeout_s is not None and not (isinstance(self.timeout_s, int | float) and 0 < self.timeout_s < 1e9):
            raise NyccBenchError(f"judge_timeout: expected a positive number of seconds, got {self.timeout_s!r}")

    @classmethod
    def parse(cls, spec: str, **options: Any) -> JudgeSpec:
        """`backend:model` (a bare model name means `openai:`)."""
        backend, sep, model = spec.partition(":")
        if not sep or backend not in BACKENDS:
            backend, model = "openai", spec
        accepted = [f.name for f in fields(cls) if f.name not in ("backend", "model")]
        if unknown := sorted(set(options) - set(accepted)):
            raise NyccBenchError(f"judge-option: the judge {backend}:{model} takes no option {unknown[0]!r}; it takes: "
                                 f"{', '.join(accepted)}")
        return cls(backend, model, **options)

    def stop_if_dry(self, jobs: Callable[[LLMConfig], list[Any]]) -> None:
        """In a dry run, estimate the jobs the judge would run (after the cache) and stop before any call."""
        if self.dry_run and self.backend in ("openai", "transformers"):
            config = self.config()
            raise DryRun(estimate_jobs(jobs(config), config, echo=False))

    @property
    def is_llm(self) -> bool:
        """Whether the judge is an LLM (OpenAI-compatible or local transformers), not an offline model."""
        return self.backend in ("openai", "transformers")

    def metric_kwargs(self) -> dict[str, Any]:
        """The judge as the judged metrics' keyword arguments."""
        return {"judge_model": self.model, "judge_backend": self.backend, "judge_base_url": self.base_url,
                "cache_dir": self.cache_dir, "max_concurrency": self.max_concurrency}

    def describe(self) -> dict[str, Any]:
        """How results record the judge (never a key)."""
        return {"name": self.name, "backend": self.backend, "model": self.model, "base_url": redact_url(self.base_url)}

    @property
    def name(self) -> str:
        """How results and cards name this judge."""
        return f"{self.backend}:{self.model}"

    def config(self) -> LLMConfig:
        """The LLM judge engine's config for this spec."""
        if self.backend not in ("openai", "transformers"):
            raise ValueError(f"judge: {self.name} is not an LLM judge")
        timeout = {} if self.timeout_s is None else {"timeout_s": self.timeout_s}
        return LLMConfig(backend=self.backend, model=self.model, base_url=self.base_url,
                           cache_dir=self.cache_dir, max_concurrency=self.max_concurrency, **timeout)


PAPER_PARSE_RETRIES = {"humorbench_autograder": 0}
"""Re-asks of an unreadable judge reply, where the paper's code differs from the engine's default (HumorBench's
autograder records such a reply as ERROR at once: autograder.py)."""


def protocol_config(judge: JudgeSpec, protocol: str | None) -> LLMConfig:
    """The engine config a protocol runs with: the spec's, with the paper's re-asks for that protocol."""
    config = judge.config()
    if protocol in PAPER_PARSE_RETRIES:
        config = replace(config, parse_retries=PAPER_PARSE_RETRIES[protocol])
    return config


def judge_from_kwargs(judge_model: str | None, judge_backend: str | None = None, judge_base_url: str | None = None,
                      cache_dir: str | None = None, max_concurrency: int = 16,
                      judge_timeout_s: float | None = None) -> JudgeSpec | None:
    """The metrics' judge keyword arguments as a spec (None when no judge is asked for)."""
    if judge_model is None:
        return None
    options = {"base_url": judge_base_url, "cache_dir": cache_dir, "max_concurrency": max_concurrency,
               "timeout_s": judge_timeout_s}
    if judge_backend is None:
        return JudgeSpec.parse(judge_model, **options)
    return JudgeSpec(judge_backend, judge_model, **options)


@cache
def _reward_model(path: str) -> Any:
    from .reward import RewardModel

    return RewardModel.load(path)


@cache
def _grader(path: str) -> Any:
    from .reward import EmbeddingGrader

    return EmbeddingGrader.load(path)


def group_judgments(judge: JudgeSpec, model_groups: Sequence[Sequence[str]],
                    human_groups: Mapping[str, Sequence[Sequence[str]]], contest_numbers: Sequence[int],
                    descriptions: Sequence[Description] | None, protocol: str = "overall",
                    shots: Sequence[RankingExample] | Mapping[int, Sequence[RankingExample]] | None = None,
                    images: Sequence[str | None] | None = None, rule: str | None = None) -> list[dict[str, Any]]:
    """Zhang's group comparison of every contest against every human group, both orders. `images` (image URLs
    or data URLs, one per contest or None) give Best Pick its vision form, as in the paper; `rule` None is the
    protocol's upstream reading of a reply (Overall `zhang_top2`, Best Pick `exact_letter` / `last_char`)."""
    if judge.backend == "reward":
        from .reward import judge_groups_reward

        return judge_groups_reward(_reward_model(judge.model), model_groups, human_groups, contest_numbers,
                                   descriptions, protocol)
    if judge.backend == "embedding":
        raise ValueError("judge: the embedding grader grades HumorBench elements, not caption groups; use reward:")
    images = images if protocol == "best_pick" and images and any(images) else None
    judge.stop_if_dry(lambda config: build_group_jobs(model_groups, human_groups, contest_numbers, descriptions,
                                                      protocol, config, shots or None, images=images,
                                                      rule=rule))
    return judge_groups(model_groups, human_groups, contest_numbers, descriptions, protocol, judge.config(),
                        shots or None, images=images, rule=rule)


def element_judgments(judge: JudgeSpec, descriptions: Sequence[str], captions: Sequence[str],
                      elements: Sequence[str], explanations: Sequence[str],
                      last_k_tokens: int | None = None) -> list[dict[str, Any]]:
    """HumorBench: one PASS/FAIL/ERROR record per (explanation, element) row."""
    if judge.backend == "embedding":
        from .reward import grade_elements_embedding

        return grade_elements_embedding(descriptions, captions, elements, explanations, _grader(judge.model),
                                        last_k_tokens=last_k_tokens)
    if judge.backend == "reward":
        raise ValueError("judge: the reward model compares captions; grade HumorBench with embedding: or an LLM")
    judge.stop_if_dry(lambda config: build_grader_jobs(descriptions, captions, elements, explanations, config,
                                                       last_k_tokens))
    return grade_elements(descriptions, captions, elements, explanations,
                          protocol_config(judge, "humorbench_autograder"), last_k_tokens)


def explanation_judgments(judge: JudgeSpec, descriptions: Sequence[str], captions: Sequence[str],
                          model_explanations: Sequence[str], human_explanations: Sequence[str]) -> list[dict]:
    """Hessel's pairwise human evaluation played by an LLM judge: model vs human explanation, both orders."""
    if judge.backend not in ("openai", "transformers"):
        raise ValueError(f"judge: explanation pairwise judging needs an LLM judge, not {judge.name}")
    judge.stop_if_dry(lambda config: build_explanation_jobs(descriptions, captions, model_explanations,
                                                            human_explanations, config))
    return judge_explanations(descriptions, captions, model_explanations, human_explanations, judge.config())
