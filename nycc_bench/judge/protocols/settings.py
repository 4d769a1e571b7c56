"""Every judge protocol's settings as plain data, and the ways a chosen configuration departs from the paper.

``protocol_settings(name, config, **options)`` says what a run with this judge config would send and how it
reads replies: the model and the paper's model, the sampling settings actually sent (read off a request the
protocol builds, so it cannot drift from the code), the paper's sampling settings, the reply rule, the
threshold, the prompt version and a sha256 of each prompt template. ``deviations`` lists, one sentence
each, every difference from the paper's setting that can change a number; ``notes`` lists differences that
cannot (e.g. Overall's 1-token cap: only the first token's log-probs are read). Both are empty-safe lists,
so results and ``nycc-bench tasks show`` can print them as they are.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from nycc_bench.scoring.win_rate import THRESHOLD

from ...llm.chat import ChatRequest
from ...llm.config import LLMConfig
from ..prompts import read_prompt
from ..registry import get_protocol, protocol_names
from . import best_pick, overall

PROTOCOLS: tuple[str, ...] = protocol_names()
"""The registered protocols' names (each protocol object carries its paper setting, prompts and parsers)."""

PAPER: dict[str, dict[str, Any]] = {name: dict(get_protocol(name).paper) for name in PROTOCOLS}
"""Each protocol's paper setting: source, the sampling it sent, its reply rule (and shots, re-asks)."""


def sha256(text: str) -> str:
    """Hex sha256 of a template's UTF-8 bytes.

    >>> sha256("")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _templates(protocol: str, version: str, vision: bool) -> dict[str, str]:
    """The prompt templates a protocol sends, by name (read from the protocol's prompt files)."""
    return {name: read_prompt(file) for name, file in get_protocol(protocol).prompts(version, vision).items()}


def sent_settings(request: ChatRequest, config: LLMConfig) -> dict[str, Any]:
    """The model and sampling fields an OpenAI-compatible request carries (absent = the API's default)."""
    sent: dict[str, Any] = {"model": config.model}
    if request.temperature is not None:
        sent["temperature"] = float(request.temperature)
    if request.max_tokens is not None:
        sent["max_tokens"] = int(request.max_tokens)
    if request.top_logprobs:
        sent.update(logprobs=True, top_logprobs=int(request.top_logprobs))
    sent.update({k: v for k, v in config.extra_body.items() if k not in sent})
    return sent


def protocol_settings(
    protocol: str,
    config: LLMConfig | None = None,
    *,
    rule: str | None = None,
    vision: bool = True,
    threshold: float | None = None,
    n_shots: int | None = None,
    last_k_tokens: int | None = None,
) -> dict[str, Any]:
    """The settings of ``protocol`` run with ``config`` (None: the paper's judge model with defaults).

    Returns ``{"protocol", "source", "model", "model_default", "prompt_version", "prompt_sha256" {name: hex},
    "prompt_digest", "sampling_sent", "sampling_paper", "rule", "rule_default", "threshold" (Overall, else
    None), "top_logprobs", "n_shots", "parse_retries", "last_k_tokens", "vision" (Best Pick, else None),
    "notes", "deviations"}``, JSON-serialisable. ``vision`` False is Best Pick's text form; ``n_shots`` None
    means the paper's (5 for Zhang's protocols).
    """
    if protocol not in protocol_names():
        raise ValueError(f"protocol: expected one of {', '.join(protocol_names())}, got {protocol!r}")
    proto = get_protocol(protocol)
    paper = proto.paper
    paper_sent = paper["sent"]
    if config is None:
        model = (paper_sent or {}).get("model", "gpt-4o")
        config = LLMConfig(model=model, parse_retries=paper.get("parse_retries", 2))
    request, version = proto.probe_request(config, rule=rule, vision=vision)
    sent = sent_settings(request, config)
    if protocol == "overall":
        used_rule = overall.check_rule(rule)
    elif protocol == "best_pick":
        used_rule = best_pick.check_rule(rule, vision)
    else:
        used_rule = paper["rule"]
    shots = (paper["n_shots"] if n_shots is None else n_shots) if "n_shots" in paper else None
    used_threshold = (THRESHOLD if threshold is None else float(threshold)) if proto.has_threshold else None
    templates = _templates(protocol, version, vision)
    hashes = {name: sha256(text) for name, text in templates.items()}
    settings: dict[str, Any] = {
        "protocol": protocol,
        "source": paper["source"],
        "model": config.model,
        "model_default": (paper_sent or {}).get("model"),
        "prompt_version": version,
        "prompt_sha256": hashes,
        "prompt_digest": sha256(json.dumps(hashes, sort_keys=True)),
        "sampling_sent": sent,
        "sampling_paper": paper_sent,
        "rule": used_rule,
        "rule_default": best_pick.default_rule(vision) if protocol == "best_pick" else paper["rule"],
        "threshold": used_threshold,
        "top_logprobs": int(request.top_logprobs) or None,
        "n_shots": shots,
        "parse_retries": config.parse_retries,
        "last_k_tokens": last_k_tokens if protocol == "humorbench_autograder" else None,
        "vision": vision if protocol == "best_pick" else None,
    }
    settings["notes"], settings["deviations"] = _differences(protocol, settings)
    return settings


def _differences(protocol: str, s: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(notes, deviations): differences from the paper that cannot / can change a number, one sentence each."""
    notes: list[str] = []
    deviations: list[str] = []
    paper, sent = s["sampling_paper"], s["sampling_sent"]
    if paper is None:
        notes.append("No published judge for this protocol: the prompt and settings are this project's own.")
        return notes, deviations
    if paper.get("model") and sent["model"] != paper["model"]:
        deviations.append(f"The judge is {sent['model']}; the paper's is {paper['model']}.")
    if sent.get("temperature") != paper.get("temperature"):
        said = "left at the API default" if "temperature" not in sent else f"{sent['temperature']:g}"
        wanted = "left at the API default" if "temperature" not in paper else f"{paper['temperature']:g}"
        deviations.append(f"Temperature is {said}; the paper's is {wanted}.")
    if "max_tokens" in sent and "max_tokens" not in paper:
        text = f"max_tokens is sent as {sent['max_tokens']}; upstream leaves it unset."
        harmless = protocol == "overall" or (protocol == "best_pick" and s["rule"] == "exact_letter")
        if harmless:
            notes.append(text[:-1] + ", which cannot change the verdict (only the first token, or only a "
                         "one-letter reply, counts).")
        else:
            deviations.append(text[:-1] + ", so a reply longer than that is cut.")
    if protocol == "overall" and sent.get("top_logprobs") != paper["top_logprobs"]:
        deviations.append(f"top_logprobs is {sent.get('top_logprobs')}; the paper asks for {paper['top_logprobs']}.")
    if protocol == "best_pick" and "logprobs" not in sent:
        notes.append("Best Pick does not ask for logprobs (upstream did, and never read them).")
    if s["rule"] != s["rule_default"]:
        deviations.append(f"Replies are read with the {s['rule']!r} rule; the paper's is {s['rule_default']!r}.")
    if protocol == "best_pick" and not s["vision"]:
        deviations.append("Best Pick runs in its text form (descriptions); the paper's judge sees the cartoon.")
    if s["threshold"] is not None and s["threshold"] != THRESHOLD:
        deviations.append(f"The recalibration threshold is {s['threshold']}; the paper's is {THRESHOLD}.")
    if s["n_shots"] is not None and s["n_shots"] != 5:
        deviations.append(f"The judge gets {s['n_shots']} in-context examples; the paper's gets 5.")
    if s["prompt_version"] != {"overall": overall.PROMPT_VERSION, "best_pick": best_pick.PROMPT_VERSION}.get(
        protocol, s["prompt_version"]
    ):
        deviations.append(f"Prompt version {s['prompt_version']} is pinned; the current one is the upstream code's.")
    if protocol == "humorbench_autograder":
        if s["parse_retries"]:
            deviations.append(f"A reply without a PASS/FAIL verdict is asked again up to {s['parse_retries']} "
                              "times; upstream records it as ERROR at once.")
        if s["last_k_tokens"] is not None and s["last_k_tokens"] != 1000:
            deviations.append(f"Explanations are cut to their last {s['last_k_tokens']} tokens before grading; "
                              "the paper cuts them to their last 1000 (§3.5).")
    return notes, deviations
