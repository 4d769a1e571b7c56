"""Hessel et al. 2023 explanation evaluation by an LLM judge: model explanation vs human one, both orders.

Hessel et al. compared explanations pairwise with human raters ("which explanation is better?"); no judge
prompt was published, so this one is the project's own (version ``nycc-explanation-pairwise-v1``), built
on their annotation guidance: "explain the joke as if to a friend who doesn't 'get it' yet".

Entry points::

    judge_explanations(descriptions, captions, model_explanations, human_explanations, config)
        -> list[dict]   # {"index", "model_position", "verdict": "A"|"B"|"ERROR", "raw", "prompt_version", "error"}
    build_explanation_jobs(...same arguments...) -> list[Job]
    explanation_win_rate(records, n_resamples=10000, confidence=0.95, seed=0) -> dict
        # {"win_rate" (0–1), "ci_low", "ci_high", "confidence", "n_items", "n_judgments", "n_error"}
    PAIRWISE                                    # the registered Protocol object
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...llm.chat import ChatRequest, Completion
from ...llm.config import LLMConfig
from ...llm.engine import ERROR, Job, LLMEngine, Record
from ..parsers import parse_last_letter
from ..prompts import read_prompt
from . import judge_config, resolve_prompt_version
from .base import Protocol, register_protocol, runner

PROMPT_VERSION = "nycc-explanation-pairwise-v1"
KNOWN_VERSIONS: tuple[str, ...] = (PROMPT_VERSION,)
DEFAULT_TEMPERATURE = 0.0
DEFAULT_MAX_TOKENS = 512
EXPECTED_OUTPUT_TOKENS = 150

SYSTEM = read_prompt("nycc-explanation-pairwise-v1.system")
PROMPT = read_prompt("nycc-explanation-pairwise-v1.prompt")


def build_messages(description: str, caption: str, explanation_a: str, explanation_b: str) -> tuple[dict, ...]:
    """The judge conversation for one ordered pair of explanations."""
    text = PROMPT.format(
        description=description, caption=caption, explanation_a=explanation_a, explanation_b=explanation_b
    )
    return ({"role": "system", "content": SYSTEM}, {"role": "user", "content": text})


def _parse(completion: Completion) -> dict[str, Any]:
    return {"verdict": parse_last_letter(completion.text)}


def build_explanation_jobs(
    descriptions: Sequence[str],
    captions: Sequence[str],
    model_explanations: Sequence[str],
    human_explanations: Sequence[str],
    config: LLMConfig | LLMEngine,
) -> list[Job]:
    """Two jobs per item: model explanation as A, then as B."""
    n = len(descriptions)
    if not len(captions) == len(model_explanations) == len(human_explanations) == n:
        raise ValueError("descriptions, captions and both explanation lists need the same length")
    cfg = judge_config(config)
    version = resolve_prompt_version(config, KNOWN_VERSIONS)
    temperature = DEFAULT_TEMPERATURE if cfg.temperature is None else cfg.temperature
    max_tokens = DEFAULT_MAX_TOKENS if cfg.max_tokens is None else cfg.max_tokens
    jobs = []
    for i in range(n):
        model, human = model_explanations[i], human_explanations[i]
        for position, (a, b) in (("A", (model, human)), ("B", (human, model))):
            jobs.append(
                Job(
                    request=ChatRequest(
                        messages=build_messages(descriptions[i], captions[i], a, b),
                        max_tokens=max_tokens,
                        temperature=temperature,
                    ),
                    parse=_parse,
                    prompt_version=version,
                    meta={"index": i, "model_position": position},
                    failure={"verdict": ERROR},
                    expected_output_tokens=EXPECTED_OUTPUT_TOKENS,
                )
            )
    return jobs


judge_explanations = runner(build_explanation_jobs, "judge explanations")
"""Judge each model explanation against the human one, in both orders."""


def explanation_win_rate(
    records: Sequence[Record], n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0
) -> dict[str, Any]:
    """Share (0–1) of judgments preferring the model's explanation, with a percentile bootstrap CI over items
    (``nycc_bench.scoring.bootstrap_ci``: both orders of an item move together); ERROR judgments are left
    out and counted."""
    from nycc_bench.scoring.bootstrap import bootstrap_ci  # lazy: scoring imports heavy packages

    wins: dict[int, int] = {}
    valid: dict[int, int] = {}
    for record in records:
        item = int(record["index"])
        wins.setdefault(item, 0)
        valid.setdefault(item, 0)
        if record.get("verdict") in ("A", "B"):
            valid[item] += 1
            wins[item] += record["verdict"] == record["model_position"]
    items = list(wins)
    n_valid = sum(valid.values())
    low, high = bootstrap_ci(
        [wins[i] for i in items], [valid[i] for i in items],
        confidence=confidence, n_resamples=n_resamples, seed=seed,
    )
    return {
        "win_rate": sum(wins.values()) / n_valid if n_valid else None,
        "ci_low": low,
        "ci_high": high,
        "confidence": confidence,
        "n_items": len(items),
        "n_judgments": len(records),
        "n_error": len(records) - n_valid,
    }


PAIRWISE = register_protocol(Protocol(
    name="explanation_pairwise", build=build_explanation_jobs, parse=lambda completion, **_: _parse(completion),
    versions=KNOWN_VERSIONS, parsers=("last_letter",),
    prompts=lambda version, vision=True: {"system": "nycc-explanation-pairwise-v1.system",
                                          "prompt": "nycc-explanation-pairwise-v1.prompt"},
    probe={"descriptions": ["d"], "captions": ["c"], "model_explanations": ["m"], "human_explanations": ["h"]},
    modules=("explanation_pairwise",), desc="judge explanations",
    paper={"source": "this project's judge (Hessel et al. 2023 compared explanations with human raters only)",
           "sent": None, "rule": "last_letter"},
))
