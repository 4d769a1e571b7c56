"""One judge protocol as one object: prompt files, named parsers, paper settings and the job builder, by name.

A protocol module builds its :class:`Protocol` and registers it (:func:`register_protocol`); everything else
(the generic judge ``nycc_bench.judging.run_judge``, the dry run, ``settings.protocol_settings``, the named
judge configurations, ``code_version``) reads the registry (``nycc_bench.judge.registry``) instead of
branching on protocol names.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ParamSpec

from ...errors import NyccBenchError
from ...llm.chat import ChatRequest
from ...llm.config import LLMConfig
from ...llm.engine import Job, LLMEngine, Record, run_jobs

P = ParamSpec("P")


@dataclass(frozen=True)
class Protocol:
    """A judge protocol: how its jobs are built, how a reply is read, what the paper did, which files it sends."""

    name: str
    build: Callable[..., list[Job]]  # the protocol's job builder; ``config`` and the inputs are keywords
    parse: Callable[..., dict[str, Any]]  # (Completion, rule=, model_position=) -> record fields, as its jobs read
    versions: tuple[str, ...]  # prompt versions, the current one first
    parsers: tuple[str, ...]  # the named reply parsers (``judge.parsers.PARSERS``) it can read replies with
    prompts: Callable[[str, bool], dict[str, str]]  # (version, vision) -> {template: prompt file name}
    paper: Mapping[str, Any]  # source, sent (sampling), rule, n_shots, parse_retries: the paper's setting
    probe: Mapping[str, Any]  # placeholder inputs: one job built from them shows what the protocol sends
    modules: tuple[str, ...]  # the modules of judge.protocols whose code it runs (code_version)
    fixed: Mapping[str, Any] = field(default_factory=dict)  # builder arguments this protocol always passes
    parser_args: tuple[str, ...] = ("parse_retries",)  # what a judge configuration may set about reading replies
    has_threshold: bool = False  # whether a recalibration threshold applies to its judgments
    desc: str = "judge"

    def jobs(self, config: LLMConfig | LLMEngine, **inputs: Any) -> list[Job]:
        """The LLM jobs for these inputs (for running, or for the dry run's estimate)."""
        return self.build(**self.fixed, **inputs, config=config)

    def run(self, config: LLMConfig | LLMEngine, **inputs: Any) -> list[Record]:
        """Build the jobs and run them on the engine, one record per job in order."""
        return run_jobs(self.jobs(config, **inputs), config, desc=self.desc)

    def probe_request(self, config: LLMConfig, *, rule: str | None = None, vision: bool = True) -> tuple[
            ChatRequest, str]:
        """One request (and its prompt version) built from placeholder inputs: what a run would send."""
        inputs = dict(self.probe)
        if not vision:
            inputs.pop("images", None)
        if rule is not None and self.takes_rule:
            inputs["rule"] = rule
        job = self.jobs(config, **inputs)[0]
        return job.request, job.prompt_version

    @property
    def takes_rule(self) -> bool:
        """Whether its job builder takes ``rule=`` (the named parser a run reads replies with)."""
        return "rule" in inspect.signature(self.build).parameters


_REGISTRY: dict[str, Protocol] = {}


def register_protocol(protocol: Protocol) -> Protocol:
    """Add ``protocol`` to the registry under its name (a second one with the same name is an error)."""
    if protocol.name in _REGISTRY and _REGISTRY[protocol.name] is not protocol:
        raise NyccBenchError(f"protocol {protocol.name!r}: registered twice; give the new one another name")
    _REGISTRY[protocol.name] = protocol
    return protocol


def registered() -> dict[str, Protocol]:
    """The registered protocols by name (import ``nycc_bench.judge.registry`` to have the built-in ones)."""
    return dict(_REGISTRY)


def lookup(name: str) -> Protocol:
    """The protocol called ``name``; an unknown name is one line naming the nearest one."""
    if name in _REGISTRY:
        return _REGISTRY[name]
    near = difflib.get_close_matches(str(name), list(_REGISTRY), n=1)
    hint = f"did you mean {near[0]!r}? " if near else ""
    raise NyccBenchError(f"protocol: no judge protocol {name!r}; {hint}known: {', '.join(_REGISTRY)}")


def runner(build: Callable[P, list[Job]], desc: str) -> Callable[P, list[Record]]:
    """The entry point that builds ``build``'s jobs and runs them on the ``config`` among its arguments, so a
    protocol writes its arguments once (``desc`` may name them: ``"judge {protocol}"``)."""
    signature = inspect.signature(build)

    @functools.wraps(build)
    def run(*args: P.args, **kwargs: P.kwargs) -> list[Record]:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return run_jobs(build(*args, **kwargs), bound.arguments["config"], desc=desc.format(**bound.arguments))

    run.__signature__ = signature.replace(return_annotation="list[Record]")  # type: ignore[attr-defined]
    run.__doc__ = f"Run the jobs of :func:`{build.__name__}` (same arguments) on the engine; one record per job."
    return run

