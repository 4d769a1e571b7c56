"""Checks on what a submitter typed and on the model it names, before anything is queued.

Model ids are checked by shape first (no paths, no URLs, no markup), then the model itself: it exists at the
revision (resolved to a commit), its weights are all safetensors (pickled weights can run code when loaded,
and any other weight file could be loaded instead of the checked ones), its size is counted from the
safetensors headers of every shard and is under the operator's maximum, it has a license, and it needs no
`trust_remote_code` unless the operator allows it. Every refusal is a `Refused` whose message says what to change.
"""

from __future__ import annotations

import json
import math
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..tasks import all_tasks, get_task
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
    if unknown := [t for t in tasks if t not in all_tasks()]:
        raise Refused(f"tasks: unknown {', '.join(map(_shown, unknown))}")
    return [t for t in all_tasks() if t in tasks]


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


PICKLED_WEIGHTS = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".h5", ".hdf5", ".msgpack", ".joblib",
                   ".npy", ".npz", ".gguf", ".onnx", ".ot", ".tflite", ".mlmodel", ".keras", ".pb")
"""Weight files other than safetensors: pickles run code when loaded, and any of them could be loaded instead of
the safetensors weights that were checked and counted."""
INDEX = "model.safetensors.index.json"


def unsafe_weights(names: list[str]) -> list[str]:
    """The file names among `names` that hold weights in a format other than safetensors."""
    return sorted(n for n in names if n.lower().endswith(PICKLED_WEIGHTS))


def _refuse_unsafe(names: list[str]) -> None:
    if bad := unsafe_weights(names):
        shown = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        raise Refused(f"model: its weights are not all safetensors ({shown}); remove every pickled or other "
                      "weight file and publish safetensors only")


def local_weight_files(folder: Path) -> list[Path]:
    """The safetensors files transformers loads from a folder: the shards of its index, else model.safetensors."""
    index = folder / INDEX
    if index.is_file():
        try:
            shards = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise Refused(f"model: {INDEX} cannot be read ({type(err).__name__}); fix or remove it") from None
        paths = [(folder / s).resolve() for s in shards]
        if missing := [s for s, p in zip(shards, paths, strict=True)
                       if not p.is_relative_to(folder) or not p.is_file()]:
            raise Refused(f"model: {INDEX} names shards that are not in the folder ({', '.join(missing[:3])})")
        return paths
    if not (folder / "model.safetensors").is_file():
        raise Refused("model: the folder has no .safetensors weights (model.safetensors or its index); "
                      "pickled weights can run code when loaded")
    return [folder / "model.safetensors"]


def local_facts(text: str) -> ModelFacts:
    """A local model folder (operators' and tests' submissions): config, safetensors weights only (counted from
    every shard's header), license."""
    from ..llm.backends.transformers_backend import local_fingerprint

    folder = Path(text).expanduser().resolve()
    if not (folder / "config.json").is_file():
        raise Refused(f"model: {_shown(text)} is not a model folder (no config.json)")
    _refuse_unsafe([p.relative_to(folder).as_posix() for p in folder.rglob("*")
                    if p.is_file() and ".git" not in p.relative_to(folder).parts])
    weights = local_weight_files(folder)
    config = json.loads((folder / "config.json").read_text())
    license_ = _card_license(folder / "README.md") or ("see LICENSE" if (folder / "LICENSE").is_file() else None)
    return ModelFacts(source="local", name=str(folder), kind="vlm" if "vision_config" in config else "hf",
                      commit=local_fingerprint(str(folder)), params=sum(map(safetensors_params, weights)),
                      license=license_, remote_code="auto_map" in config)


def hub_params(api: Any, model_id: str, commit: str | None) -> int:
    """Parameters of a Hub model from the safetensors headers of every weight shard (Hub metadata, no download)."""
    try:
        meta = api.get_safetensors_metadata(model_id, revision=commit)
    except Exception as err:  # not a safetensors repo, a header too large, the Hub unreachable: all refusals
        raise Refused(f"model: cannot read the safetensors headers of {model_id} ({type(err).__name__}); publish "
                      "the weights as safetensors (model.safetensors or a sharded index)") from err
    counts = getattr(meta, "parameter_count", None) or {}
    if not counts:
        raise Refused(f"model: the safetensors weights of {model_id} declare no parameters")
    return int(sum(counts.values()))


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
    siblings = getattr(info, "siblings", None)
    if siblings is None:
        raise Refused(f"model: the Hub did not list the files of {model_id}; try again")
    _refuse_unsafe([s.rfilename for s in siblings])
    kind = "vlm" if getattr(info, "pipeline_tag", None) in VLM_PIPELINES else "hf"
    return ModelFacts(source="hub", name=info.id or model_id, kind=kind, revision=revision, commit=info.sha,
                      params=hub_params(api, info.id or model_id, info.sha), license=license_,
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
