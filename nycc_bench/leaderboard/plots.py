"""The leaderboard's plots: one metric over runs (a forest plot, best on top) and runs compared over metrics.

Error bars are drawn only for scores that have an interval, and a title promises an interval only when one is
drawn. Every percentage plot spans 0-100 %, so the plots of a family (and the comparison) share one axis and read
alike; other scores are fitted to the data shown. A plot whose values are all equal says so in its title.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..standings import TYPES
from ..tasks.scores import Metric

COLORS = {"Baseline": "#8c8c8c", "Open weights": "#1f77b4", "API": "#d62728", "Published outputs": "#2ca02c"}
RUN_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
MAX_ROWS = 30


def _figure(rows: int) -> Any:
    from matplotlib.figure import Figure  # not pyplot: no global figure registry, safe in server threads

    return Figure(figsize=(8, 1.3 + 0.32 * max(rows, 1)), dpi=100)


PERCENT_RANGE = (-2.0, 102.0)  # 0-100 % with room for the markers: the shared axis of every percentage plot


def _fit(ax: Any, lows: pd.Series, highs: pd.Series, rate: bool) -> None:
    """Percentages: the shared 0-100 axis; other scores: a range around what is drawn, with a margin."""
    if rate:
        ax.set_xlim(*PERCENT_RANGE)
        return
    low, high = float(lows.min()), float(highs.max())
    span = max((high - low) * 1.16, 10.0 if rate else max(abs(high), abs(low)) * 0.2 or 0.1)
    if rate:
        span = min(span, 104.0)
    left = (low + high - span) / 2
    if rate:  # shifted, not cut, to stay within [0, 100] (with room for the markers)
        left = min(max(left, -2.0), 102.0 - span)
    ax.set_xlim(left, left + span)


def _empty(fig: Any, ax: Any, text: str) -> Any:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_axis_off()
    return fig


def interval_plot(frame: pd.DataFrame, metric: Metric) -> Any:
    """A matplotlib figure of the best `MAX_ROWS` runs on `metric`, with error bars where there are intervals."""
    if metric.key in frame.columns:
        rows = frame[frame[metric.key].notna()]
        rows = rows.sort_values(metric.key, ascending=not metric.higher_is_better).head(MAX_ROWS)
    else:  # no result at all
        rows = frame.iloc[0:0]
    fig = _figure(len(rows))
    ax = fig.subplots()
    unit = " (%)" if metric.rate else ""
    if rows.empty:
        ax.set_title(f"{metric.label}{unit}", fontsize=11, loc="left")
        why = "needs a judge; none has scored a run yet" if metric.judged else "no scored run yet"
        return _empty(fig, ax, why)
    y = list(range(len(rows)))[::-1]
    values = rows[metric.key].astype(float)
    lows = rows[metric.key + "|low"].astype(float)
    highs = rows[metric.key + "|high"].astype(float)
    has = (lows.notna() & highs.notna()).to_numpy()
    for kind, color in COLORS.items():
        pick = (rows["Type"] == kind).to_numpy()
        ys = [v for v, p in zip(y, pick, strict=True) if p]
        if not pick.any():
            continue
        ax.plot(values[pick], ys, "o", color=color, label=kind)
        bars = pick & has
        if bars.any():
            ax.errorbar(values[bars], [v for v, p in zip(y, bars, strict=True) if p],
                        xerr=[(values - lows)[bars].clip(lower=0), (highs - values)[bars].clip(lower=0)],
                        fmt="none", ecolor=color, capsize=3)
    what = "score and 95% interval" if has.all() else "score (95% interval where computed)" if has.any() else \
        "score (no interval computed)"
    flat = (lows.fillna(values) == values).all() and (highs.fillna(values) == values).all()
    if len(rows) > 1 and values.nunique() == 1 and flat:
        digits = 1 if metric.rate or metric.score == "bleu" else 3
        what = f"all {len(rows)} runs score {values.iloc[0]:.{digits}f}"
    ax.set_title(f"{metric.label}{unit}: {what}", fontsize=11, loc="left")
    labels = [f"{n} (sample)" if d == "sample" else n for n, d in zip(rows["name"], rows["Data"], strict=True)]
    ax.set_yticks(y, labels, fontsize=9)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel(metric.label + unit)
    _fit(ax, lows.fillna(values), highs.fillna(values), metric.rate)
    ax.grid(axis="x", alpha=0.3)
    height = fig.get_figheight()
    if rows["Type"].nunique() > 1:
        fig.legend(loc="lower left", bbox_to_anchor=(0.01, 0.01), fontsize=8, frameon=False, ncols=len(TYPES))
    fig.subplots_adjust(left=0.3, right=0.97, top=1 - 0.45 / height, bottom=0.75 / height)
    return fig


def compare_plot(frame: pd.DataFrame, run_ids: list[str], metrics: list[Metric]) -> Any:
    """The chosen runs side by side on every percentage metric of a view (one row per metric, one colour per run)."""
    rows = frame[frame["run_id"].isin(run_ids)] if not frame.empty else frame
    rates = [m for m in metrics if m.rate and not rows.empty and rows[m.key].notna().any()]
    fig = _figure(len(rates) * max(len(rows), 1) // 2 + len(rates))
    ax = fig.subplots()
    ax.set_title("Runs compared (%, on the shared 0-100 axis; 95% interval where computed)", fontsize=11,
                 loc="left")
    if rows.empty or not rates:
        return _empty(fig, ax, "choose runs that have scores on this view's metrics")
    step = 0.8 / max(len(rows), 1)
    lows_all, highs_all = [], []
    for i, (_, row) in enumerate(rows.iterrows()):
        color = RUN_COLORS[i % len(RUN_COLORS)]
        label = f"{row['name']} (sample)" if row["Data"] == "sample" else row["name"]
        ys, xs, err_lo, err_hi = [], [], [], []
        for j, m in enumerate(reversed(rates)):
            value = row[m.key]
            if pd.isna(value):
                continue
            low = row[m.key + "|low"] if pd.notna(row[m.key + "|low"]) else value
            high = row[m.key + "|high"] if pd.notna(row[m.key + "|high"]) else value
            ys.append(j + 0.4 - step * (i + 0.5))
            xs.append(value)
            err_lo.append(max(value - low, 0))
            err_hi.append(max(high - value, 0))
            lows_all.append(low)
            highs_all.append(high)
        ax.errorbar(xs, ys, xerr=[err_lo, err_hi], fmt="o", color=color, ecolor=color, capsize=3, label=label)
    ax.set_yticks(range(len(rates)), [m.label for m in reversed(rates)], fontsize=9)
    ax.set_xlabel("%")
    _fit(ax, pd.Series(lows_all, dtype=float), pd.Series(highs_all, dtype=float), True)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    fig.subplots_adjust(left=0.22, right=0.72, top=1 - 0.45 / fig.get_figheight(), bottom=0.6 / fig.get_figheight())
    return fig
