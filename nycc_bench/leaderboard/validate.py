"""Checks on what a submitter typed and on the model it names, before anything is queued.

Model ids are checked by shape first (no paths, no URLs, no markup), then the model itself: it exists at the
revision (resolved to a commit), its weights are safetensors (pickled weights can run code when loaded), its
size is known and under the operator's maximum, it has a license, and it needs no `trust_remote_code` unless
the operator allows it. Every refusal is a `Refused` whose message says what to change.
"""

from __future__ import annotations

import json
import math
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..tasks import TASKS, get_task
from .settings import Settings
from .store import Refused

MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9_.][A-Za-z0-9_.-]{0,95}$")
REVISION = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}(/[A-Za-z0-9_.-]{1,100})?$")
API_MODEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}(/[A-Za-z0-9_.:-]{1,100})?$")
VLM_PIPELINES = {"image-text-to-text", "visual-question-answering", "image-to-text"}
MAX_HEADER = 100 * 2**20  # a safetensors header larger than this is not a model we run


@dataclass(frozen=True)
class ModelFacts:
    """What validation learned about a model; the job is built from it."""

    source: str  # "hub" | "local" | "api"
    name: str  # Hub id, absolute folder, or API model name
    kind: str  # system kind: "hf" | "vlm" | "openai"
    revision: str | None = None
    commit: str | None = None
    params: int | None = None
    license: str | None = None
    remote_code: bool = False

    @property
    def spec(self) -> str:
        """The system spec the worker runs: a Hub model pinned to its commit."""
        if self.source == "hub":
            return f"{self.kind}:{self.name}@{self.commit}"
        return f"{self.kind}:{self.name}"


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def check_model_id(text: str) -> str:
    """A Hub model id (`org/name`), refused when it is a path, a URL, markup or anything else."""
    text = text.strip()
    if not text:
        raise Refused("model: enter a Hub model id such as org/model-name")
    if "://" in text or text.lower().startswith(("http", "www.")):
        raise Refused(f"model: {_shown(text)} is a URL; enter the Hub id only (org/model-name)")
    if ".." in text or text.startswith(("/", "~", ".")) or "\\" in text:
        raise Refused(f"model: {_shown(text)} is a path; enter a Hub id (org/model-name)")
    if not MODEL_ID.match(text) or text.endswith(".git"):
        raise Refused(f"model: {_shown(text)} is not a Hub model id (org/model-name: letters, digits, '-', '_', '.')")
    return text


def check_revision(text: str) -> str | None:
    """A branch, tag or commit; empty means the default branch."""
    text = text.strip()
    if not text:
        return None
    if ".." in text or not REVISION.match(text):
        raise Refused(f"revision: {_shown(text)} is not a branch, tag or commit name")
    return text


def check_tasks(tasks: list[str] | None) -> list[str]:
    """Known task names, in the registry's order, at least one."""
    if not tasks:
        raise Refused("tasks: choose at least one task")
    if unknown := [t for t in tasks if t not in TASKS]:
        raise Refused(f"tasks: unknown {', '.join(map(_shown, unknown))}")
    return [t for t in TASKS if t in tasks]


def safetensors_params(path: Path) -> int:
    """Number of parameters in one safetensors file, from its header alone (no weights are read)."""
    with open(path, "rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        if size > MAX_HEADER:
            raise Refused(f"model: {path.name} has a {size}-byte header; not a safetensors file we read")
        header = json.loads(f.read(size))
    return sum(math.prod(t["shape"]) for k, t in header.items() if k != "__metadata__")


def _card_license(readme: Path) -> str | None:
    """The `license:` of a model card's YAML front matter."""
    if not readme.is_file():
        return None
    text = readme.read_text(encoding="utf-8", errors="replace")
    front = text.split("---", 2)[1] if text.startswith("---") and text.count("---") >= 2 else ""
    match = re.search(r"^license:\s*['\"]?([\w.+-]+)", front, flags=re.MULTILINE)
    return match.group(1) if match else None


def local_facts(text: str) -> ModelFacts:
    """A local model folder (operators' and tests' submissions): config, safetensors weights, license."""
    from ..llm.backends.transformers_backend import local_fingerprint

    folder = Path(text).expanduser().resolve()
    if not (folder / "config.json").is_file():
        raise Refused(f"model: {_shown(text)} is not a model folder (no config.json)")
    weights = sorted(folder.glob("*.safetensors"))
    if not weights:
        raise Refused("model: the folder has no .safetensors weights (pickled weights can run code when loaded)")
    config = json.loads((folder / "config.json").read_text())
    license_ = _card_license(folder / "README.md") or ("see LICENSE" if (folder / "LICENSE").is_file() else None)
    return ModelFacts(source="local", name=str(folder), kind="vlm" if "vision_config" in config else "hf",
                      commit=local_fingerprint(str(folder)), params=sum(map(safetensors_params, weights)),
                      license=license_, remote_code="auto_map" in config)


def hub_facts(model_id: str, revision: str | None, api: Any) -> ModelFacts:
    """A Hub model at a revision, resolved to its commit, from `HfApi.model_info` (metadata only)."""
    try:
        info = api.model_info(model_id, revision=revision)
    except Exception as err:  # not found, gated, private, unknown revision, Hub unreachable: all refusals
        kind = type(err).__name__
        where = f" at revision {_shown(revision)}" if revision else ""
        raise Refused(f"model: cannot read {model_id}{where} on the Hub ({kind}); check the id, the revision, "
                      "and that the model is public") from err
    if getattr(info, "private", False) or getattr(info, "gated", False):
        raise Refused(f"model: {model_id} is private or gated; the leaderboard evaluates public models only")
    tags = list(getattr(info, "tags", None) or [])
    card = getattr(info, "card_data", None)
    license_ = (card.get("license") if card is not None else None) or next(
        (t.split(":", 1)[1] for t in tags if t.startswith("license:")), None)
    config = getattr(info, "config", None) or {}
    safetensors = getattr(info, "safetensors", None)
    kind = "vlm" if getattr(info, "pipeline_tag", None) in VLM_PIPELINES else "hf"
    return ModelFacts(source="hub", name=info.id or model_id, kind=kind, revision=revision, commit=info.sha,
                      params=getattr(safetensors, "total", None), license=license_,
                      remote_code="custom_code" in tags or "auto_map" in config)


def api_facts(text: str) -> ModelFacts:
    """An OpenAI-compatible model name (`openai:<model>`), run against the operator's endpoint."""
    name = text.strip().removeprefix("openai:")
    if ".." in name or not API_MODEL.match(name):
        raise Refused(f"model: {_shown(name)} is not an API model name")
    return ModelFacts(source="api", name=name, kind="openai", license="proprietary (API)")


def check_facts(facts: ModelFacts, tasks: list[str], settings: Settings) -> None:
    """The operator's limits and the tasks the model can do."""
    if facts.source == "api":
        return
    if facts.params is None:
        raise Refused("model: its size is unknown (no safetensors metadata); publish safetensors weights")
    if facts.params > settings.max_params_b * 1e9:
        raise Refused(f"model: {facts.params / 1e9:.1f}B parameters; this leaderboard runs models up to "
                      f"{settings.max_params_b:g}B")
    if not facts.license or facts.license.lower() in ("unknown", "other-unknown"):
        raise Refused("model: no license; add `license:` to the model card")
    if facts.remote_code and not settings.allow_remote_code:
        raise Refused("model: it needs trust_remote_code, which this leaderboard does not run; submit a model "
                      "that transformers supports natively")
    if facts.kind == "hf" and (pixels := [t for t in tasks if get_task(t).from_pixels]):
        raise Refused(f"tasks: {', '.join(pixels)} need a vision-language model (image-text-to-text); "
                      "this one reads text only")


def resolve_model(text: str, revision: str | None, settings: Settings, api: Any = None) -> ModelFacts:
    """What the submitter typed → facts about the model, or a refusal."""
    text = text.strip()
    if text.startswith("openai:"):
        if not settings.allow_api:
            raise Refused("model: API models are not enabled on this leaderboard")
        if revision:
            raise Refused("revision: API models have no revision")
        return api_facts(text)
    if settings.allow_local and text.startswith(("/", "./", "~")):
        if revision:
            raise Refused("revision: a local folder has no revision")
        return local_facts(text)
    model_id = check_model_id(text)
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    return hub_facts(model_id, revision, api)
