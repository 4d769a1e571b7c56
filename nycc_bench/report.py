"""A self-contained HTML report of results records: a summary table first, then per task a table, what differs
from the paper, and a plot (percentages on one shared 0-100 axis)."""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .secrets import scrub
from .standings import (
    OFFLINE_JUDGES,
    Filters,
    build_frame,
    digits,
    failed_task,
    record_key,
    score_text,
    tab_table,
    task_judges,
)
from .tasks.path import IncludePath
from .tasks.registry import with_include_path
from .tasks.scores import Metric, family_list, metrics
from .wholeness import COMPLETE, status_of

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
th, td { border: 1px solid #ccc; padding: 0.3rem 0.6rem; text-align: left; }
th { background: #f3f3f3; }
table.summary { font-size: 0.85rem; }
.note { color: #666; font-size: 0.9rem; }
img { max-width: 100%; }
"""


def _rows(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (system, task) of the records: the system's name, the task, its entry."""
    return [{"system": r["model"]["name"], "task": t, "entry": e, "sample": r["dataset"].get("sample", False)}
            for r in records for t, e in r["tasks"].items()]


def status_prefix(entry: dict[str, Any]) -> str:
    """`incomplete (why): ` before the scores of a task that is not whole, `no judge (the flag to add): ` before
    one whose judged scores were not computed; empty for a complete one (`wholeness.status_of`)."""
    status = status_of(entry)
    return "" if status.status == COMPLETE else f"{status.status} ({status.reason}): "


@with_include_path
def score_lines(record: dict[str, Any], *, include_path: IncludePath = None) -> list[str]:
    """One line per task of a record: its scores with intervals and counts, as the leaderboard shows them;
    `include_path`: the folders of its outside tasks (as given to `evaluate`), whose scores are then known."""
    lines = []
    for task, entry in record["tasks"].items():
        shown = [f"{m.label} {m.format(entry['scores'])}" for m in metrics()
                 if m.task == task and m.extract(entry["scores"])[0] is not None]
        counts = "".join(f", {k.removeprefix('n_')} {entry[k]}" for k in ("n_unparsed", "n_failed", "n_error")
                         if entry[k])
        lines.append(f"{record['model']['name']:<24}{task:<26}{status_prefix(entry)}{'; '.join(shown) or '—'}{counts}")
    lines += [f"{record['model']['name']:<24}{task:<26}not scored: {why}" for task, why in
              (record.get("skipped") or {}).items()]
    lines += [f"{record['model']['name']:<24}{task:<26}FAILED: {why}" for task, why in
              (record.get("errors") or {}).items()]
    return lines


def cell(metric: Metric, entry: dict[str, Any]) -> str:
    """A task table's cell: the leaderboard's fixed precision with interval and n, or why there is no number."""
    if failed_task(entry):
        return "incomplete"
    value, low, high, n = metric.extract(entry.get("scores"))
    if value is None:
        return "no judge" if metric.judged else "n/a"
    scale = 100 if metric.rate else 1
    return score_text(value * scale, None if low is None else low * scale, None if high is None else high * scale,
                      n, True, places=digits(metric))


def _plot(column: Metric, rows: Sequence[dict[str, Any]]) -> str:
    """A horizontal bar per system, with its interval where it has one, as an inline PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scale = 100 if column.rate else 1
    names = [r["system"] for r in rows]
    places = digits(column)
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
    if column.rate:
        ax.set_xlim(0, 100)  # every percentage plot shares this axis
    elif max(values) == min(values):
        ax.set_xlim(min(0.0, values[0]), max(values[0] * 1.2, 1.0))
    if len(values) > 1 and max(values) == min(values):
        ax.set_title(f"all {len(values)} systems score {values[0]:.{places}f}", fontsize=10, loc="left")
    ax.invert_yaxis()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<img alt="{html.escape(column.label)}" src="data:image/png;base64,{data}">'


def summary_table(records: Sequence[dict[str, Any]]) -> str:
    """The report's opening table: one row per system, the leaderboard overview's columns, rank and rule."""
    table = tab_table(build_frame(list(records)), None, Filters())
    if table.empty:
        return "<p class='note'>No task was scored.</p>"
    names = {record_key(r, i): r["model"].get("name") or r["model"].get("spec") or "?" for i, r in enumerate(records)}
    texts = table.texts.copy()
    texts["Model"] = [names.get(rid, "?") for rid in table.run_ids]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in texts.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
                   for row in texts.itertuples(index=False))
    ranked = ", ".join(table.ranked) or "none (no column is shared by every system)"
    return (f"<h2>Summary</h2><table class='summary'><tr>{head}</tr>{body}</table><p class='note'>Ranked on the "
            f"columns every system has: {html.escape(ranked)}. Empty cells say why (not run, n/a, no judge, "
            "incomplete).</p>")


def judges_table(records: Sequence[dict[str, Any]]) -> str:
    """Which judge scored which task of which system, as a small table (never a raw dict)."""
    rows = [(r["model"].get("name") or "?", task, label) for r in records
            for task, label in task_judges(r).items() if task in r.get("tasks", {})]
    if not rows:
        return ""
    body = "".join(f"<tr><td>{html.escape(a)}</td><td>{html.escape(b)}</td><td>{html.escape(c)}</td></tr>"
                   for a, b, c in rows)
    offline = any(label in OFFLINE_JUDGES.values() for _, _, label in rows)
    note = (" Offline judges are a free pre-screen trained on the sample, not the papers' GPT-4 judges."
            if offline else "")
    return (f"<h2>Judges</h2><table><tr><th>system</th><th>task</th><th>judge</th></tr>{body}</table>"
            f"<p class='note'>{note.strip()}</p>")


def recorded_include_path(records: Sequence[dict[str, Any]]) -> list[Path]:
    """The `--include-path` folders the records' own recorded commands name, those that exist here: a report shows
    an outside task's scores without its folder being named again."""
    import shlex

    found = []
    for record in records:
        for command in record.get("commands") or []:
            words = shlex.split(command)
            found += [Path(words[k + 1]) for k, w in enumerate(words[:-1]) if w == "--include-path"]
    return [f for f in dict.fromkeys(found) if f.is_dir()]


def render_report(records: Sequence[dict[str, Any]], title: str = "nycc-bench results", *,
                  include_path: IncludePath = None) -> str:
    """The report as HTML from results records: a summary table first; every text from results is escaped;
    `include_path`: the folders of their outside tasks (as given to `evaluate`; default: those their recorded
    commands name)."""
    if include_path is None:
        include_path = recorded_include_path(records) or None
    return _render_report(records, title, include_path=include_path)


@with_include_path
def _render_report(records: Sequence[dict[str, Any]], title: str, *, include_path: IncludePath = None) -> str:
    """`render_report` inside the include path (see there)."""
    parts = [f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title><style>{STYLE}</style>",
             f"<h1>{html.escape(title)}</h1>", summary_table(records), judges_table(records)]
    if any(r["dataset"].get("sample") for r in records):
        parts.append("<p class='note'>Sample data: invented items, a handful per task; the figures show the "
                     "pipeline, not any system's sense of humor.</p>")
    rows = _rows(records)
    for family in family_list():
        columns = [m for m in metrics() if m.family == family.key]
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
                + "".join(f"<td>{html.escape(cell(c, r['entry']))}</td>" for c in cols)
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
                 "(win rate) or captions (HumorBench); where every unit is all right (or all wrong), the exact "
                 "Clopper-Pearson interval over units instead of a point.</p>")
    return "\n".join(parts)


def write_report(records: Sequence[dict[str, Any]], path: Path, *, include_path: IncludePath = None) -> Path:
    """Write the report and return its path (`include_path` as for `render_report`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(scrub(render_report(records, include_path=include_path)), encoding="utf-8")
    return path
