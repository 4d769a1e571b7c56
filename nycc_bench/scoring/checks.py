"""Input checks shared by the scoring rules: every bad input raises ValueError naming the argument."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any


def is_missing(value: Any) -> bool:
    """True for None and float NaN (how pandas and Arrow spell a missing cell)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def check_sequence(values: Any, name: str, *, allow_empty: bool = False) -> list:
    """Return `values` as a list; a string, a non-sequence or (unless allowed) an empty one is an error."""
    if not _is_list_like(values):
        raise ValueError(f"{name} must be a list, got {type(values).__name__}")
    values = list(values)
    if not values and not allow_empty:
        raise ValueError(f"{name} is empty; expected at least one item")
    return values


def missing_as_none(values: Any, name: str) -> list:
    """Return `values` as a list with every missing item (None or NaN) as None, so that it is never stored
    as the text "nan" (what evaluate's string encoder would make of a NaN)."""
    return [None if is_missing(value) else value for value in check_sequence(values, name)]


def check_length(values: Sequence, name: str, expected: int, expected_from: str) -> None:
    """Raise unless `values` has one item per item of `expected_from`."""
    if len(values) != expected:
        raise ValueError(f"{name} has {len(values)} items, expected {expected} (one per item of {expected_from})")


def check_strings(values: Any, name: str, *, allow_empty: bool = False) -> list[str]:
    """Return `values` as a list of strings; a missing (None/NaN) or non-string item is an error."""
    values = check_sequence(values, name, allow_empty=allow_empty)
    for i, value in enumerate(values):
        if is_missing(value):
            raise ValueError(f"{name}[{i}] is missing ({value!r}); expected a string")
        if not isinstance(value, str):
            raise ValueError(f"{name}[{i}] = {value!r} is a {type(value).__name__}; expected a string")
    return values


def check_choices(values: Any, name: str, allowed: Sequence[str]) -> list[str]:
    """Return `values` as a list of strings, each one of `allowed` (exact, case-sensitive)."""
    values = check_sequence(values, name)
    allowed_set = set(allowed)
    for i, value in enumerate(values):
        if is_missing(value):
            raise ValueError(f"{name}[{i}] is missing ({value!r}); expected one of {_spell(allowed)}")
        if value not in allowed_set:
            raise ValueError(f"{name}[{i}] = {value!r} is not one of {_spell(allowed)}")
    return values


def check_ids(values: Any, name: str, expected: int, expected_from: str) -> list[Hashable]:
    """Return unit identifiers (folds, contests, captions): one per item, none missing, all hashable."""
    values = check_sequence(values, name)
    check_length(values, name, expected, expected_from)
    for i, value in enumerate(values):
        if is_missing(value) or isinstance(value, bool) or not isinstance(value, Hashable):
            raise ValueError(f"{name}[{i}] = {value!r} is not a valid identifier (an int or a string)")
    return values


def check_groups(groups: Any, name: str) -> list[list[str]]:
    """Return caption groups (one list of strings per contest); an empty group or a missing caption is an error.

    The reference code of Zhang et al. read a missing caption as the text "nan"; here it is an error,
    so that a failed generation is never scored as a caption.
    """
    groups = check_sequence(groups, name)
    checked = []
    for i, group in enumerate(groups):
        if not _is_list_like(group):
            raise ValueError(f"{name}[{i}] must be a list of captions (one contest's group), got {group!r}")
        group = list(group)
        if not group:
            raise ValueError(f"{name}[{i}] is an empty group; expected at least one caption")
        if set(map(type, group)) == {str}:  # the common case, checked at C speed
            checked.append(group)
            continue
        for j, caption in enumerate(group):
            if is_missing(caption):
                raise ValueError(
                    f"{name}[{i}][{j}] (group {i}, caption position {j}) is missing ({caption!r}); "
                    "expected a string (a missing caption is never read as text)"
                )
            if not isinstance(caption, str):
                raise ValueError(f"{name}[{i}][{j}] = {caption!r} is a {type(caption).__name__}; expected a string")
        checked.append(group)
    return checked


def _is_list_like(value: Any) -> bool:
    # numpy arrays and pyarrow-backed columns count as lists; strings and mappings do not
    return not isinstance(value, (str, bytes, Mapping)) and hasattr(value, "__len__") and hasattr(value, "__getitem__")


def _spell(allowed: Sequence[str]) -> str:
    return ", ".join(repr(a) for a in allowed)
