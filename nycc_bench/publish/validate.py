"""Offline checks of every staged card before anything is pushed.

`huggingface_hub`'s `RepoCard.validate()` posts the card to the Hub, so it cannot run offline. These checks parse
each card with the same classes (`DatasetCard`, `SpaceCard`, `ModelCard`), then check the metadata the Hub and
`load_dataset` / `evaluate.load` rely on, against the files actually staged. At push time `create_commit`
still sends the README to the Hub's own validator before uploading anything.
"""

from __future__ import annotations

import math
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml
from huggingface_hub import DatasetCard, ModelCard, SpaceCard
from huggingface_hub.utils import HFValidationError, validate_repo_id
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from ..builders import ALL_CONFIGS
from ..contests import SPLITS
from ..tasks import all_tasks
from . import PublishError
from .files import glob_regex, walk

SDKS = ("gradio", "streamlit", "docker", "static")
COLORS = ("red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray")


def metric_types() -> tuple[str, ...]:
    """The metric types a card may name: every task's metric (the include path's too) and the judged win rate."""
    return tuple(sorted({t.metric for t in all_tasks().values()} | {"group_win_rate"}))


class CardError(PublishError):
    """A card that does not validate: the push is refused."""


def _need(cond: Any, card: Path, message: str) -> None:
    if not cond:
        raise CardError(f"{card}: {message}")


def _front_matter(card: Path) -> dict[str, Any]:
    """The raw YAML block, for keys the card classes do not keep."""
    text = card.read_text(encoding="utf-8")
    _need(text.startswith("---\n"), card, "has no YAML front matter (the first line must be ---)")
    try:
        data = yaml.safe_load(text.split("---\n", 2)[1])
    except (yaml.YAMLError, IndexError) as err:
        raise CardError(f"{card}: the YAML front matter does not parse ({err})") from err
    _need(isinstance(data, dict), card, "the front matter is not a mapping")
    return data


def _load(cls: type, card: Path) -> Any:
    _need(card.is_file(), card, "is missing (every repo needs its README.md card)")
    _front_matter(card)
    try:
        return cls.load(card)
    except (ValueError, TypeError, yaml.YAMLError) as err:
        raise CardError(f"{card}: {cls.__name__} cannot parse it ({err})") from err


def validate_dataset_card(folder: Path) -> DatasetCard:
    """Configs whose data_files globs match staged shards (and no shard left unlisted), dataset_info, license."""
    path = folder / "README.md"
    card = _load(DatasetCard, path)
    data = card.data.to_dict()
    _need(data.get("license"), path, "has no license")
    _need(data.get("pretty_name"), path, "has no pretty_name")
    configs = data.get("configs")
    _need(isinstance(configs, list) and configs, path, "lists no configs (load_dataset needs `configs:`)")
    shards = [f for f in walk(folder)[0] if f.endswith(".parquet")]
    used: set[str] = set()
    infos = data.get("dataset_info") or []
    infos = {i.get("config_name"): i for i in (infos if isinstance(infos, list) else [infos])}
    for config in configs:
        name = config.get("config_name")
        _need(name in ALL_CONFIGS, path, f"config {name!r} is not a nycc-bench config")
        files = config.get("data_files")
        _need(isinstance(files, list) and files, path, f"config {name} has no data_files")
        for entry in files:
            matched = [s for s in shards if glob_regex(entry["path"]).match(s)]
            _need(matched, path, f"config {name} split {entry.get('split')}: {entry['path']} matches no staged file")
            used.update(matched)
        info = infos.get(name)
        _need(info and info.get("features"), path, f"config {name} has no dataset_info features")
        splits = {s["name"] for s in info.get("splits", [])}
        _need(splits == {e["split"] for e in files}, path, f"config {name}: dataset_info splits {sorted(splits)} "
              f"differ from its data_files")
    _need(set(shards) <= used, path, f"shards no config lists: {', '.join(sorted(set(shards) - used)[:3])}")
    _need("## Citation" in card.text and "@" in card.text, path, "has no citation section")
    return card


def _check_requirements(folder: Path, card: Path, python_version: str | None) -> None:
    """Every line a pinned-or-ranged requirement pip can install on the Hub (no local paths, no -e)."""
    req_file = folder / "requirements.txt"
    if not req_file.is_file():
        return
    for lineno, line in enumerate(req_file.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        try:
            req = Requirement(line)
        except InvalidRequirement as err:
            raise CardError(f"{req_file}:{lineno}: {line!r} is not a requirement pip can install on the Hub "
                            f"({err})") from err
        if canonicalize_name(req.name) == "nycc-bench":
            _need(python_version, card, "installs nycc-bench, which needs Python >= 3.11: set python_version")
            try:
                requires = metadata.metadata("nycc-bench")["Requires-Python"]
            except metadata.PackageNotFoundError:
                requires = None
            _need(not requires or python_version in SpecifierSet(requires), card,
                  f"python_version {python_version} does not satisfy nycc-bench's Requires-Python {requires}")


def validate_space_card(folder: Path, metric: str | None = None) -> SpaceCard:
    """Space metadata (sdk, app file, versions, colours); metric Spaces also evaluate's tags and module file."""
    path = folder / "README.md"
    card = _load(SpaceCard, path)
    raw = _front_matter(path)
    _need(isinstance(raw.get("title"), str) and raw["title"], path, "has no title")
    sdk = raw.get("sdk")
    _need(sdk in SDKS, path, f"sdk {sdk!r} is not one of {', '.join(SDKS)}")
    if sdk in ("gradio", "streamlit"):
        _need(raw.get("sdk_version"), path, f"a {sdk} Space needs sdk_version")
        _need(raw.get("app_file") and (folder / str(raw["app_file"])).is_file(), path,
              f"app_file {raw.get('app_file')!r} is not in the Space")
    for key in ("colorFrom", "colorTo"):
        _need(key not in raw or raw[key] in COLORS, path, f"{key} {raw.get(key)!r} is not one of {', '.join(COLORS)}")
    _need(len(str(raw.get("short_description", ""))) <= 60, path, "short_description is longer than 60 characters")
    if metric is not None:
        _need(raw.get("app_file") == "app.py", path, "a metric Space runs app.py")
        _need({"evaluate", "metric"} <= set(raw.get("tags") or []), path, "a metric Space is tagged evaluate, metric")
        _need((folder / f"{metric}.py").is_file(), path, f"{metric}.py (the module evaluate.load fetches) is missing")
        _need((folder / "requirements.txt").is_file(), path, "requirements.txt is missing")
    version = raw.get("python_version")
    _check_requirements(folder, path, None if version is None else str(version))
    return card


def validate_model_card(folder: Path, dataset: str) -> ModelCard:
    """model-index eval results naming the dataset repo, one of its configs and splits, and a nycc-bench metric."""
    path = folder / "README.md"
    card = _load(ModelCard, path)
    data = card.data
    _need(data.model_name, path, "has no model-index name")
    _need(data.eval_results, path, "has no eval results (model-index)")
    _need("nycc-bench" in (data.tags or []), path, "is not tagged nycc-bench")
    _need(dataset in (data.datasets or []), path, f"does not list the dataset {dataset}")
    for base in [data.base_model] if isinstance(data.base_model, str) else data.base_model or []:
        try:
            validate_repo_id(base)
        except HFValidationError as err:
            raise CardError(f"{path}: base_model {base!r} is not a Hub model id ({err})") from err
    for r in data.eval_results:
        where = f"eval result {r.metric_name or r.metric_type} of {r.dataset_config}"
        _need(r.task_type, path, f"{where}: no task type")
        _need(r.dataset_type == dataset, path, f"{where}: dataset {r.dataset_type!r} is not {dataset}")
        _need(r.dataset_config in ALL_CONFIGS, path, f"{where}: {r.dataset_config!r} is not a config of {dataset}")
        # a pooled split is written as `datasets` reads it ("test+validation": Zhang's 91 held-out contests)
        _need(bool(r.dataset_split) and all(part in SPLITS for part in str(r.dataset_split).split("+")), path,
              f"{where}: split {r.dataset_split!r} is not one of {SPLITS} (or several joined by '+')")
        _need(r.metric_type in metric_types(), path,
              f"{where}: metric {r.metric_type!r} is not one of {', '.join(metric_types())}")
        value = r.metric_value
        _need(isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value), path,
              f"{where}: value {value!r} is not a finite number")
    return card
