"""One plot per benchmark metric: each run's score with its 95% interval (a forest plot, best on top)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .benchmarks import Metric
from .table import TYPES

COLORS = {"Baseline": "#8c8c8c", "Open weights": "#1f77b4", "API": "#d62728"}
MAX_ROWS = 30


def interval_plot(frame: pd.DataFrame, metric: Metric) -> Any:
    """A matplotlib figure of the best `MAX_ROWS` runs on `metric`, with interval error bars."""
    from matplotlib.figure import Figure  # not pyplot: no global figure registry, safe in server threads

    if metric.key in frame.columns:
        rows = frame[frame[metric.key].notna()]
        rows = rows.sort_values(metric.key, ascending=not metric.higher_is_better).head(MAX_ROWS)
    else:  # no result at all
        rows = frame
    fig = Figure(figsize=(8, 1.2 + 0.32 * max(len(rows), 1)), dpi=100)
    ax = fig.subplots()
    unit = " (%)" if metric.rate else ""
    ax.set_title(f"{metric.label}{unit}: score and 95% interval", fontsize=11, loc="left")
    if rows.empty:
        ax.text(0.5, 0.5, "no scored run yet", ha="center", va="center", transform=ax.transAxes, color="#666")
        ax.set_axis_off()
        return fig
    y = list(range(len(rows)))[::-1]
    values = rows[metric.key].astype(float)
    low = (values - rows[metric.key + "|low"].astype(float).fillna(values)).clip(lower=0)
    high = (rows[metric.key + "|high"].astype(float).fillna(values) - values).clip(lower=0)
    for kind, color in COLORS.items():
        pick = (rows["Type"] == kind).to_numpy()
        if pick.any():
            ax.errorbar(values[pick], [v for v, p in zip(y, pick, strict=True) if p],
                        xerr=[low[pick], high[pick]], fmt="o", color=color, ecolor=color, capsize=3, label=kind)
    labels = [f"{n} (sample)" if d == "sample" else n for n, d in zip(rows["name"], rows["Data"], strict=True)]
    ax.set_yticks(y, labels, fontsize=9)
    ax.set_xlabel(metric.label + unit)
    if metric.rate:
        ax.set_xlim(-2, 102)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8, frameon=False, ncols=len(TYPES))
    fig.subplots_adjust(left=0.3, right=0.97, top=1 - 0.45 / fig.get_figheight(), bottom=0.6 / fig.get_figheight())
    return fig
