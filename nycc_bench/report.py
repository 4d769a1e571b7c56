"""A self-contained HTML report of results records: per task a table, what differs from the paper, and a plot."""

from __future__ import annotations

import base64
import html
import io
import json
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


def _rows(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (system, task) of the records: the system's name, the task, its entry."""
    return [{"system": r["model"]["name"], "task": t, "entry": e, "sample": r["dataset"].get("sample", False)}
            for r in records for t, e in r["tasks"].items()]


def status_prefix(entry: dict[str, Any]) -> str:
    """`incomplete (N failed): ` before the scores of an incomplete task; empty for a complete one."""
    if entry.get("status") != "incomplete":
        return ""
    failed = f"{entry['n_failed']} failed" if entry.get("n_failed") else (entry.get("status_reason") or "")
    return f"incomplete ({failed}): "


def score_lines(record: dict[str, Any]) -> list[str]:
    """One line per task of a record: its scores with intervals and counts, as the leaderboard shows them."""
    lines = []
    for task, entry in record["tasks"].items():
        shown = [f"{m.label} {m.format(entry['scores'])}" for m in METRICS
                 if m.task == task and m.extract(entry["scores"])[0] is not None]
        counts = "".join(f", {k.removeprefix('n_')} {entry[k]}" for k in ("n_unparsed", "n_failed", "n_error")
                         if entry[k])
        lines.append(f"{record['model']['name']:<24}{task:<26}{status_prefix(entry)}{'; '.join(shown) or '—'}{counts}")
    lines += [f"{record['model']['name']:<24}{task:<26}not scored: {why}" for task, why in
              (record.get("skipped") or {}).items()]
    lines += [f"{record['model']['name']:<24}{task:<26}FAILED: {why}" for task, why in
              (record.get("errors") or {}).items()]
    return lines


def _plot(column: Metric, rows: Sequence[dict[str, Any]]) -> str:
    """A horizontal bar per system, with its interval where it has one, as an inline PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scale = 100 if column.rate else 1
    names = [r["system"] for r in rows]
    extracted = [column.extract(r["entry"]["scores"]) for r in rows]
    values = [(value or 0) * scale for value, _, _, _ in extracted]
    has_ci = any(low is not None for _, low, _, _ in extracted)
    errors = [[max(v - (lo * scale if lo is not None else v), 0) for v, (_, lo, _, _) in zip(values, extracted,
                                                                                            strict=True)],
              [max((hi * scale if hi is not None else v) - v, 0) for v, (_, _, hi, _) in zip(values, extracted,
                                                                                            strict=True)]]
    fig, ax = plt.subplots(figsize=(6, 0.5 + 0.45 * len(rows)))
    ax.barh(names, values, xerr=errors if has_ci else None, color="#4c72b0", capsize=3)
    ax.set_xlabel(column.label + (" (%)" if column.rate else "") + (" with 95% interval" if has_ci else ""))
    ax.invert_yaxis()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<img alt="{html.escape(column.label)}" src="data:image/png;base64,{data}">'


def render_report(records: Sequence[dict[str, Any]], title: str = "nycc-bench results") -> str:
    """The report as HTML from results records; every text from results is escaped."""
    parts = [f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title><style>{STYLE}</style>",
             f"<h1>{html.escape(title)}</h1>"]
    judges = {json.dumps(r.get("judge"), sort_keys=True) for r in records if r.get("judge")}
    if judges:
        parts.append("<p class='note'>Judges: " + "; ".join(f"<code>{html.escape(j)}</code>" for j in sorted(judges))
                     + ". Offline judges (reward:, embedding:) are a free pre-screen, not the papers' GPT-4 judges."
                     "</p>")
    if any(r["dataset"].get("sample") for r in records):
        parts.append("<p class='note'>Sample data: invented items, a handful per task; the figures show the "
                     "pipeline, not any system's sense of humor.</p>")
    rows = _rows(records)
    for family in FAMILIES:
        columns = [m for m in METRICS if m.family == family.key]
        tasks = [t for t in dict.fromkeys(c.task for c in columns) if any(r["task"] == t for r in rows)]
        if not tasks:
            continue
        parts.append(f"<h2>{html.escape(family.title)}</h2>")
        for task in tasks:
            trows = [r for r in rows if r["task"] == task]
            cols = [c for c in columns
                    if c.task == task and any(c.extract(r["entry"]["scores"])[0] is not None for r in trows)]
            head = "".join(f"<th>{html.escape(c.label)}</th>" for c in cols)
            body = "".join(
                f"<tr><td>{html.escape(r['system'])}</td>"
                + "".join(f"<td>{html.escape(c.format(r['entry']['scores']))}</td>" for c in cols)
                + f"<td>{r['entry']['n']}</td><td>{r['entry']['n_unparsed']}</td><td>{r['entry']['n_failed']}</td>"
                  "</tr>" for r in trows)
            config = trows[0]["entry"]["config"]
            deviations = "".join(f"<li>{html.escape(d)}</li>" for d in config.get("deviations", []))
            parts.append(f"<h3>{html.escape(task)} <span class='note'>(split "
                         f"{html.escape(config['dataset']['split'])}, prompt "
                         f"{html.escape(str(config.get('prompt_version')))})</span></h3>"
                         f"<table><tr><th>system</th>{head}<th>n</th><th>unparsed</th><th>failed</th></tr>{body}"
                         "</table>" + (f"<p class='note'>Differs from the paper:</p><ul class='note'>{deviations}"
                                       "</ul>" if deviations else ""))
            if cols:
                parts.append(_plot(cols[0], trows))
    parts.append("<p class='note'>Intervals: 95% seeded percentile bootstrap over items (accuracy), contests "
                 "(win rate) or captions (HumorBench).</p>")
    return "\n".join(parts)


def write_report(records: Sequence[dict[str, Any]], path: Path) -> Path:
    """Write the report and return its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(records), encoding="utf-8")
    return path
