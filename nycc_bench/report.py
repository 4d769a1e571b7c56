"""A self-contained HTML report of scored results: a table and a plot with intervals per task."""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .leaderboard.benchmarks import FAMILIES, METRICS, Metric

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
th, td { border: 1px solid #ccc; padding: 0.3rem 0.6rem; text-align: left; }
th { background: #f3f3f3; }
.note { color: #666; font-size: 0.9rem; }
img { max-width: 100%; }
"""


def _plot(column: Metric, rows: Sequence[dict[str, Any]]) -> str:
    """A horizontal bar per system with its interval, as an inline PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scale = 100 if column.rate else 1
    names = [r["system"] for r in rows]
    extracted = [column.extract(r["scores"]) for r in rows]
    values = [(value or 0) * scale for value, _, _, _ in extracted]
    bounds = [(low, high) for _, low, high, _ in extracted]
    errors = [[max(v - (lo * scale if lo is not None else v), 0) for v, (lo, _) in zip(values, bounds, strict=True)],
              [max((hi * scale if hi is not None else v) - v, 0) for v, (_, hi) in zip(values, bounds, strict=True)]]
    fig, ax = plt.subplots(figsize=(6, 0.5 + 0.45 * len(rows)))
    ax.barh(names, values, xerr=errors, color="#4c72b0", capsize=3)
    ax.set_xlabel(column.label + (" (%)" if column.rate else ""))
    ax.invert_yaxis()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<img alt="{html.escape(column.label)}" src="data:image/png;base64,{data}">'


def render_report(results: Sequence[dict[str, Any]], judges: dict[str, str] | None = None,
                  title: str = "nycc-bench results") -> str:
    """The report as HTML; every text from results is escaped."""
    parts = [f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title><style>{STYLE}</style>",
             f"<h1>{html.escape(title)}</h1>"]
    if judges:
        named = ", ".join(f"{html.escape(k)}: <code>{html.escape(v)}</code>" for k, v in judges.items())
        parts.append(f"<p class='note'>Judged scores come from offline judges trained on the same data ({named}); "
                     "they are a free pre-screen, not the papers' GPT-4 judges.</p>")
    for family in FAMILIES:
        family_name = family.title
        columns = [m for m in METRICS if m.family == family.key]
        tasks = list(dict.fromkeys(c.task for c in columns))
        shown = [t for t in tasks if any(r["task"] == t for r in results)]
        if not shown:
            continue
        parts.append(f"<h2>{html.escape(family_name)}</h2>")
        for task in shown:
            rows = [r for r in results if r["task"] == task]
            cols = [c for c in columns if c.task == task and any(c.extract(r["scores"])[0] is not None for r in rows)]
            head = "".join(f"<th>{html.escape(c.label)}</th>" for c in cols)
            body = "".join(
                f"<tr><td>{html.escape(r['system'])}</td>"
                + "".join(f"<td>{html.escape(c.format(r['scores']))}</td>" for c in cols)
                + f"<td>{r['n']}</td><td>{r['n_unparsed']}</td></tr>" for r in rows)
            parts.append(f"<h3>{html.escape(task)} <span class='note'>(split {html.escape(rows[0]['split'])}, "
                         f"prompt {html.escape(rows[0]['prompt_version'])})</span></h3>"
                         f"<table><tr><th>system</th>{head}<th>n</th><th>unparsed</th></tr>{body}</table>")
            if cols:
                parts.append(_plot(cols[0], rows))
    parts.append("<p class='note'>Intervals: 95% seeded percentile bootstrap over items (accuracy), contests "
                 "(win rate) or captions (HumorBench).</p>")
    return "\n".join(parts)


def write_report(results: Sequence[dict[str, Any]], path: Path, judges: dict[str, str] | None = None) -> Path:
    """Write the report and return its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(results, judges), encoding="utf-8")
    return path
