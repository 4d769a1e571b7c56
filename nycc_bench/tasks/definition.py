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

from ..errors import NyccBenchError, refuse_unknown_keys
from .completeness import Completeness
from .display import Display, read_display
from .families import families
from .path import inside

Kind = Literal["choice", "generation"]


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
    range: tuple[float | None, float | None] | None = None  # None: [0, 1] for a rate, else unbounded
    pooled: bool = False  # a column over a store's runs: `path` is each run's per-item verdicts in `details`

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        """The values this score can take: [0, 1] for a rate unless the task file says otherwise."""
        if self.range is not None:
            return (self.range[0], self.range[1])
        return (0.0, 1.0) if self.rate else (None, None)


@dataclass(frozen=True)
class Outputs:
    """The shape of a system's answer to one instance: how many outputs, and how several are written (systems read
    it; the parser reads them back)."""

    count: int = 1
    format: str = "text"  # "text": one answer as is; "numbered": "1. ..." lines, one output each


OPTION_TYPES: dict[str, tuple[type, ...]] = {"int": (int,), "float": (int, float), "str": (str,), "bool": (bool,)}


@dataclass(frozen=True)
class TaskOption:
    """A named setting: its type, default and (optionally) the only values it takes; how a value differs from
    the paper is the `paper:` block's business, computed per run."""

    name: str
    default: Any
    values: tuple[Any, ...]
    help: str
    stage: str = "run"  # "run": changes the predictions; "score": only how they are scored
    type: str | None = None  # int, float, str or bool; None: any of `values`
    nullable: bool = True  # whether null is a value

    def check(self, value: Any, owner: str) -> Any:
        """`value` if this option takes it, else a one-line error naming the option and what it takes."""
        if value is None and self.nullable and (not self.values or None in self.values):
            return value
        if self.values and value not in self.values:
            raise NyccBenchError(f"task-option: {owner}.{self.name} must be one of "
                                 f"{', '.join(map(str, self.values))}, got {value!r}")
        if self.type is not None:
            ok = isinstance(value, OPTION_TYPES[self.type]) and not (self.type != "bool" and isinstance(value, bool))
            if not ok:
                raise NyccBenchError(f"task-option: {owner}.{self.name} must be {_article(self.type)}, got {value!r}")
            if self.type in ("int", "float") and value < 0:
                raise NyccBenchError(f"task-option: {owner}.{self.name} must be ≥ 0, got {value!r}")
        return value


def _article(kind: str) -> str:
    """'an int', 'a str' (for error messages)."""
    return {"int": "a whole number", "float": "a number", "str": "a string", "bool": "true or false"}[kind]


@dataclass(frozen=True)
class PaperSetting:
    """One setting as the paper (or its code) ran it: where the run's value sits in `config.effective`, the
    paper's value (or values), the source, and the sentence a different value gives."""

    name: str
    at: str  # dotted path into the effective settings
    values: tuple[Any, ...]  # one or more accepted values
    source: str
    deviation: str  # "{value}" (the run's) and "{paper}" (the paper's) are filled in
    when: str | None = None  # a path that must be set (`path`) or hold one of some values (`path=a|b`) to apply

    def applies(self, effective: Mapping[str, Any]) -> bool:
        """Whether `when` holds: the path is set, or (`path=a|b`) its value is one of those."""
        if not self.when:
            return True
        path, eq, wanted = self.when.partition("=")
        found = lookup(effective, path)
        return str(found) in wanted.split("|") if eq else bool(found)

    def differs(self, effective: Mapping[str, Any]) -> str | None:
        """The deviation sentence when the run's value is not the paper's; None when it is, or when the run
        has no such setting (e.g. no request is sent by a baseline) or `when` does not hold."""
        if not self.applies(effective):
            return None
        parent, _, key = self.at.rpartition(".")
        holder = lookup(effective, parent) if parent else effective
        if not isinstance(holder, Mapping):
            return None
        value = holder.get(key)
        if _same_any(value, self.values):
            return None
        return self.deviation.format(value=_say(value), paper=" or ".join(_say(v) for v in self.values))


def lookup(data: Any, path: str) -> Any:
    """`a.b.c` in nested mappings; None when any part is missing."""
    for part in path.split("."):
        if not isinstance(data, Mapping) or part not in data:
            return None
        data = data[part]
    return data


def _same_any(value: Any, values: tuple[Any, ...]) -> bool:
    """Whether `value` is one of `values` (1 and 1.0 are the same; lists compare sorted)."""
    def norm(v: Any) -> Any:
        if isinstance(v, list | tuple):
            return sorted(norm(x) for x in v)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else v
    return any(norm(value) == norm(v) for v in values)


def _say(value: Any) -> str:
    """A value as a sentence shows it."""
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(map(_say, value)) + "]"
    return str(value)


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
    deviations: tuple[str, ...] = ()  # what cannot be computed from the effective settings (each tested true)
    checks: tuple[str, ...] = ()  # extra analyses of the predictions (e.g. "novelty": copies of human captions)
    source: str = ""  # the task file, relative to the tasks folder
    paper_settings: Mapping[str, PaperSetting] = field(default_factory=dict)
    display: Display = field(default_factory=Display)  # how the leaderboard's Browse tab shows it
    outputs: Outputs = Outputs()
    built_in: bool = True  # False: read from a folder of the include path (`source` is relative to that folder)
    by_system_kind: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # kind -> decoding, options
    completeness: Completeness = field(default_factory=Completeness)  # the shares of a whole run (`wholeness`)

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
        return {name: option.check(chosen.get(name, option.default), self.name)
                for name, option in self.options.items()}

    def run_options(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The options that change the predictions (recorded beside them and checked on resume)."""
        return {n: v for n, v in values.items() if self.options[n].stage == "run"}

    def kind_settings(self, kind: str, options: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The task file's `by_system_kind` entry for a system kind (`hf`, `vlm`, `openai`), when the option
        `setting` is `per_system` (the default where it exists); None: the task's own decoding and options."""
        if options.get("setting", "per_system") != "per_system":
            return None
        return self.by_system_kind.get(kind)

    def decoding_for(self, kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """The decoding a system of `kind` uses: its kind's upstream settings (`by_system_kind`), else the
        task's `decoding:`."""
        settings = self.kind_settings(kind, options)
        return dict(settings["decoding"]) if settings and "decoding" in settings else dict(self.decoding)

    def options_for(self, kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """`options` with each unset (null) option taken from the kind's `by_system_kind` entry, then from the
        `uniform` entry (the task's single setting); options set by the user are kept."""
        settings = self.kind_settings(kind, options) or {}
        fallback = self.by_system_kind.get("uniform", {}).get("options", {})
        return {n: (v if v is not None else settings.get("options", {}).get(n, fallback.get(n)))
                for n, v in options.items()}

    def computed_deviations(self, effective: Mapping[str, Any]) -> list[str]:
        """One sentence per setting of `effective` that is not the paper's, then the hand-written ones."""
        found = [d for s in self.paper_settings.values() if (d := s.differs(effective))]
        return [*found, *self.deviations]

    def default_effective(self) -> dict[str, Any]:
        """The effective settings of a default run, as far as the task alone decides them (`tasks show`)."""
        return {"options": {n: o.default for n, o in self.options.items()}, "folds": list(self.folds)}

    def describe(self) -> dict[str, Any]:
        """The whole definition as plain data: what `nycc-bench tasks show` prints and results record."""
        return {
            "name": self.name, "version": self.version, "family": self.family, "summary": self.summary,
            "paper": self.paper, "follows": self.follows, "task_file": self.source,
            "paper_settings": {n: {"at": p.at, "values": list(p.values), "source": p.source,
                                   **({"when": p.when} if p.when else {})} for n, p in self.paper_settings.items()},
            "dataset": {"config": self.config, "split": self.split, "folds": list(self.folds)},
            "kind": self.kind, "letters": self.letters, "from_pixels": self.from_pixels,
            "instances": self.instances, "parser": self.parser,
            **({} if self.outputs == Outputs() else {"outputs": {"count": self.outputs.count,
                                                                  "format": self.outputs.format}}),
            **({} if self.built_in else {"included": True}),
            "prompts": {role: {"file": self.prompt_files[role], "sha256": sha}
                        for role, sha in self.prompt_sha256.items()},
            "prompt_version": self.prompt_version,
            "scorer": {"name": self.scorer, "metric": self.metric, "arguments": dict(self.arguments),
                       "options": dict(self.metric_options)},
            "judge": dict(self.judge), "decoding": dict(self.decoding),
            "by_system_kind": {k: dict(v) for k, v in self.by_system_kind.items()},
            "options": {n: {"default": o.default, "values": list(o.values), "type": o.type, "stage": o.stage,
                            "help": o.help} for n, o in self.options.items()},
            "scores": [s.key for s in self.scores], "higher_is_better": self.higher_is_better,
            "checks": list(self.checks), "completeness": self.completeness.to_dict(),
            "deviations": list(self.deviations),
        }


def _merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge a variant's keys over its base (mappings merge, everything else replaces; an empty mapping
    replaces too, so `options: {}` clears what the base set)."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and value and isinstance(out.get(key), Mapping):
            out[key] = _merge(dict(out[key]), value)
        else:
            out[key] = copy.deepcopy(value)
    return out


REQUIRED = ("name", "family", "version", "summary", "paper", "follows", "dataset", "kind", "instances", "parser",
            "scorer", "prompts", "decoding", "scores")

SCHEMA: dict[str, tuple[str, ...]] = {
    "": ("base", "name", "order", "family", "version", "summary", "paper", "follows", "dataset", "kind", "letters",
         "from_pixels", "instances", "parser", "prompts", "scorer", "judge", "decoding", "options", "scores",
         "deviations", "checks", "higher_is_better", "display", "outputs", "by_system_kind", "completeness"),
    "outputs": ("count", "format"),
    "completeness": ("min_coverage", "max_unparsed", "max_judge_errors"),
    "dataset": ("config", "split", "folds"),
    "scorer": ("name", "metric", "arguments", "options"),
    "judge": ("required", "protocol", "judged_metric"),
    "decoding": ("temperature", "top_p", "repetition_penalty", "seed", "max_new_tokens", "samples"),
    "by_system_kind.*": ("decoding", "options", "source"),
    "options.*": ("default", "values", "help", "stage", "type", "nullable"),
    "scores.*": ("key", "label", "path", "low", "high", "n", "rate", "headline", "judged", "higher_is_better",
                 "range", "pooled"),
    "paper": ("id", "settings"),
    "paper.settings.*": ("at", "value", "values", "source", "deviation", "when"),
    "display": ("view", "id", "fields", "flag", "title"),
}
"""Every key a task file may have, by where it sits (`*`: each entry of a mapping or list)."""


def check_schema(raw: Mapping[str, Any], where: str) -> None:
    """Refuse any key a task file cannot have (a typo such as `optons:` would otherwise be dropped silently)."""
    refuse_unknown_keys(raw, SCHEMA[""], where, "")
    for section in ("dataset", "scorer", "judge", "decoding", "display", "outputs", "completeness"):
        if section in raw:
            refuse_unknown_keys(raw[section], SCHEMA[section], where, section)
    for kind, entry in (raw.get("by_system_kind") or {}).items():
        refuse_unknown_keys(entry, SCHEMA["by_system_kind.*"], where, f"by_system_kind.{kind}")
        refuse_unknown_keys(entry.get("decoding") or {}, SCHEMA["decoding"], where, f"by_system_kind.{kind}.decoding")
        if unknown := sorted(set(entry.get("options") or {}) - set(raw.get("options") or {})):
            raise NyccBenchError(f"{where}: by_system_kind.{kind}.options.{unknown[0]} is not an option of the task")
    for name, option in (raw.get("options") or {}).items():
        refuse_unknown_keys(option, SCHEMA["options.*"], where, f"options.{name}")
        if option.get("type") not in (None, *OPTION_TYPES):
            raise NyccBenchError(f"{where}: options.{name}.type must be one of {', '.join(OPTION_TYPES)}")
    for k, score in enumerate(raw.get("scores") or ()):
        refuse_unknown_keys(score, SCHEMA["scores.*"], where, f"scores[{k}]")
    paper = raw.get("paper")
    if isinstance(paper, Mapping):
        refuse_unknown_keys(paper, SCHEMA["paper"], where, "paper")
        for name, setting in (paper.get("settings") or {}).items():
            refuse_unknown_keys(setting, SCHEMA["paper.settings.*"], where, f"paper.settings.{name}")
            if ("value" in setting) == ("values" in setting):
                raise NyccBenchError(f"{where}: paper.settings.{name} needs exactly one of value or values")
            for key in ("at", "source", "deviation"):
                if not isinstance(setting.get(key), str) or not setting[key]:
                    raise NyccBenchError(f"{where}: paper.settings.{name} lacks {key}")


def _paper(raw: Any, where: str) -> tuple[str, dict[str, PaperSetting]]:
    """(the paper's citation key, its settings) from `paper: key` or `paper: {id, settings}`."""
    if isinstance(raw, str):
        return raw, {}
    if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str):
        raise NyccBenchError(f"{where}: paper must be a citation key or {{id: key, settings: ...}}")
    settings = {n: PaperSetting(n, s["at"], tuple(s["values"]) if "values" in s else (s["value"],), s["source"],
                                s["deviation"], s.get("when")) for n, s in (raw.get("settings") or {}).items()}
    return raw["id"], settings


def _option(name: str, raw: Mapping[str, Any], where: str) -> TaskOption:
    """A typed option whose default it takes itself."""
    if "default" not in raw:
        raise NyccBenchError(f"{where}: options.{name} lacks default")
    option = TaskOption(name, raw["default"], tuple(raw.get("values", ())), raw.get("help", ""),
                        raw.get("stage", "run"), raw.get("type"), bool(raw.get("nullable", True)))
    if option.stage not in ("run", "score"):
        raise NyccBenchError(f"{where}: options.{name}.stage must be run or score, got {option.stage!r}")
    try:
        option.check(option.default, where)
    except NyccBenchError as err:
        raise NyccBenchError(f"{where}: options.{name}.default {option.default!r} is not a value the option "
                             f"takes ({str(err).split(': ', 1)[1]})") from None
    return option


def _outputs(raw: Any, where: str) -> Outputs:
    """The `outputs:` block: a count ≥ 1 and a format (text for one output, numbered for several)."""
    outputs = Outputs(**(raw or {}))
    if isinstance(outputs.count, bool) or not isinstance(outputs.count, int) or outputs.count < 1:
        raise NyccBenchError(f"{where}: outputs.count must be a whole number ≥ 1, got {outputs.count!r}")
    if outputs.format not in ("text", "numbered") or (outputs.format == "text") != (outputs.count == 1):
        raise NyccBenchError(f"{where}: outputs.format must be text (one output) or numbered (several), got "
                             f"{outputs.format!r} for {outputs.count}")
    return outputs


def build_task(raw: Mapping[str, Any], root: Path, source: str, *, prompt_roots: Mapping[str, Path] | None = None,
               built_in: bool = True) -> Task:
    """A `Task` from a task file's merged content; every missing, unknown or wrong key is named. Prompt paths are
    relative to `root` unless `prompt_roots` gives a role another folder (a variant of a task in another folder);
    a task from the include path (`built_in` False) may name a family of its own."""
    where = f"task file {source}" if built_in else f"task file {root / source}"
    check_schema(raw, where)
    if missing := [k for k in REQUIRED if k not in raw]:
        raise NyccBenchError(f"{where}: lacks {', '.join(missing)}; copy the keys of an existing task file")
    if built_in and raw["family"] not in families():
        raise NyccBenchError(f"{where}: family {raw['family']!r} is not one of {', '.join(families())} "
                             "(tasks/families.yaml)")
    if raw["kind"] not in ("choice", "generation"):
        raise NyccBenchError(f"{where}: kind must be choice or generation, got {raw['kind']!r}")
    prompts, files = {}, {}
    for role, rel in raw["prompts"].items():
        folder = (prompt_roots or {}).get(role, root)
        path = inside(folder, rel, f"{where}: prompts.{role}")
        if not path.is_file():
            raise NyccBenchError(f"{where}: prompt file {rel} ({role}) does not exist; add it beside the task")
        prompts[role], files[role] = path.read_text(encoding="utf-8"), rel
    scorer = raw["scorer"]
    options = {n: _option(n, o, where) for n, o in (raw.get("options") or {}).items()}
    scores = []
    for k, s in enumerate(raw["scores"]):
        if not all(isinstance(s.get(key), str) for key in ("key", "label", "path")):
            raise NyccBenchError(f"{where}: scores[{k}] needs key, label and path")
        scores.append(Score(**{**s, **({"range": tuple(s["range"])} if s.get("range") else {})}))
        if scores[-1].pooled and (scores[-1].low or scores[-1].high):
            raise NyccBenchError(f"{where}: scores[{k}] is pooled over runs and has no interval; set low: null, "
                                 "high: null")
    if len({s.key for s in scores}) != len(scores):
        raise NyccBenchError(f"{where}: two scores share a key; each score key once")
    owners: dict[str, str] = {}
    for score in scores:
        parent = score.path.rpartition(".")[0]
        for bound in (score.low, score.high):
            if bound:
                full = f"{parent}.{bound}" if parent else bound
                if owners.setdefault(full, score.key) != score.key:
                    raise NyccBenchError(f"{where}: scores {score.key} would borrow the interval {full!r} of "
                                         f"{owners[full]}; give it its own low/high keys, or null")
    paper, paper_settings = _paper(raw["paper"], where)
    dataset = raw["dataset"]
    return Task(
        name=raw["name"], family=raw["family"], version=int(raw["version"]), summary=raw["summary"],
        paper=paper, follows=raw["follows"], config=dataset["config"], split=dataset.get("split", "test"),
        folds=tuple(dataset.get("folds") or (0,)), kind=raw["kind"], instances=raw["instances"],
        parser=raw["parser"], scorer=scorer["name"], metric=scorer["metric"],
        arguments=dict(scorer.get("arguments") or {}), metric_options=dict(scorer.get("options") or {}),
        prompts=prompts, prompt_files=files, judge=dict(raw.get("judge") or {"required": False}),
        decoding=dict(raw["decoding"]), scores=tuple(scores), options=options,
        letters=raw.get("letters", ""), from_pixels=bool(raw.get("from_pixels", False)),
        higher_is_better=bool(raw.get("higher_is_better", True)), deviations=tuple(raw.get("deviations") or ()),
        checks=tuple(raw.get("checks") or ()), source=source, paper_settings=paper_settings,
        display=read_display(raw.get("display"), where),
        outputs=_outputs(raw.get("outputs"), where), built_in=built_in,
        by_system_kind={k: dict(v) for k, v in (raw.get("by_system_kind") or {}).items()},
        completeness=Completeness.read(raw.get("completeness"), where),
    )
