"""Results → the leaderboard's tables: one wide frame of every run and metric, then per-tab filtered views.

Each metric gives three columns: the value (a percentage for rates), its 95% interval as text, and its count.
`Rank` is Chatbot Arena's rank with intervals: 1 + the number of runs whose interval lies wholly above this
run's interval, so runs that cannot be told apart share a rank.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .benchmarks import METRICS, Metric, family_metrics
from .store import run_id

TYPES = {"baseline": "Baseline", "open": "Open weights", "api": "API"}
SIZES = [("< 1B", 0.0, 1.0), ("1-3B", 1.0, 3.0), ("3-7B", 3.0, 7.0), ("7-15B", 7.0, 15.0), ("15-35B", 15.0, 35.0),
         ("35B+", 35.0, math.inf)]
UNKNOWN_SIZE = "unknown"
SETTINGS = ("from description", "from pixels")
INFO_COLUMNS = ["Model", "Type", "Params (B)", "Data"]


@dataclass(frozen=True)
class Filters:
    """What the user narrowed the table to; empty selections mean everything."""

    search: str = ""
    types: tuple[str, ...] = tuple(TYPES.values())
    sizes: tuple[str, ...] = (*(s[0] for s in SIZES), UNKNOWN_SIZE)
    settings: tuple[str, ...] = SETTINGS
    show_sample: bool = True
    show_ci: bool = True


def size_bucket(params: int | None) -> str:
    """The size filter's bucket of a parameter count."""
    if params is None:
        return UNKNOWN_SIZE
    billions = params / 1e9
    return next(label for label, low, high in SIZES if low <= billions < high)


def _scale(metric: Metric, x: float | None) -> float | None:
    return None if x is None else round(x * 100 if metric.rate else x, 1 if metric.rate else 3)


def _fmt(x: float) -> str:
    return f"{x:.1f}" if abs(x) >= 1.5 or x == 0 else f"{x:.3f}"


def model_link(name: str, url: str | None) -> str:
    """The model cell: a markdown link for Hub models, with markdown's special characters escaped."""
    text = "".join("\\" + c if c in "\\`*_{}[]()<>#+!|~" else c for c in name)
    return f"[{text}]({url})" if url and url.startswith("https://huggingface.co/") else text


def build_frame(results: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per run: model facts and, per metric, value / low / high / n (display scale) and whether run."""
    rows = []
    for result in results:
        model = result.get("model", {})
        params = model.get("parameters")
        row: dict[str, Any] = {
            "run_id": run_id(result), "name": model.get("name", "?"), "Model": model_link(model.get("name", "?"),
                                                                                           model.get("url")),
            "Type": TYPES.get(model.get("type", "open"), "Open weights"),
            "Params (B)": float(f"{params / 1e9:.3g}") if params else None, "size": size_bucket(params),
            "Data": "sample" if result.get("dataset", {}).get("sample") else "benchmark",
        }
        tasks = result.get("tasks", {})
        for metric in METRICS:
            entry = tasks.get(metric.task) or {}
            value, low, high, n = metric.extract(entry.get("scores"))
            row[metric.key] = _scale(metric, value)
            row[metric.key + "|low"], row[metric.key + "|high"] = _scale(metric, low), _scale(metric, high)
            row[metric.key + "|n"] = n
            row[metric.key + "|ran"] = metric.task in tasks
        rows.append(row)
    return pd.DataFrame(rows)


def arena_rank(values: pd.Series, lows: pd.Series, highs: pd.Series, higher_is_better: bool = True) -> pd.Series:
    """1 + how many runs are surely better (their interval wholly beyond this one's); NaN where no value."""
    low = lows.fillna(values).to_numpy(dtype=float)
    high = highs.fillna(values).to_numpy(dtype=float)
    if not higher_is_better:
        low, high = -high, -low
    ranks = [1 + int((low > h).sum()) if not math.isnan(h) else math.nan for h in high]
    return pd.Series(ranks, index=values.index, dtype="Float64")


def visible_metrics(family: str | None, filters: Filters) -> list[Metric]:
    """The tab's metrics in the settings the user kept."""
    kept = {s == "from pixels" for s in filters.settings or SETTINGS}
    return [m for m in family_metrics(family) if m.from_pixels in kept]


def filter_rows(frame: pd.DataFrame, filters: Filters) -> pd.DataFrame:
    """Rows matching the search (terms separated by ';', any may match), types, sizes and the sample switch."""
    if frame.empty:
        return frame
    mask = pd.Series(True, index=frame.index)
    terms = [t.strip().lower() for t in filters.search.split(";") if t.strip()]
    if terms:
        names = frame["name"].str.lower()
        mask &= pd.concat([names.str.contains(t, regex=False) for t in terms], axis=1).any(axis=1)
    if filters.types:
        mask &= frame["Type"].isin(filters.types)
    if filters.sizes:
        mask &= frame["size"].isin(filters.sizes)
    if not filters.show_sample:
        mask &= frame["Data"] != "sample"
    return frame[mask]


def tab_table(frame: pd.DataFrame, family: str | None, filters: Filters) -> pd.DataFrame:
    """The table one tab shows: ranked on its first metric, filtered, with interval and count columns."""
    metrics = visible_metrics(family, filters)
    columns = (["Rank"] if family else []) + INFO_COLUMNS
    for m in metrics:
        columns += [m.label] + ([f"{m.label} 95% CI", f"{m.label} n"] if filters.show_ci else [])
    rows = filter_rows(frame, filters)
    if rows.empty or not metrics:
        return pd.DataFrame(columns=columns)
    rows = rows[rows[[m.key + "|ran" for m in metrics]].any(axis=1)].copy()
    first = metrics[0]
    if family:
        rows["Rank"] = arena_rank(rows[first.key], rows[first.key + "|low"], rows[first.key + "|high"],
                                  first.higher_is_better)
    for m in metrics:
        rows[m.label] = rows[m.key]
        if filters.show_ci:
            rows[f"{m.label} 95% CI"] = [f"[{_fmt(lo)}, {_fmt(hi)}]" if pd.notna(lo) and pd.notna(hi) else ""
                                         for lo, hi in zip(rows[m.key + "|low"], rows[m.key + "|high"], strict=True)]
            rows[f"{m.label} n"] = rows[m.key + "|n"].astype("Int64")
    rows = rows.sort_values([first.key, "name"], ascending=[not first.higher_is_better, True], na_position="last")
    return rows[columns].reset_index(drop=True)


def datatypes(table: pd.DataFrame) -> list[str]:
    """gr.Dataframe column types: the model cell is markdown, numbers sort as numbers."""
    out = []
    for column in table.columns:
        if column == "Model":
            out.append("markdown")
        elif column.endswith("95% CI") or column in ("Type", "Data"):
            out.append("str")
        else:
            out.append("number")
    return out
