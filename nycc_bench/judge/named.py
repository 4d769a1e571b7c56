"""Named judge configurations: a judge is a YAML file (backend, model, protocol, prompt version, named parser and
its arguments, threshold, base_url; never a key), found by name in ``NYCC_BENCH_JUDGE_PATH`` folders and then in
``configs/`` here, or given as a path. ``--judge NAME`` and ``JudgeSpec.parse`` accept one beside
``backend:model``. ``price:`` states what the model costs (USD per 1M input and output tokens) with the page it was
read from and the day it was checked; `judges report` prices 1,000 judgments with it. ``base: NAME`` starts from
another configuration and changes only the keys it gives."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import NyccBenchError, refuse_unknown_keys
from ..llm.config import BACKENDS as LLM_BACKENDS
from ..llm.pricing import StatedPrice
from ..urls import has_credentials, redact_url
from ..yaml_files import load_yaml
from .parsers import PARSERS
from .registry import get_protocol

CONFIGS_DIR = Path(__file__).resolve().parents[1] / "judges"
PATH_VARIABLE = "NYCC_BENCH_JUDGE_PATH"
KEYS = ("base", "summary", "backend", "model", "protocol", "prompt", "parser", "parser_args", "threshold",
        "base_url", "price")
PRICE_KEYS = ("input_usd_per_1m", "output_usd_per_1m", "source", "checked")
PARSER_ARG_RANGES: dict[str, tuple[int, int]] = {"top_logprobs": (1, 20), "parse_retries": (0, 10)}


@dataclass(frozen=True)
class NamedJudge:
    """One judge configuration, checked against its protocol (prompt version, parser and its arguments)."""

    name: str
    backend: str
    model: str
    protocol: str
    prompt: str | None = None  # the protocol's prompt version; None: its current one
    parser: str | None = None  # a named parser the protocol reads replies with; None: the protocol's upstream rule
    parser_args: tuple[tuple[str, int], ...] = ()  # (name, value) pairs, so the configuration stays hashable
    threshold: float | None = None  # the recalibration threshold (protocols that have one); None: the paper's
    base_url: str | None = None
    summary: str = ""
    price: StatedPrice | None = None  # what a call costs, with its source and date; None: the default table's
    ref: str = ""  # how it was asked for (a name, or a path): what a recorded command repeats

    def settings(self) -> dict[str, Any]:
        """The resolved configuration as results record it (the URL redacted, never a key)."""
        return {"config": self.name, "summary": self.summary, "backend": self.backend, "model": self.model,
                "protocol": self.protocol, "prompt": self.prompt, "parser": self.parser,
                "parser_args": dict(self.parser_args), "threshold": self.threshold,
                "base_url": redact_url(self.base_url)}


def search_dirs() -> list[Path]:
    """Where names are looked up: each ``NYCC_BENCH_JUDGE_PATH`` folder in order, then the shipped ``configs/``."""
    extra = [Path(p) for p in os.environ.get(PATH_VARIABLE, "").split(os.pathsep) if p.strip()]
    return [*extra, CONFIGS_DIR]


def judge_names() -> list[str]:
    """Every configuration name that can be given, sorted (an earlier folder's file hides a later one's)."""
    return sorted({path.stem for folder in search_dirs() if folder.is_dir() for path in folder.glob("*.yaml")})


def is_path(ref: str) -> bool:
    """Whether ``ref`` names a YAML file rather than a configuration name."""
    return ref.endswith((".yaml", ".yml"))


def find(ref: str) -> Path | None:
    """The file of a configuration name or path, or None when there is none."""
    if is_path(ref):
        return Path(ref) if Path(ref).is_file() else None
    return next((folder / f"{ref}.yaml" for folder in search_dirs() if (folder / f"{ref}.yaml").is_file()), None)


def nearest_name(ref: str) -> str | None:
    """The configuration name closest to ``ref`` (a likely typo), or None."""
    near = difflib.get_close_matches(ref, judge_names(), n=1, cutoff=0.8)
    return near[0] if near else None


def load_judge(ref: str, _seen: tuple[str, ...] = ()) -> NamedJudge:
    """The configuration called ``ref`` (or in the file ``ref``), its ``base:`` chain merged and every key checked."""
    path = find(ref)
    if path is None:
        if is_path(ref):
            raise NyccBenchError(f"judge: no file {ref}; give an existing YAML file or a configuration name")
        near = difflib.get_close_matches(ref, judge_names(), n=1, cutoff=0.0)
        hint = f"the nearest is {near[0]!r}" if near else "none is installed"
        raise NyccBenchError(f"judge: no judge configuration {ref!r}; {hint} (or give backend:model, e.g. "
                             "openai:gpt-4o)")
    raw = _read(path)
    if base := raw.pop("base", None):
        if base in _seen:
            raise NyccBenchError(f"{path}: base: {base!r} leads back to itself; name another configuration")
        parent = load_judge(str(base), (*_seen, ref))
        inherited = {**parent.__dict__, "parser_args": dict(parent.parser_args)}
        raw = {**{k: v for k, v in inherited.items() if k in KEYS and v is not None}, **raw}
    return _checked(raw, path, ref)


def _read(path: Path) -> dict[str, Any]:
    """The file's mapping, unknown keys refused with the nearest known one."""
    raw = load_yaml(path) or {}
    if not isinstance(raw, dict):
        raise NyccBenchError(f"{path}: expected a mapping of {', '.join(KEYS)}; fix the file")
    refuse_unknown_keys(raw, KEYS, str(path), fix=" (API keys come from the environment)")
    return raw


def _checked(raw: dict[str, Any], path: Path, ref: str) -> NamedJudge:
    """A :class:`NamedJudge` from ``raw``, each value checked against the protocol; errors name the file and key."""
    for key in ("backend", "model", "protocol"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise NyccBenchError(f"{path}: {key}: required, a non-empty string")
    if raw["backend"] not in LLM_BACKENDS:
        raise NyccBenchError(f"{path}: backend: expected one of {', '.join(LLM_BACKENDS)}, got {raw['backend']!r} "
                             "(offline judges are named reward:PATH or embedding:PATH)")
    try:
        protocol = get_protocol(raw["protocol"])
    except NyccBenchError as err:
        raise NyccBenchError(f"{path}: {err}") from None
    if (prompt := raw.get("prompt")) is not None and prompt not in protocol.versions:
        raise NyccBenchError(f"{path}: prompt: {prompt!r} is not a version of {protocol.name}; expected one of "
                             f"{', '.join(protocol.versions)}")
    if (parser := raw.get("parser")) is not None and (parser not in protocol.parsers or parser not in PARSERS):
        raise NyccBenchError(f"{path}: parser: {protocol.name} reads replies with {', '.join(protocol.parsers)}; "
                             f"got {parser!r}")
    args = raw.get("parser_args") or {}
    if not isinstance(args, dict):
        raise NyccBenchError(f"{path}: parser_args: expected a mapping, e.g. {{parse_retries: 0}}")
    for key, value in args.items():
        if key not in protocol.parser_args:
            raise NyccBenchError(f"{path}: parser_args: {protocol.name} takes {', '.join(protocol.parser_args)}; "
                                 f"got {key!r}")
        low, high = PARSER_ARG_RANGES[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise NyccBenchError(f"{path}: parser_args.{key}: expected a whole number from {low} to {high}, "
                                 f"got {value!r}")
    threshold = raw.get("threshold")
    if threshold is not None and (not protocol.has_threshold or isinstance(threshold, bool)
                                  or not isinstance(threshold, int | float)):
        raise NyccBenchError(f"{path}: threshold: {protocol.name} has no recalibration threshold; drop the key"
                             if not protocol.has_threshold else f"{path}: threshold: expected a number, got "
                             f"{threshold!r}")
    base_url = raw.get("base_url")
    if base_url is not None and (not isinstance(base_url, str) or has_credentials(base_url)):
        raise NyccBenchError(f"{path}: base_url: a URL without credentials (keys come from OPENAI_API_KEY or "
                             "NYCC_JUDGE_API_KEY)")
    return NamedJudge(name=path.stem, backend=raw["backend"], model=raw["model"], protocol=protocol.name,
                      prompt=prompt, parser=parser, parser_args=tuple(sorted(args.items())),
                      threshold=None if threshold is None else float(threshold), base_url=base_url,
                      summary=str(raw.get("summary") or ""), price=_price(raw.get("price"), path), ref=ref)


def _price(raw: Any, path: Path) -> StatedPrice | None:
    """The configuration's ``price:`` (two non-negative USD amounts per 1M tokens, a source, an ISO date checked)."""
    if raw is None or isinstance(raw, StatedPrice):  # absent, or inherited through ``base:``
        return raw
    example = ("price: {input_usd_per_1m: 2.5, output_usd_per_1m: 10, source: https://openai.com/api/pricing/, "
               "checked: 2025-06-10}")
    if not isinstance(raw, dict) or set(raw) != set(PRICE_KEYS):
        raise NyccBenchError(f"{path}: price: expected the keys {', '.join(PRICE_KEYS)}, e.g. {example}")
    amounts = [raw["input_usd_per_1m"], raw["output_usd_per_1m"]]
    if any(isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v < 1e6 for v in amounts):
        raise NyccBenchError(f"{path}: price: input_usd_per_1m and output_usd_per_1m are USD per 1M tokens, "
                             f"numbers >= 0; got {amounts}")
    import datetime

    checked = raw["checked"]
    if isinstance(checked, datetime.date):  # YAML reads an unquoted 2025-06-10 as a date
        checked = checked.isoformat()
    try:
        datetime.date.fromisoformat(str(checked))
    except ValueError:
        raise NyccBenchError(f"{path}: price.checked: the day the price was read, YYYY-MM-DD; got {checked!r}") \
            from None
    if not isinstance(raw["source"], str) or not raw["source"].strip():
        raise NyccBenchError(f"{path}: price.source: where the price was read (the provider's pricing page)")
    return StatedPrice(float(amounts[0]), float(amounts[1]), raw["source"].strip(), str(checked))
