"""A split's rows as a task's builder reads them, straight from the Arrow table (`Rows`): iteration as dicts, a column
by name, a row by position, images decoded as `datasets.Image` decodes them. Reading a built dataset's parquet
files this way needs pyarrow alone, so scoring a run never imports `datasets` (and pandas with it) for a folder on
disk; `splits.read_rows` is where a split is read."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..images import SOURCE_BYTES


def image_columns(schema: pa.Schema) -> list[str]:
    """The columns a schema's `datasets` features (its `huggingface` metadata) declare as `Image`."""
    meta = (schema.metadata or {}).get(b"huggingface")
    if not meta:
        return []
    features = json.loads(meta).get("info", {}).get("features", {})
    return [name for name, feature in features.items()
            if isinstance(feature, dict) and feature.get("_type") == "Image" and name in schema.names]


def decode_image(value: dict[str, Any] | None) -> Any:
    """A stored image (`{"bytes", "path"}`) as a PIL image, as `datasets.Image().decode_example` gives it (loaded,
    EXIF orientation applied), with the file's bytes kept in `info[SOURCE_BYTES]`; None stays None."""
    if value is None or (value.get("bytes") is None and value.get("path") is None):
        return None
    import PIL.Image
    import PIL.ImageOps

    raw = value.get("bytes")
    if raw is None:
        raw = Path(value["path"]).read_bytes()  # a path alone: opened as `datasets` opens it
    image = PIL.Image.open(io.BytesIO(raw))
    image.load()
    if image.getexif().get(PIL.Image.ExifTags.Base.Orientation) is not None:
        image = PIL.ImageOps.exif_transpose(image)
    image.info[SOURCE_BYTES] = raw
    return image


class Rows:
    """The rows of one split over an Arrow table; a column is converted once, an image when its row is first read."""

    def __init__(self, table: pa.Table, images: Iterable[str] = ()) -> None:
        self.table = table
        self.images = [c for c in images if c in table.column_names]
        self._plain: dict[str, list[Any]] = {}
        self._decoded: dict[str, dict[int, Any]] = {}

    def __len__(self) -> int:
        return self.table.num_rows

    @property
    def num_rows(self) -> int:
        return self.table.num_rows

    @property
    def column_names(self) -> list[str]:
        return list(self.table.column_names)

    def _stored(self, name: str) -> list[Any]:
        """A column's values as stored (an image as its `{"bytes", "path"}`), read once."""
        if name not in self._plain:
            if name not in self.table.column_names:
                raise KeyError(f"Column {name} not in the dataset. Current columns in the dataset: "
                               f"{self.column_names}")
            self._plain[name] = self.table[name].to_pylist()
        return self._plain[name]

    def _value(self, name: str, i: int) -> Any:
        if name not in self.images:
            return self._stored(name)[i]
        decoded = self._decoded.setdefault(name, {})
        if i not in decoded:
            decoded[i] = decode_image(self._stored(name)[i])
        return decoded[i]

    def column(self, name: str) -> list[Any]:
        """One column's values, images decoded."""
        if name in self.images:
            return [self._value(name, i) for i in range(len(self))]
        return self._stored(name)

    def __getitem__(self, key: int | str) -> Any:
        """A column's values by name, or one row as a dict by position (negative counts from the end)."""
        if isinstance(key, str):
            return self.column(key)
        if isinstance(key, bool) or not isinstance(key, int):
            raise TypeError(f"rows are indexed by a column name or a row position, not {key!r}")
        if not -len(self) <= key < len(self):
            raise IndexError(f"row {key} of {len(self)}")
        key %= len(self)
        return {name: self._value(name, key) for name in self.table.column_names}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        columns = [(name, self.column(name)) for name in self.table.column_names]
        for i in range(len(self)):
            yield {name: values[i] for name, values in columns}

    def to_list(self) -> list[dict[str, Any]]:
        return list(self)

    def select(self, indices: Sequence[int]) -> Rows:
        """The rows at these positions, in this order."""
        return Rows(self.table.take(pa.array(list(indices), type=pa.int64())), self.images)

    def select_columns(self, names: str | Sequence[str]) -> Rows:
        names = [names] if isinstance(names, str) else list(names)
        return Rows(self.table.select(names), self.images)

    def remove_columns(self, names: str | Sequence[str]) -> Rows:
        """These columns left out (a column the rows lack is ignored): text builders drop the images undecoded."""
        drop = {names} if isinstance(names, str) else set(names)
        return self.select_columns([c for c in self.table.column_names if c not in drop])

    def source_images(self, column: str = "image") -> list[Any]:
        """A column's decoded images, each with its file's stored bytes (`images.source_images` asks for this)."""
        return self.column(column) if column in self.table.column_names else [None] * len(self)
