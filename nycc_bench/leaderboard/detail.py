"""One run's detail: the model and where it came from, each task's scores with intervals, the command that
reproduces it, and its predictions files. All text from results is escaped before it becomes HTML."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..tasks.scores import metrics
from ..urls import hub_link
from ..wholeness import COMPLETE, status_of
from .store import run_id

e = html.escape


def run_choices(results: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(label, run id) for the detail dropdown, by model name."""
    out = []
    for r in results:
        model = r.get("model", {})
        tag = " (sample data)" if r.get("dataset", {}).get("sample") else ""
        commit = f" @ {str(model['commit'])[:8]}" if model.get("commit") and model.get("source") == "hub" else ""
        out.append((f"{model.get('name', '?')}{commit}{tag}", run_id(r)))
    return sorted(out, key=lambda c: c[0].lower())


def detail_html(result: dict[str, Any]) -> str:
    """The run's model facts, then one block per task: scores, status, and the reproduce command."""
    model = result.get("model", {})
    name = e(str(model.get("name", "?")))
    url = hub_link(model.get("url"))  # a link to the Hub, or none: a record's URL is not trusted
    title = f"<a href='{e(url)}' target='_blank' rel='noopener'>{name}</a>" if url else name
    facts = [("System", model.get("spec")), ("Source", model.get("source")), ("Revision", model.get("revision")),
             ("Commit", model.get("commit") or model.get("fingerprint")),
             ("Parameters", f"{model['parameters']:,}" if model.get("parameters") else None),
             ("License", model.get("license")), ("Endpoint", model.get("endpoint")),
             ("Served", ", ".join(f"{k}={v}" for k, v in (model.get("served") or {}).items()) or None),
             ("Settings", ", ".join(f"{k}={v}" for k, v in (result.get("extra") or {}).get("options", {}).items())
              or None),
             ("Dataset", result.get("dataset", {}).get("name")),
             ("Data fingerprint", result.get("dataset", {}).get("fingerprint")),
             ("nycc-bench", f"{result.get('nycc_bench_version')} ({result.get('git_commit') or 'release'})"),
             ("Finished", result.get("created_at"))]
    out = [f"<h3>{title}</h3><table class='nycc-facts'>"]
    out += [f"<tr><th>{k}</th><td>{e(str(v))}</td></tr>" for k, v in facts if v]
    out.append("</table>")
    if result.get("dataset", {}).get("sample"):
        out.append("<p class='nycc-warn'>Sample data: invented items, a handful per task.</p>")
    out += provenance_html(result)
    for task, entry in result.get("tasks", {}).items():
        out.append(f"<h4>{e(task)} <small>prompt {e(str(entry['config'].get('prompt_version')))}</small></h4>")
        scores = entry.get("scores")
        lines = [f"<li>{e(m.label)}: {m.format(scores)}</li>" for m in metrics()
                 if m.task == task and m.extract(scores)[0] is not None]
        if lines:
            out.append("<ul>" + "".join(lines) + "</ul>")
        status = status_of(entry)
        if status.status != COMPLETE:
            out.append(f"<p class='nycc-warn'>{e(status.status)}: {e(str(status.reason))}</p>")
        counts = ", ".join(f"{k} {entry[k]}" for k in ("n_unparsed", "n_failed", "n_error") if entry.get(k))
        if counts:
            out.append(f"<p class='nycc-warn'>{e(counts)}</p>")
        flagged = (entry.get("details") or {}).get("flagged") or {}
        if flagged.get("n_flagged"):
            reasons = ", ".join(f"{k} {v}" for k, v in (flagged.get("reasons") or {}).items())
            out.append(f"<p class='nycc-warn'>Not a caption / not an explanation (the offline judge's check; each "
                       f"loses or FAILs): {flagged['n_flagged']} of {flagged.get('n')} ({e(reasons)})</p>")
        for deviation in entry["config"].get("deviations", []):
            out.append(f"<p class='nycc-note'>Differs from the paper: {e(deviation)}</p>")
    for key, title in (("skipped", "not scored"), ("errors", "failed")):
        for task, why in (result.get(key) or {}).items():
            out.append(f"<p class='nycc-warn'>{e(task)} {title}: {e(str(why))}</p>")
    for command in result.get("commands", []):
        out.append(f"<pre class='nycc-command'><code>{e(command)}</code></pre>")
    return "\n".join(out)


def provenance_html(result: dict[str, Any]) -> list[str]:
    """A published run's provenance: the paper, and each file the authors published (repository, pinned commit,
    path, sha256); the figures they reported beside it, labelled reported."""
    extra = result.get("extra") or {}
    provenance = extra.get("provenance")
    if not provenance:
        return []
    out = [f"<p class='nycc-note'>{e(str(provenance.get('published_by')))}: {e(str(provenance.get('paper')))}; "
           "outputs scored by nycc-bench's metrics.</p><ul class='nycc-provenance'>"]
    out += [f"<li>{e(str(f.get('repo')))} @ <code>{e(str(f.get('commit'))[:7])}</code> <code>{e(str(f.get('path')))}"
            f"</code> sha256 <code>{e(str(f.get('sha256'))[:16])}…</code></li>" for f in provenance.get("files") or []]
    out.append("</ul>")
    reported = (extra.get("published") or {}).get("reported") or []
    if reported:
        out.append("<ul class='nycc-reported'>" + "".join(
            f"<li>reported: {e(str(f.get('figure')))} = {e(str(f.get('value')))} ({e(str(f.get('source')))})</li>"
            for f in reported) + "</ul>")
    return out


def prediction_files(result: dict[str, Any], resolve: Callable[[str], Path]) -> list[str]:
    """The run's predictions files that exist, as local paths for a download component."""
    files = [resolve(p) for entry in result.get("tasks", {}).values() for p in entry.get("predictions") or []]
    return [str(f) for f in files if f.is_file()]
