"""A dataset card's `dataset_info` block (each config's features, splits and sizes) and its features' type lines,
as `datasets` writes them (`DatasetInfosDict.to_dataset_card_data`, `repr` of a feature), from plain values: the
features in their JSON form (`Features.to_dict()`, what each parquet file's `huggingface` schema metadata holds).
The card is then written without importing `datasets` (its import is most of a small build's start-up).

`tests/test_dataset_info.py` checks the output against `datasets`' own, byte for byte, on every config's features."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import NyccBenchError

LIST_TYPES = {"List": "list", "LargeList": "large_list"}


@dataclass(frozen=True)
class ConfigInfo:
    """One config's info as the card records it: features (JSON form), splits in order (name → (bytes, rows)) and
    the sizes in bytes (None: not recorded)."""

    config_name: str
    features: dict[str, Any] | None
    splits: dict[str, tuple[int, int]] | None = None
    download_size: int | None = None
    dataset_size: int | None = None

    @classmethod
    def of(cls, info: Any) -> ConfigInfo:
        """A `ConfigInfo` as it is, or one read from a `datasets.DatasetInfo` (its attributes; no import)."""
        if isinstance(info, ConfigInfo):
            return info
        features = info.features.to_dict() if info.features is not None else None
        splits = None if info.splits is None else {name: (split.num_bytes, split.num_examples)
                                                    for name, split in info.splits.items()}
        return cls(info.config_name, features, splits, info.download_size, info.dataset_size)


def _snake(name: str) -> str:
    """`ClassLabel` → `class_label`, as `datasets.naming.camelcase_to_snakecase` spells a type in YAML."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z\d])([A-Z])", r"\1_\2", name).lower()


def _simplify(feature: dict[str, Any]) -> dict[str, Any]:
    """A list whose item is a bare dtype or a struct is written inline; class names become {"0": name, ...}."""
    for key in ("large_list", "list", "sequence"):
        inner = feature.get(key)
        if isinstance(inner, dict) and list(inner) == ["dtype"]:
            feature[key] = inner["dtype"]
        elif isinstance(inner, dict) and list(inner) == ["struct"]:
            feature[key] = inner["struct"]
    labels = feature.get("class_label")
    if isinstance(labels, dict) and isinstance(labels.get("names"), list):
        labels["names"] = {str(i): name for i, name in enumerate(labels["names"])}
    return feature


def _yaml_feature(obj: Any) -> dict[str, Any]:
    """One feature (JSON form) in the card's YAML form."""
    if isinstance(obj, (list, tuple)):
        return _simplify({"list": _simplify(_yaml_feature(obj[0]))})
    if not isinstance(obj, dict):
        raise NyccBenchError(f"features: expected a feature mapping, got {obj!r}")
    kind = obj.pop("_type", None)
    if kind in LIST_TYPES:
        item = obj.pop("feature")
        return _simplify({LIST_TYPES[kind]: _yaml_feature(item), **obj})
    if kind == "Value":
        return obj
    if kind:
        return {"dtype": _snake(kind)} if not obj else {"dtype": _simplify({_snake(kind): obj})}
    return {"struct": [{"name": name, **_yaml_feature(item)} for name, item in obj.items()]}


def features_yaml(features: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The `features:` list of a config's `dataset_info` (`Features._to_yaml_list`)."""
    return _yaml_feature(copy.deepcopy(dict(features)))["struct"]


def info_yaml(info: ConfigInfo) -> dict[str, Any]:
    """One config's entry, keys in `DatasetInfo`'s order, `config_name` first; unset values left out."""
    out: dict[str, Any] = {"config_name": info.config_name}
    if info.features is not None:
        out["features"] = features_yaml(info.features)
    if info.splits is not None:
        out["splits"] = [{"name": name, "num_bytes": size, "num_examples": rows}
                         for name, (size, rows) in info.splits.items()]
    for key in ("download_size", "dataset_size"):
        if getattr(info, key) is not None:
            out[key] = getattr(info, key)
    return out


def card_dataset_info(infos: Mapping[str, Any]) -> dict[str, Any] | list[dict[str, Any]]:
    """The card's `dataset_info` value: one mapping for a single config (without `config_name` when it is
    `default`), else a list sorted by config name. `infos`: config name → `ConfigInfo` or `datasets.DatasetInfo`."""
    entries = {name: {**info_yaml(ConfigInfo.of(info)), "config_name": name} for name, info in infos.items()}
    if len(entries) == 1:
        (name, entry), = entries.items()
        rest = {k: v for k, v in entry.items() if k != "config_name"}
        return rest if name == "default" else {"config_name": name, **rest}
    return [{"config_name": name, **{k: v for k, v in entry.items() if k != "config_name"}}
            for name, entry in sorted(entries.items())]


def feature_repr(feature: Any) -> str:
    """A feature (JSON form) as `repr` of its `datasets` object shows it: `Value('string')`, `List(Value('int32'))`,
    `Image(mode=None, decode=True)`, `ClassLabel(names=[...])`, a struct as a dict of those."""
    if isinstance(feature, (list, tuple)):
        return f"List({feature_repr(feature[0])})"
    if not isinstance(feature, dict):
        raise NyccBenchError(f"features: expected a feature mapping, got {feature!r}")
    kind = feature.get("_type")
    if kind is None:
        return "{" + ", ".join(f"{name!r}: {feature_repr(item)}" for name, item in feature.items()) + "}"
    if kind == "Value":
        return f"Value({feature['dtype']!r})"
    if kind in LIST_TYPES:
        length = feature.get("length", -1)
        return f"{kind}({feature_repr(feature['feature'])}" + (f", length={length})" if length != -1 else ")")
    if kind == "Image":
        return f"Image(mode={feature.get('mode')!r}, decode={feature.get('decode', True)!r})"
    if kind == "ClassLabel":
        return f"ClassLabel(names={feature.get('names')!r})"
    raise NyccBenchError(f"features: no card line for a {kind} feature; add it to nycc_bench/dataset_info.py")
