"""A dataset card's `dataset_info` block (each config's features, splits and sizes) and its features' type lines,
as `datasets` writes them (`DatasetInfosDict.to_dataset_card_data`, `repr` of a feature), from plain values: the
features in their JSON form (`Features.to_dict()`, what each parquet file's `huggingface` schema metadata holds).
The card is then written without importing `datasets` (its import is most of a small build's start-up).

`tests/test_dataset_info.py` checks the output against `datasets`' own, byte for byte, on every config's features."""

from __future__ import annotations

import json
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


def _fresh(obj: Any) -> Any:
    """A deep copy that shares no dict (a feature used by many columns is one object; the converters edit copies)."""
    return json.loads(json.dumps(obj))


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
    return _yaml_feature(_fresh(dict(features)))["struct"]


def _camel(name: str) -> str:
    """`class_label` → `ClassLabel` (`datasets.naming.snakecase_to_camelcase`)."""
    return "".join(part.capitalize() for part in name.split("_"))


VALUE_DTYPES = re.compile(r"(null|bool|u?int(8|16|32|64)|float(16|32|64)|time(32|64)\[\w+\]|timestamp\[.+\]|date(32|64)"
                          r"|duration\[\w+\]|decimal(128|256)\(.+\)|(large_)?(binary|string)|string_view)")


def _unsimplify(feature: dict[str, Any]) -> dict[str, Any]:
    """The inverse of `_simplify`: an inline list item back to `{"dtype": ...}`, class names back to a list."""
    for key in ("large_list", "list", "sequence"):
        if isinstance(feature.get(key), str):
            feature[key] = {"dtype": feature[key]}
    labels = feature.get("class_label")
    if isinstance(labels, dict) and isinstance(labels.get("names"), dict):
        labels["names"] = [labels["names"][i] for i in sorted(labels["names"], key=int)]
    return feature


def _json_feature(obj: Any) -> Any:
    """One feature of the card's YAML back in its JSON form (`Features._from_yaml_list`)."""
    if isinstance(obj, list):
        return {item.pop("name"): _json_feature(item) for item in obj}
    if not isinstance(obj, dict):
        raise NyccBenchError(f"dataset_info: expected a feature mapping in the card's features, got {obj!r}")
    if not obj:
        return {}
    kind = next(iter(obj))
    if kind in ("large_list", "list", "sequence"):
        item = _json_feature(_unsimplify(obj).pop(kind))
        if kind == "sequence" and isinstance(item, dict) and "_type" not in item:  # an old sequence of a struct
            return {name: {"feature": sub, **obj, "_type": "List"} for name, sub in item.items()}
        return {"feature": item, **obj, "_type": "LargeList" if kind == "large_list" else "List"}
    if kind == "struct":
        return _json_feature(obj["struct"])
    if kind == "dtype":
        dtype = obj["dtype"]
        if not isinstance(dtype, str):
            return _json_feature(dtype)
        return {**obj, "_type": "Value"} if VALUE_DTYPES.fullmatch(dtype) else {"_type": _camel(dtype)}
    return {"_type": _camel(kind), **_unsimplify(obj)[kind]}


def features_from_yaml(items: list[dict[str, Any]]) -> dict[str, Any]:
    """A config's features (JSON form) from its card's `features:` list: the inverse of `features_yaml`."""
    return _json_feature(_fresh(items))


def infos_from_card(data: Mapping[str, Any]) -> dict[str, ConfigInfo]:
    """Each config's `ConfigInfo` from a card's YAML data, as `DatasetInfosDict.from_dataset_card_data` reads it
    (one mapping without `config_name` is the `default` config)."""
    block = data.get("dataset_info")
    entries = [block] if isinstance(block, dict) else block if isinstance(block, list) else []
    out = {}
    for entry in entries:
        name = entry.get("config_name") or "default"
        features = features_from_yaml(entry["features"]) if entry.get("features") is not None else None
        splits = None if entry.get("splits") is None else {
            s["name"]: (s.get("num_bytes", 0), s.get("num_examples", 0)) for s in entry["splits"]}
        out[name] = ConfigInfo(name, features, splits, entry.get("download_size"), entry.get("dataset_size"))
    return out


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
