"""The one validation layer for metric inputs: every bad input raises NyccBenchError naming the argument.

Each check returns the value in the form the scoring rules use (plain lists, Python ints and floats), so a
rule never sees a type, length, range or encoding it was not written for. Used by the scoring rules and by
every metric module in `nycc_bench.metrics`, before anything reaches evaluate's Arrow encoder or a judge.
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from nycc_bench.errors import NyccBenchError

FOLDS = (0, 1, 2, 3, 4)  # Hessel et al.'s five cross-validation folds
MAX_RESAMPLES = 1_000_000
INT64_MAX = 2**63 - 1


def is_missing(value: Any) -> bool:
    """True for None and float NaN (how pandas and Arrow spell a missing cell)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def check_sequence(values: Any, name: str, *, allow_empty: bool = False) -> list:
    """Return `values` as a list; a string, a non-sequence or (unless allowed) an empty one is an error."""
    if not _is_list_like(values):
        raise NyccBenchError(f"{name} must be a list, got {type(values).__name__}")
    values = list(values)
    if not values and not allow_empty:
        raise NyccBenchError(f"{name} is empty; expected at least one item")
    return values


def missing_as_none(values: Any, name: str) -> list:
    """Return `values` as a list with every missing item (None or NaN) as None, so that it is never stored
    as the text "nan" (what evaluate's string encoder would make of a NaN). Other items must be strings."""
    values = [None if is_missing(value) else value for value in check_sequence(values, name)]
    for i, value in enumerate(values):
        if value is not None and not isinstance(value, str):
            kind = type(value).__name__
            raise NyccBenchError(f"{name}[{i}] = {shorten(value)} is a {kind}; expected a string or None")
    check_unicode([v for v in values if v is not None], name, [i for i, v in enumerate(values) if v is not None])
    return values


def check_length(values: Sequence, name: str, expected: int, expected_from: str) -> None:
    """Raise unless `values` has one item per item of `expected_from`."""
    if len(values) != expected:
        raise NyccBenchError(
            f"{name} has {len(values)} items, expected {expected} (one per item of {expected_from})"
        )


def check_strings(values: Any, name: str, *, allow_empty: bool = False) -> list[str]:
    """Return `values` as a list of valid Unicode strings; a missing (None/NaN) or non-string item is an error."""
    values = check_sequence(values, name, allow_empty=allow_empty)
    if set(map(type, values)) - {str}:
        for i, value in enumerate(values):
            if is_missing(value):
                raise NyccBenchError(f"{name}[{i}] is missing ({value!r}); expected a string")
            if not isinstance(value, str):
                raise NyccBenchError(f"{name}[{i}] = {shorten(value)} is a {type(value).__name__}; expected a string")
    check_unicode(values, name)
    return values


def check_unicode(values: Sequence[str], name: str, positions: Sequence[int] | None = None) -> None:
    """Raise if a string holds a lone surrogate (text that is not valid Unicode and cannot be stored as UTF-8)."""
    try:
        "".join(values).encode("utf-8")
        return
    except UnicodeEncodeError:
        pass
    for k, value in enumerate(values):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            i = k if positions is None else positions[k]
            bad = value[error.start]
            raise NyccBenchError(
                f"{name}[{i}] holds a lone surrogate {bad!r} at character {error.start}; expected valid Unicode "
                "text (decode the source with errors='replace' or fix its encoding)"
            ) from None


def check_choices(values: Any, name: str, allowed: Sequence[str]) -> list[str]:
    """Return `values` as a list of strings, each one of `allowed` (exact, case-sensitive)."""
    values = check_sequence(values, name)
    allowed_set = set(allowed)
    for i, value in enumerate(values):
        if is_missing(value):
            raise NyccBenchError(f"{name}[{i}] is missing ({value!r}); expected one of {_spell(allowed)}")
        if not isinstance(value, str) or value not in allowed_set:
            raise NyccBenchError(f"{name}[{i}] = {shorten(value)} is not one of {_spell(allowed)}")
    return values


def check_choice_set(choices: Any, name: str = "choices") -> list[str]:
    """The allowed answer strings: a string of letters ("ABCDE") or a list of distinct non-empty strings."""
    items = list(choices) if isinstance(choices, str) else check_strings(choices, name)
    if not items:
        raise NyccBenchError(f"{name} is empty; expected the allowed answers, e.g. 'ABCDE'")
    check_unicode(items, name)
    if any(not item for item in items) or len(set(items)) != len(items):
        raise NyccBenchError(f"{name} = {shorten(choices)}; expected distinct non-empty answers, e.g. 'ABCDE'")
    return items


def check_folds(values: Any, name: str, expected: int, expected_from: str) -> list[int]:
    """One cross-validation fold per item, each an int in 0–4 (Hessel's folds); "0" and 0 are not the same fold."""
    values = check_sequence(values, name)
    check_length(values, name, expected, expected_from)
    folds = []
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) not in FOLDS:
            raise NyccBenchError(f"{name}[{i}] = {shorten(value)}; expected an int fold in 0–4")
        folds.append(int(value))
    return folds


def check_ids(values: Any, name: str, expected: int, expected_from: str) -> list[int | str]:
    """Unit identifiers (contests, captions): one per item, each an int or a valid Unicode string."""
    values = check_sequence(values, name)
    check_length(values, name, expected, expected_from)
    ids: list[int | str] = []
    for i, value in enumerate(values):
        if isinstance(value, str):
            ids.append(value)
        elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
            ids.append(int(value))
        else:
            raise NyccBenchError(f"{name}[{i}] = {shorten(value)} is not a valid identifier (an int or a string)")
    check_unicode([v for v in ids if isinstance(v, str)], name, [i for i, v in enumerate(ids) if isinstance(v, str)])
    return ids


def check_flags(values: Any, name: str, expected: int, expected_from: str) -> list[bool]:
    """One True/False per item (numpy booleans count; 0 and 1 do not)."""
    values = check_sequence(values, name)
    check_length(values, name, expected, expected_from)
    for i, value in enumerate(values):
        if not isinstance(value, bool) and type(value).__name__ != "bool_":
            raise NyccBenchError(f"{name}[{i}] = {shorten(value)}; expected True or False")
    return [bool(v) for v in values]


def check_groups(groups: Any, name: str) -> list[list[str]]:
    """Return caption groups (one list of strings per contest); an empty group or a missing caption is an error.

    The reference code of Zhang et al. read a missing caption as the text "nan"; here it is an error,
    so that a failed generation is never scored as a caption.
    """
    groups = check_sequence(groups, name)
    checked = []
    for i, group in enumerate(groups):
        if not _is_list_like(group):
            raise NyccBenchError(f"{name}[{i}] must be a list of captions (one contest's group), got {shorten(group)}")
        group = list(group)
        if not group:
            raise NyccBenchError(f"{name}[{i}] is an empty group; expected at least one caption")
        if set(map(type, group)) != {str}:  # the common case is checked at C speed
            for j, caption in enumerate(group):
                if is_missing(caption):
                    raise NyccBenchError(
                        f"{name}[{i}][{j}] (group {i}, caption position {j}) is missing ({caption!r}); "
                        "expected a string (a missing caption is never read as text)"
                    )
                if not isinstance(caption, str):
                    raise NyccBenchError(
                        f"{name}[{i}][{j}] = {shorten(caption)} is a {type(caption).__name__}; expected a string"
                    )
        check_unicode(group, f"{name}[{i}]")
        checked.append(group)
    return checked


def check_bool(value: Any, name: str) -> bool:
    """A True/False setting."""
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise NyccBenchError(f"{name} = {shorten(value)}; expected True or False")
    return bool(value)


def check_int(value: Any, name: str, low: int, high: int | None) -> int:
    """An integer setting in [low, high] (no upper bound for None; a bool or a float such as 5.0 is not an int)."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < low
            or (high is not None and int(value) > high)):
        span = f"in {low}..{high}" if high is not None else f">= {low}"
        raise NyccBenchError(f"{name} = {shorten(value)}; expected an integer {span}")
    return int(value)


def check_real(
    value: Any, name: str, *, low: float = -math.inf, high: float = math.inf, open_interval: bool = False
) -> float:
    """A finite real number in [low, high] (or (low, high) with `open_interval`), as a float."""
    number = to_finite_float(value)
    if number is None or not (low < number < high if open_interval else low <= number <= high):
        brackets = "()" if open_interval else "[]"
        span = f" in {brackets[0]}{low}, {high}{brackets[1]}" if math.isfinite(low) or math.isfinite(high) else ""
        raise NyccBenchError(f"{name} = {shorten(value)}; expected a finite number{span}")
    return number


def to_finite_float(value: Any) -> float | None:
    """`value` as a finite float, or None when it is not a real number or not finite (also 10**400)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    try:
        number = float(value)
    except (OverflowError, ValueError):
        return None
    return number if math.isfinite(number) else None


def check_bootstrap(confidence: Any, n_resamples: Any, seed: Any) -> tuple[float, int, int]:
    """The percentile bootstrap settings: confidence in (0, 1), n_resamples in 1..1e6, a seed >= 0."""
    return (
        check_real(confidence, "confidence", low=0.0, high=1.0, open_interval=True),
        check_int(n_resamples, "n_resamples", 1, MAX_RESAMPLES),
        check_int(seed, "seed", 0, None),
    )


def check_optional_str(value: Any, name: str) -> str | None:
    """None or a non-empty valid Unicode string (a model name, a URL, a folder)."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise NyccBenchError(f"{name} = {shorten(value)}; expected a non-empty string or None")
    check_unicode([value], name)
    return value


def check_arguments(given: Iterable[str], accepted: Iterable[str], metric: str) -> None:
    """Refuse an argument the metric does not take, naming the nearest one it does (a typo is never ignored)."""
    accepted = sorted(accepted)
    for name in given:
        if name not in accepted:
            near = difflib.get_close_matches(str(name), accepted, n=1)
            hint = f"; did you mean {near[0]}?" if near else f"; it takes {', '.join(accepted)}"
            raise NyccBenchError(f"{name}: {metric} takes no argument of that name{hint}")


def _is_list_like(value: Any) -> bool:
    # numpy arrays and pyarrow-backed columns count as lists; strings and mappings do not
    return not isinstance(value, (str, bytes, Mapping)) and hasattr(value, "__len__") and hasattr(value, "__getitem__")


def _spell(allowed: Sequence[str]) -> str:
    return ", ".join(repr(a) for a in allowed)


def shorten(value: Any, limit: int = 60) -> str:
    """A repr for an error message, cut to `limit` characters (a bad input may be huge)."""
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not replace the error being reported
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
