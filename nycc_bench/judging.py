"""One entry point per judged protocol, whatever the judge: an LLM (OpenAI-compatible or local transformers),
the humor reward model, or the embedding element grader. Metrics, `nycc-bench score` and the leaderboard
call these, so a judge is named the same way everywhere:

    <name>                  a named judge configuration (`nycc_bench/judges/<name>.yaml`, or a folder of
                            NYCC_BENCH_JUDGE_PATH, or a path to a .yaml): backend, model, protocol, prompt, parser
    openai:<model>          any OpenAI-compatible endpoint (`base_url`; key from OPENAI_API_KEY / NYCC_JUDGE_API_KEY)
    transformers:<path|id>  a local causal LM
    reward:<path|repo>      the humor reward model (group comparisons; free, offline)
    embedding:<path|repo>   the embedding element grader (HumorBench; free, offline)
    reward:sample, embedding:sample   those two trained on the invented sample (offline demo; built on first use)
    reward:public, embedding:public   those two trained on the public data (`nycc-bench judges train`)
    reward:default, embedding:default the public ones where trained here, else the sample's (recorded which and why)

Every LLM protocol runs through one function, :func:`run_judge`: the judge's settings applied to the protocol
object's jobs, the dry run estimating those same jobs.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from functools import cache
from typing import Any

from .errors import DryRun, NyccBenchError
from .judge.named import NamedJudge, find, is_path, judge_names, load_judge, nearest_name
from .judge.protocols.settings import protocol_settings
from .judge.protocols.zhang_format import Description, RankingExample
from .judge.registry import BUILT_IN, get_protocol
from .llm import DEFAULT_PRICES, Estimate, LLMConfig, estimate_jobs
from .llm.pricing import StatedPrice, table_price
from .sample_judges import DEFAULT, default_offline_model, trained_on
from .urls import redact_url

BACKENDS = ("openai", "transformers", "reward", "embedding")
OFFLINE = ("reward", "embedding")


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
    named: NamedJudge | None = None  # the judge configuration it came from (protocol, prompt, parser, threshold)
    batch: bool = False  # openai: through the Batch API at its rate (llm/batch.py)
    batch_dir: str | None = None  # where pending batch ids are kept (evaluate: the run folder)
    batch_wait_s: float | None = None  # stop waiting for a batch after this long (None: until it ends)
    chosen_because: str | None = None  # `reward:default` / `embedding:default`: which offline judge the rule chose

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise NyccBenchError(f"judge_backend: expected one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if not self.model:
            raise NyccBenchError("judge_model: empty; name a model (e.g. gpt-4o) or a folder")
        if self.timeout_s is not None and not (isinstance(self.timeout_s, int | float) and 0 < self.timeout_s < 1e9):
            raise NyccBenchError(f"judge_timeout: expected a positive number of seconds, got {self.timeout_s!r}")
        if self.batch and self.backend != "openai":
            raise NyccBenchError(f"judge_batch: the Batch API is OpenAI's; {self.backend}:{self.model} runs its calls "
                                 "itself (drop --judge-batch)")

    @classmethod
    def parse(cls, spec: str, **options: Any) -> JudgeSpec:
        """A judge configuration's name (or .yaml path), or `backend:model` (a bare model name means `openai:`)."""
        named = load_judge(spec) if ":" not in spec and (is_path(spec) or find(spec)) else None
        if named is None and ":" not in spec and (near := nearest_name(spec)):
            raise NyccBenchError(f"judge: no judge configuration {spec!r}; did you mean {near!r}? (a model is "
                                 f"named openai:{spec})")
        backend, sep, model = spec.partition(":")
        if named is not None:
            backend, model = named.backend, named.model
        elif not sep or backend not in BACKENDS:
            backend, model = "openai", spec
        accepted = [f.name for f in fields(cls) if f.name not in ("backend", "model", "named", "chosen_because")]
        if unknown := sorted(set(options) - set(accepted)):
            raise NyccBenchError(f"judge-option: the judge {backend}:{model} takes no option {unknown[0]!r}; it takes: "
                                 f"{', '.join(accepted)}")
        if named is not None:
            options = {**options, "base_url": options.get("base_url") or named.base_url, "named": named}
        if backend in OFFLINE and model == DEFAULT:  # the one rule chooses, and the record says which and why
            model, options["chosen_because"] = default_offline_model()
        return cls(backend, model, **options)

    @property
    def is_llm(self) -> bool:
        """Whether the judge is an LLM (OpenAI-compatible or local transformers), not an offline model."""
        return self.backend in ("openai", "transformers")

    def metric_kwargs(self) -> dict[str, Any]:
        """The judge as the judged metrics' keyword arguments (a named judge by its name, so they load it too)."""
        if self.named is not None:
            return {"judge_model": self.named.ref, "judge_backend": None, "judge_base_url": self.base_url,
                    "cache_dir": self.cache_dir, "max_concurrency": self.max_concurrency}
        return {"judge_model": self.model, "judge_backend": self.backend, "judge_base_url": self.base_url,
                "cache_dir": self.cache_dir, "max_concurrency": self.max_concurrency}

    def describe(self) -> dict[str, Any]:
        """How results record the judge (never a key); a named one with its configuration's resolved settings."""
        record = {"name": self.name, "backend": self.backend, "model": self.model,
                  "base_url": redact_url(self.base_url), "endpoint": self.endpoint()}
        if self.named is not None:
            record.update(config=self.named.name,
                          config_settings={**self.named.settings(), "base_url": record["base_url"]})
        if self.backend in OFFLINE:
            if said := trained_on(self.backend, self.model):
                record["trained_on"] = said
            if self.chosen_because:
                record["chosen_because"] = self.chosen_because
        return record

    def endpoint(self) -> str | None:
        """The endpoint an OpenAI-compatible judge calls, however it was given (`base_url`, the configuration's,
        else OPENAI_BASE_URL, else OpenAI's), without user, password or token; None for a local model."""
        if self.backend != "openai":
            return None
        from .llm.backends.openai_backend import resolve_base_url

        return str(redact_url(resolve_base_url(self.base_url)))

    @property
    def name(self) -> str:
        """How results, cards and recorded commands name this judge: its configuration, or `backend:model`."""
        return self.named.ref if self.named is not None else f"{self.backend}:{self.model}"

    @property
    def threshold(self) -> float | None:
        """The named judge's recalibration threshold (None: the paper's)."""
        return None if self.named is None else self.named.threshold

    def stated_price(self) -> StatedPrice | None:
        """What a call costs, with its source and date: 0 for an offline or local judge, the configuration's
        ``price:``, else the default table's; None when neither knows the model (never read as $0)."""
        if not self.is_llm or self.backend == "transformers":
            return StatedPrice(0.0, 0.0, "runs on this machine, no charge", "")
        if self.named is not None and self.named.price is not None:
            return self.named.price
        return table_price(self.model)

    def config(self) -> LLMConfig:
        """The LLM judge engine's config for this spec."""
        if self.backend not in ("openai", "transformers"):
            raise ValueError(f"judge: {self.name} is not an LLM judge")
        timeout = {} if self.timeout_s is None else {"timeout_s": self.timeout_s}
        named: dict[str, Any] = {}
        if self.named is not None:
            named = {"prompt_version": self.named.prompt, **dict(self.named.parser_args)}
        if self.named is not None and self.named.price is not None:
            named["prices"] = {**DEFAULT_PRICES, self.model: self.named.price.pair()}
        batch = {"batch": True, "batch_dir": self.batch_dir, "batch_wait_s": self.batch_wait_s} if self.batch else {}
        return LLMConfig(backend=self.backend, model=self.model, base_url=self.base_url,
                         cache_dir=self.cache_dir, max_concurrency=self.max_concurrency, **timeout, **named, **batch)


PAPER_PARSE_RETRIES = {p.name: p.paper["parse_retries"] for p in BUILT_IN if "parse_retries" in p.paper}
"""Re-asks of an unreadable judge reply, where the paper's code differs from the engine's default (HumorBench's
autograder records such a reply as ERROR at once: autograder.py)."""


def protocol_config(judge: JudgeSpec, protocol: str | None) -> LLMConfig:
    """The engine config a protocol runs with: the spec's, with the paper's re-asks for that protocol unless a
    named judge sets its own."""
    config = judge.config()
    paper = get_protocol(protocol).paper if protocol else {}
    if "parse_retries" in paper and "parse_retries" not in dict(judge.named.parser_args if judge.named else ()):
        config = replace(config, parse_retries=paper["parse_retries"])
    return config


@dataclass(frozen=True)
class ResolvedJudge:
    """One task's judge, resolved once before anything runs: the spec, the protocol it plays there, the engine
    config (the paper's re-asks filled in), how replies are read (the task's `rule` option, else a named judge's
    parser), the recalibration threshold and the task options the judge chose (a named judge's protocol on a
    task that offers it). Scorers, the record and the per-item verdicts read it; nothing parses or fills again."""

    spec: JudgeSpec
    protocol: str | None  # the protocol it plays (None: the task has no judge protocol, or the judge is offline)
    config: LLMConfig | None  # the LLM engine's config (None: an offline judge)
    rule: str | None  # how replies are read (None: the protocol's upstream rule)
    threshold: float | None  # Overall's recalibration threshold (None: the paper's)
    task_options: Mapping[str, Any] = field(default_factory=dict)  # options the judge set on the task

    @classmethod
    def resolve(cls, spec: JudgeSpec, protocol: str | None, rule: str | None = None,
                task_options: Mapping[str, Any] | None = None) -> ResolvedJudge:
        """``spec`` playing ``protocol``; a named judge made for another protocol is one line naming the fix."""
        named = spec.named
        if named is not None and protocol is not None and named.protocol != protocol:
            fitting = [n for n in judge_names() if load_judge(n).protocol == protocol]
            raise NyccBenchError(f"judge: {spec.name} is a {named.protocol} judge, not {protocol}; pass "
                                 f"{' or '.join(fitting) or 'backend:model'}, or run the task's "
                                 f"{named.protocol} protocol (its `protocol` option)")
        if rule is None and named is not None:
            rule = named.parser
        config = protocol_config(spec, protocol) if spec.is_llm else None
        return cls(spec, protocol if spec.is_llm else None, config, rule, spec.threshold, dict(task_options or {}))

    @property
    def name(self) -> str:
        """How results, cards and recorded commands name this judge."""
        return self.spec.name

    @property
    def backend(self) -> str:
        """The spec's backend (openai, transformers, reward, embedding)."""
        return self.spec.backend

    @property
    def model(self) -> str:
        """The spec's model (a name, a path or a folder)."""
        return self.spec.model

    @property
    def is_llm(self) -> bool:
        """Whether the judge is an LLM, not an offline model."""
        return self.spec.is_llm

    @property
    def prompt(self) -> str | None:
        """The prompt version it sends (None: the protocol's current one, or an offline judge)."""
        return self.config.prompt_version if self.config is not None else None

    def describe(self) -> dict[str, Any]:
        """How results record the judge (never a key)."""
        return self.spec.describe()

    def endpoint(self) -> str | None:
        """The endpoint an OpenAI-compatible judge calls, without credentials; None for a local model."""
        return self.spec.endpoint()

    def win_rate_kwargs(self) -> dict[str, Any]:
        """The group win rate's settings this judge fixes (a named judge's threshold), else none."""
        return {} if self.threshold is None else {"threshold": self.threshold}

    def settings(self, **options: Any) -> dict[str, Any]:
        """``protocol_settings`` of this judge on its protocol, with its rule and threshold unless given."""
        if self.protocol is None or self.config is None:
            raise ValueError(f"judge: {self.name} plays no LLM protocol here")
        return protocol_settings(self.protocol, self.config, **{"rule": self.rule, "threshold": self.threshold,
                                                                 **options})


_COUNTED: ContextVar[list[Estimate] | None] = ContextVar("judged_calls", default=None)


@contextmanager
def counting_calls() -> Iterator[list[Estimate]]:
    """Within it, each LLM judge run in this thread also adds the estimate of all its calls, cached or not (tokens
    counted on the prompts it sends, at the config's price), to the list it yields: what `judges report` prices."""
    counted: list[Estimate] = []
    token = _COUNTED.set(counted)
    try:
        yield counted
    finally:
        _COUNTED.reset(token)


def run_judge(protocol: str, judge: JudgeSpec | ResolvedJudge, **inputs: Any) -> list[dict[str, Any]]:
    """Run ``protocol`` (a registered name) with an LLM judge on ``inputs`` (the protocol's job builder's); a spec
    is resolved for it here (a task's run passes the judge it resolved once), a dry run stops with the estimate
    of the same jobs."""
    proto = get_protocol(protocol)
    resolved = judge if isinstance(judge, ResolvedJudge) else \
        ResolvedJudge.resolve(judge, proto.name, rule=inputs.get("rule"))
    if resolved.protocol != proto.name or resolved.config is None:
        raise ValueError(f"judge: {resolved.name} was resolved for {resolved.protocol}, not {proto.name}")
    if proto.takes_rule and resolved.rule is not None:
        inputs["rule"] = resolved.rule
    if resolved.spec.dry_run:
        raise DryRun(estimate_jobs(proto.jobs(resolved.config, **inputs), resolved.config, echo=False))
    if (counted := _COUNTED.get()) is not None:
        whole = resolved.config.replace(use_cache=False)  # every call counts, whether the cache holds it or not
        counted.append(estimate_jobs(proto.jobs(whole, **inputs), whole, echo=False))
    return proto.run(resolved.config, **inputs)


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
    from .sample_judges import judge_folder

    return RewardModel.load(judge_folder("reward", path))


def reward_trained_contests(judge: JudgeSpec) -> set[int]:
    """The real contests whose ratings a reward judge was fitted on (none for any other judge, nor for the sample's,
    whose contest numbers name invented ratings): checks on real ratings leave them out, never scored in-sample."""
    if judge.backend != "reward":
        return set()
    from .reward.evaluate import trained_contests

    model = _reward_model(judge.model)
    return set() if model.config.get("data_source") == "sample" else trained_contests(model)


@cache
def _grader(path: str) -> Any:
    from .reward import EmbeddingGrader
    from .sample_judges import judge_folder

    return EmbeddingGrader.load(judge_folder("embedding", path))


def group_judgments(judge: JudgeSpec | ResolvedJudge, model_groups: Sequence[Sequence[str]],
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
    return run_judge(protocol, judge, model_groups=model_groups, human_groups=human_groups,
                     contest_numbers=contest_numbers, descriptions=descriptions, shots=shots or None, images=images,
                     rule=rule)


def element_judgments(judge: JudgeSpec | ResolvedJudge, descriptions: Sequence[str], captions: Sequence[str],
                      elements: Sequence[str], explanations: Sequence[str],
                      last_k_tokens: int | None = None, tokenizer: Any = None) -> list[dict[str, Any]]:
    """HumorBench: one PASS/FAIL/ERROR record per (explanation, element) row (`last_k_tokens` by `tokenizer`,
    whitespace words without one)."""
    if judge.backend == "embedding":
        from .reward import grade_elements_embedding

        return grade_elements_embedding(descriptions, captions, elements, explanations, _grader(judge.model),
                                        last_k_tokens=last_k_tokens)
    if judge.backend == "reward":
        raise ValueError("judge: the reward model compares captions; grade HumorBench with embedding: or an LLM")
    return run_judge("humorbench_autograder", judge, descriptions=descriptions, captions=captions, elements=elements,
                     explanations=explanations, last_k_tokens=last_k_tokens, tokenizer=tokenizer)


def explanation_judgments(judge: JudgeSpec | ResolvedJudge, descriptions: Sequence[str], captions: Sequence[str],
                          model_explanations: Sequence[str], human_explanations: Sequence[str]) -> list[dict]:
    """Hessel's pairwise human evaluation played by an LLM judge: model vs human explanation, both orders."""
    if judge.backend not in ("openai", "transformers"):
        raise ValueError(f"judge: explanation pairwise judging needs an LLM judge, not {judge.name}")
    return run_judge("explanation_pairwise", judge, descriptions=descriptions, captions=captions,
                     model_explanations=model_explanations, human_explanations=human_explanations)
