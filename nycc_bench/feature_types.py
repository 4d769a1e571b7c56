"""A config's features without `datasets`: each feature in its JSON form (what `datasets.Features.to_dict()` gives and
each parquet file's `huggingface` schema metadata holds), its Arrow type and schema as `Features.arrow_schema` makes
them, and the `datasets.Features` object only for a caller that needs it (`to_datasets`).

Building a config needs only the Arrow schema, so `nycc-bench build` never imports `datasets` (its import was a fifth
of the 2.2M-caption build's CPU). `tests/test_feature_types.py` checks every config's forms against `datasets`' own."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from .errors import NyccBenchError

Feature = dict[str, Any]
Features = dict[str, Feature]

IMAGE_TYPE = pa.struct({"bytes": pa.binary(), "path": pa.string()})  # `datasets.Image`'s storage
FLOATS = {"float16": pa.float16(), "float32": pa.float32(), "float64": pa.float64()}
TIMESTAMP = re.compile(r"timestamp\[(\w+)(?:, tz=(.+))?\]")


def value(dtype: str) -> Feature:
    """`datasets.Value(dtype)`."""
    return {"dtype": dtype, "_type": "Value"}


def list_of(feature: Feature) -> Feature:
    """`datasets.List(feature)`."""
    return {"feature": feature, "_type": "List"}


def image() -> Feature:
    """`datasets.Image()` (decoded on load, any mode)."""
    return {"_type": "Image"}


def _value_type(dtype: str) -> pa.DataType:
    """The Arrow type of a `Value` dtype, as `datasets.features.string_to_arrow` gives it."""
    if dtype in FLOATS:
        return FLOATS[dtype]
    stamp = TIMESTAMP.fullmatch(dtype)
    if stamp:
        return pa.timestamp(stamp.group(1), tz=stamp.group(2))
    try:
        return pa.type_for_alias(dtype)
    except ValueError:
        raise NyccBenchError(f"features: unknown Value dtype {dtype!r}; use an Arrow type name such as "
                             "'string', 'int32' or 'float64'") from None


def arrow_type(feature: Feature | Mapping[str, Any]) -> pa.DataType:
    """A feature's Arrow type (`datasets.features.get_nested_type`)."""
    kind = feature.get("_type")
    if kind is None:  # a struct: its fields in order
        return pa.struct({name: arrow_type(item) for name, item in feature.items()})
    if kind == "Value":
        return _value_type(feature["dtype"])
    if kind in ("List", "LargeList"):
        item = arrow_type(feature["feature"])
        length = feature.get("length", -1)
        if kind == "LargeList":
            return pa.large_list(item)
        return pa.list_(item, length) if length != -1 else pa.list_(item)
    if kind == "Image":
        return IMAGE_TYPE
    if kind == "ClassLabel":
        return pa.int64()
    raise NyccBenchError(f"features: no Arrow type for a {kind} feature; add it to nycc_bench/feature_types.py")


def arrow_schema(features: Mapping[str, Feature]) -> pa.Schema:
    """The schema `datasets.Features(...).arrow_schema` gives: the fields, and the features' JSON form as the
    `huggingface` metadata (so `load_dataset` reads the files back with the same features)."""
    metadata = {"huggingface": json.dumps({"info": {"features": dict(features)}})}
    return pa.schema([pa.field(name, arrow_type(f)) for name, f in features.items()]).with_metadata(metadata)


def _arrow_dtype(kind: pa.DataType) -> str:
    """The `Value` dtype of an Arrow type (`datasets.features._arrow_to_datasets_dtype`, the types used here)."""
    if pa.types.is_timestamp(kind):
        return f"timestamp[{kind.unit}" + (f", tz={kind.tz}]" if kind.tz else "]")
    if pa.types.is_floating(kind):
        return {16: "float16", 32: "float32", 64: "float64"}[kind.bit_width]
    if pa.types.is_boolean(kind):
        return "bool"
    if pa.types.is_integer(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind) or \
            pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_null(kind):
        return str(kind)
    raise NyccBenchError(f"features: no Value dtype for Arrow type {kind}; add it to nycc_bench/feature_types.py")


def _from_arrow_type(kind: pa.DataType) -> Feature:
    """A feature from an Arrow type (`datasets.features.generate_from_arrow_type`)."""
    if pa.types.is_struct(kind):
        return {kind.field(i).name: _from_arrow_type(kind.field(i).type) for i in range(kind.num_fields)}
    if pa.types.is_fixed_size_list(kind):
        return {"feature": _from_arrow_type(kind.value_type), "length": kind.list_size, "_type": "List"}
    if pa.types.is_list(kind):
        return list_of(_from_arrow_type(kind.value_type))
    if pa.types.is_large_list(kind):
        return {"feature": _from_arrow_type(kind.value_type), "_type": "LargeList"}
    return value(_arrow_dtype(kind))


def from_arrow_schema(schema: pa.Schema) -> Features:
    """The features of an Arrow schema without `huggingface` metadata (`datasets.Features.from_arrow_schema`)."""
    if schema.metadata and b"huggingface" in schema.metadata:
        return json.loads(schema.metadata[b"huggingface"])["info"]["features"]
    return {field.name: _from_arrow_type(field.type) for field in schema}


def has_image(features: Mapping[str, Feature]) -> bool:
    """Whether a config carries an image column (its rows are large)."""
    return any(f.get("_type") == "Image" for f in features.values())


def to_datasets(features: Mapping[str, Feature]) -> Any:
    """The `datasets.Features` object, for the callers that use its API (imports `datasets`)."""
    import datasets

    return datasets.Features.from_dict(dict(features))
