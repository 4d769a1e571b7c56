"""A task as data: one YAML file (plus its prompt files) read into a frozen `Task`; nothing branches on a name.

A task file names its dataset config, split and folds, the instance builder and parser (by name), its prompt
files, the scorer (metric and how instance fields map onto its arguments), whether a judge is needed, the
decoding defaults (the paper's), the scores it reports, named options that deviate from the paper, and the
paper and upstream file it follows. `base: other_task` reuses another file and changes a few keys (variants).
`prompt_version` is derived from the prompt files' hashes, so a changed prompt can never keep an old version.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import NyccBenchError

Kind = Literal["choice", "generation"]
FAMILIES = ("hessel2023", "zhang2024", "humorbench")


@dataclass(frozen=True)
class Score:
    """One reported number of a task: where its value, interval and count sit in the metric's output."""

    key: str
    label: str
    path: str  # dotted path into the metric's output
    low: str | None = "ci_low"  # sibling keys of the path's last part (None: no interval)
    high: str | None = "ci_high"
    n: str = "n"  # a sibling key, or a sum such as "n_pass+n_fail"
    rate: bool = True  # a fraction in [0, 1], shown as a percentage
    headline: bool = False  # shown on the leaderboard's overview
    judged: bool = False  # needs a judge
    higher_is_better: bool | None = None  # None: the task's direction


@dataclass(frozen=True)
class TaskOption:
    """A named setting that may deviate from the paper: its default, allowed values and what a change means."""

    name: str
    default: Any
    values: tuple[Any, ...]
    help: str
    deviation: str  # one sentence, shown when a non-default value is chosen; "{value}" is filled in
    stage: str = "run"  # "run": changes the predictions; "score": only how they are scored


@dataclass(frozen=True)
class Task:
    """Everything that defines a task and affects its numbers (see the module docstring)."""

    name: str
    family: str
    version: int
    summary: str
    paper: str
    follows: str
    config: str
    split: str
    folds: tuple[int, ...]
    kind: Kind
    instances: str
    parser: str
    scorer: str
    metric: str
    arguments: Mapping[str, str]
    metric_options: Mapping[str, Any]
    prompts: Mapping[str, str]  # role -> template text
    prompt_files: Mapping[str, str]  # role -> file, relative to the tasks folder
    judge: Mapping[str, Any]
    decoding: Mapping[str, Any]
    scores: tuple[Score, ...]
    options: Mapping[str, TaskOption] = field(default_factory=dict)
    letters: str = ""
    from_pixels: bool = False
    higher_is_better: bool = True
    deviations: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()  # extra analyses of the predictions (e.g. "novelty": copies of human captions)
    source: str = ""  # the task file, relative to the tasks folder

    @property
    def has_folds(self) -> bool:
        """Whether the task is cross-validated (Hessel: five folds, averaged)."""
        return len(self.folds) > 1

    @property
    def needs_judge(self) -> bool:
        """Whether any score of the task needs a judge (some may still be computed without one)."""
        return bool(self.judge.get("required"))

    @property
    def prompt_sha256(self) -> dict[str, str]:
        """The sha256 of each prompt template, by role."""
        return {role: hashlib.sha256(text.encode()).hexdigest() for role, text in sorted(self.prompts.items())}

    @property
    def prompt_version(self) -> str:
        """`<task>-<12 hex>`: derived from every template's hash, so it changes whenever a prompt does."""
        joined = "".join(f"{role}:{sha}\n" for role, sha in self.prompt_sha256.items())
        return f"{self.name}-{hashlib.sha256(joined.encode()).hexdigest()[:12]}"

    def option_values(self, chosen: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every option's value: the defaults with `chosen` applied; an unknown option or value is an error."""
        chosen = dict(chosen or {})
        if unknown := sorted(set(chosen) - set(self.options)):
            known = ", ".join(self.options) or "none"
            raise NyccBenchError(f"task-option: {self.name} has no option {unknown[0]!r} (options: {known})")
        values = {}
        for name, option in self.options.items():
            value = chosen.get(name, option.default)
            if option.values and value not in option.values:
                raise NyccBenchError(f"task-option: {self.name}.{name} must be one of "
                                     f"{', '.join(map(str, option.values))}, got {value!r}")
            values[name] = value
        return values

    def run_options(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The options that change the predictions (recorded beside them and checked on resume)."""
        return {n: v for n, v in values.items() if self.options[n].stage == "run"}

    def option_deviations(self, values: Mapping[str, Any]) -> list[str]:
        """One sentence per option set away from the paper's default."""
        return [o.deviation.format(value=values[n]) for n, o in self.options.items()
                if n in values and values[n] != o.default and o.deviation]

    def describe(self) -> dict[str, Any]:
        """The whole definition as plain data: what `nycc-bench tasks show` prints and results record."""
        return {
            "name": self.name, "version": self.version, "family": self.family, "summary": self.summary,
            "paper": self.paper, "follows": self.follows, "task_file": self.source,
            "dataset": {"config": self.config, "split": self.split, "folds": list(self.folds)},
            "kind": self.kind, "letters": self.letters, "from_pixels": self.from_pixels,
            "instances": self.instances, "parser": self.parser,
            "prompts": {role: {"file": self.prompt_files[role], "sha256": sha}
                        for role, sha in self.prompt_sha256.items()},
            "prompt_version": self.prompt_version,
            "scorer": {"name": self.scorer, "metric": self.metric, "arguments": dict(self.arguments),
                       "options": dict(self.metric_options)},
            "judge": dict(self.judge), "decoding": dict(self.decoding),
            "options": {n: {"default": o.default, "values": list(o.values), "stage": o.stage, "help": o.help}
                        for n, o in self.options.items()},
            "scores": [s.key for s in self.scores], "higher_is_better": self.higher_is_better,
            "checks": list(self.checks),
            "deviations": list(self.deviations),
        }


def _merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge a variant's keys over its base (mappings merge, everything else replaces)."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(dict(out[key]), value)
        else:
            out[key] = copy.deepcopy(value)
    return out


REQUIRED = ("name", "family", "version", "summary", "paper", "follows", "dataset", "kind", "instances", "parser",
            "scorer", "prompts", "decoding", "scores")


def build_task(raw: Mapping[str, Any], root: Path, source: str) -> Task:
    """A `Task` from a task file's merged content; every missing or wrong key is named."""
    where = f"task file {source}"
    if missing := [k for k in REQUIRED if k not in raw]:
        raise NyccBenchError(f"{where}: lacks {', '.join(missing)}; copy the keys of an existing task file")
    if raw["family"] not in FAMILIES:
        raise NyccBenchError(f"{where}: family {raw['family']!r} is not one of {', '.join(FAMILIES)}")
    if raw["kind"] not in ("choice", "generation"):
        raise NyccBenchError(f"{where}: kind must be choice or generation, got {raw['kind']!r}")
    prompts, files = {}, {}
    for role, rel in raw["prompts"].items():
        path = root / rel
        if not path.is_file():
            raise NyccBenchError(f"{where}: prompt file {rel} ({role}) does not exist; add it beside the task")
        prompts[role], files[role] = path.read_text(encoding="utf-8"), rel
    scorer = raw["scorer"]
    options = {n: TaskOption(n, o["default"], tuple(o.get("values", ())), o.get("help", ""), o["deviation"],
                             o.get("stage", "run"))
               for n, o in (raw.get("options") or {}).items()}
    dataset = raw["dataset"]
    return Task(
        name=raw["name"], family=raw["family"], version=int(raw["version"]), summary=raw["summary"],
        paper=raw["paper"], follows=raw["follows"], config=dataset["config"], split=dataset.get("split", "test"),
        folds=tuple(dataset.get("folds") or (0,)), kind=raw["kind"], instances=raw["instances"],
        parser=raw["parser"], scorer=scorer["name"], metric=scorer["metric"],
        arguments=dict(scorer.get("arguments") or {}), metric_options=dict(scorer.get("options") or {}),
        prompts=prompts, prompt_files=files, judge=dict(raw.get("judge") or {"required": False}),
        decoding=dict(raw["decoding"]), scores=tuple(Score(**s) for s in raw["scores"]), options=options,
        letters=raw.get("letters", ""), from_pixels=bool(raw.get("from_pixels", False)),
        higher_is_better=bool(raw.get("higher_is_better", True)), deviations=tuple(raw.get("deviations") or ()),
        checks=tuple(raw.get("checks") or ()),
        source=source,
    )
