"""How a dataset row describes its cartoon in text (Hessel's annotations, else the nextml sentence): shared by the
family modules that prompt from, or compare with, a description (`hessel2023`, `zhang2024`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def row_description(row: Mapping[str, Any]) -> str:
    """The richest text description a row has (Hessel annotations, else the nextml sentence)."""
    parts = [row.get("image_location"), row.get("image_description"), row.get("image_uncanny_description")]
    text = " ".join(p for p in parts if p)
    return text or row.get("description") or ""
