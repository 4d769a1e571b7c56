"""The viewer's one page: a runs × scores table (each value with its interval and count), then every instance
(its contest named; 100 a page) with filters, search and two runs side by side, then each run's detail (the
leaderboard's run detail, with status). Text from the runs reaches the page only escaped: the
score blocks through `html.escape` (the leaderboard's `detail_html`), the items as JSON inside a script element
(`<`, `>` and `&` as \\u escapes) that the script writes with `textContent` only."""

from __future__ import annotations

import html
import json
from typing import Any

from ..leaderboard.detail import detail_html
from .runs import RunView

e = html.escape

CSS = """
body {font-family: system-ui, sans-serif; margin: 0 16px 40px; color: #222;}
h1 {font-size: 1.4em;} h2 {font-size: 1.15em; margin-top: 1.4em;}
.runs {display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 16px;}
.run {border: 1px solid #ddd; border-radius: 8px; padding: 8px 14px; min-width: 0; overflow-wrap: anywhere;}
.nycc-facts td, .nycc-facts th, table.items td, table.items th {padding: 3px 8px; vertical-align: top;
  text-align: left; border-bottom: 1px solid #ddd;}
.nycc-warn {color: #8a5a00;} .nycc-note {color: #6b4e00; background: #fff8e1; padding: 2px 6px;}
.nycc-command {white-space: pre-wrap; font-size: 0.85em; background: #f6f6f6; padding: 6px;}
.status-complete {color: #1c5e2f;} .status-incomplete, .problem {color: #8a1c1c;}
.controls {display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 8px 0;}
.table-wrap {overflow-x: auto; max-height: 60vh; overflow-y: auto; border: 1px solid #ddd;}
table.items {border-collapse: collapse; width: 100%;} table.items tr {cursor: pointer;}
table.items tr.selected {background: #e8f0fe;} td.cell {max-width: 28em; overflow-wrap: anywhere;}
.ok {color: #1c5e2f;} .bad {color: #8a1c1c;} .na {color: #777;}
.sides {display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px;}
.side {border: 1px solid #ddd; border-radius: 8px; padding: 8px 12px; min-width: 0;}
.message, .reply, .reasoning {white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6;
  padding: 6px; margin: 4px 0;}
.role {font-size: 0.8em; color: #555; text-transform: uppercase;}
table.board {border-collapse: collapse; font-size: 0.92em;} table.board th, table.board td {padding: 4px 10px;
  border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; white-space: nowrap;}
table.board th.run {white-space: normal; min-width: 8em; max-width: 16em;} .ci {color: #555; font-size: 0.85em;}
.pager {display: flex; gap: 8px; align-items: center; margin: 6px 0;}
th, label {overflow-wrap: normal; word-break: keep-all; hyphens: none;}
@media (max-width: 600px) {body {margin: 0 8px 24px;} .runs, .sides {grid-template-columns: 1fr;}
  .controls label {flex: 1 1 100%;} .controls select, .controls input {max-width: 100%;}
  .table-wrap {max-height: none;} td.cell {max-width: 14em;}}
"""

SCRIPT = r"""
const DATA = JSON.parse(document.getElementById('data').textContent);
const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => { const n = document.createElement(tag); if (text !== undefined && text !== null)
  n.textContent = String(text); if (cls) n.className = cls; return n; };
const tasks = [...new Set(DATA.runs.flatMap(r => Object.keys(r.items)))].sort();
const fill = (select, values, labels) => { select.replaceChildren(...values.map((v, i) => {
  const o = el('option', labels ? labels[i] : v); o.value = v; return o; })); };
fill($('task'), tasks);
const opening = tasks.find(t => (DATA.runs[0].items[t] || []).length);  // a task the first run has items of
if (opening) $('task').value = opening;
const runIdx = DATA.runs.map((_, i) => String(i)), runLabels = DATA.runs.map(r => r.label);
fill($('run-a'), runIdx, runLabels);
fill($('run-b'), ['', ...runIdx], ['(none)', ...runLabels]);
if (DATA.runs.length > 1) { $('run-b').value = '1'; } else { $('compare').hidden = true; }
let selected = null;
const runOf = (v) => v === '' ? null : DATA.runs[Number(v)];
const itemsOf = (run, task) => run ? (run.items[task] || []) : [];
const PAGE = 100;
let page = 0;
const mark = (c) => c === true ? ['correct', 'ok'] : c === false ? ['wrong', 'bad'] : ['—', 'na'];
function promptText(run, item) { return item.prompt.map(r => (run.messages[r] || {}).content || '').join('\n'); }
function haystack(run, item) { return [item.id, item.reply, item.parsed, item.gold, item.error, promptText(run, item),
  ...item.verdicts.map(v => (v.verdict || '') + ' ' + (v.reasoning || ''))].join('\n').toLowerCase(); }
function keep(item, filter) {
  if (!item) return false;
  if (filter === 'wrong') return item.correct === false;
  if (filter === 'unparsed' || filter === 'failed') return item.status === filter;
  return true;
}
function rows() {
  const task = $('task').value, a = runOf($('run-a').value), b = runOf($('run-b').value);
  const filter = $('filter').value, query = $('search').value.trim().toLowerCase();
  const bByKey = new Map(itemsOf(b, task).map(i => [i.key, i]));
  const out = [];
  for (const item of itemsOf(a, task)) {
    const other = b ? bByKey.get(item.key) : undefined;
    if (filter === 'disagree') {
      if (!other || (other.parsed === item.parsed && other.correct === item.correct)) continue;
    } else if (filter !== 'all' && !keep(item, filter) && !keep(other, filter)) continue;
    if (query && !haystack(a, item).includes(query) && !(other && haystack(b, other).includes(query))) continue;
    out.push([item, other]);
  }
  return out;
}
function render() {
  const b = runOf($('run-b').value), found = rows();
  const pages = Math.max(1, Math.ceil(found.length / PAGE));
  page = Math.min(page, pages - 1);
  const shown = found.slice(page * PAGE, (page + 1) * PAGE);
  const head = ['id', 'contest', 'status', 'parsed', 'gold', 'correct'];
  if (b) head.push('B status', 'B parsed', 'B correct');
  $('items-head').replaceChildren(...head.map(h => el('th', h)));
  $('items-body').replaceChildren(...shown.map(([item, other]) => {
    const tr = el('tr'); tr.dataset.key = item.key;
    const [word, cls] = mark(item.correct);
    tr.append(el('td', item.fold ? item.id + ' (fold ' + item.fold + ')' : item.id, 'cell'),
              el('td', item.contest ?? '—'), el('td', item.status),
              el('td', item.parsed, 'cell'), el('td', item.gold, 'cell'), el('td', word, cls));
    if (b) { const [w2, c2] = mark(other ? other.correct : null);
      tr.append(el('td', other ? other.status : 'absent'), el('td', other ? other.parsed : '', 'cell'),
                el('td', w2, c2)); }
    if (item.key === selected) tr.classList.add('selected');
    tr.addEventListener('click', () => { selected = item.key; render(); });
    return tr; }));
  const total = itemsOf(runOf($('run-a').value), $('task').value).length;
  $('count').textContent = found.length + ' of ' + total + ' items';
  $('page').textContent = 'page ' + (page + 1) + ' of ' + pages + (found.length ? ' (' + (page * PAGE + 1) + '–' +
    (page * PAGE + shown.length) + ')' : '');
  $('prev').disabled = page === 0; $('next').disabled = page >= pages - 1;
  detail(found.find(([i]) => i.key === selected));
}
function side(run, item) {
  const box = el('div', null, 'side');
  box.append(el('h3', run.label));
  if (!item) { box.append(el('p', 'This run has no answer for this instance.', 'na')); return box; }
  const [word, cls] = mark(item.correct);
  const facts = el('table', null, 'nycc-facts');
  for (const [k, v, c] of [['status', item.status + (item.source ? ' (answer from ' + item.source + ')' : '')],
      ['parsed', item.parsed ?? '(none)'], ['gold', item.gold ?? '(none kept)'], ['correct', word, cls],
      ['error', item.error]]) {
    if (v === undefined || v === null) continue;
    const tr = el('tr'); tr.append(el('th', k), el('td', v, c)); facts.append(tr);
  }
  box.append(facts, el('h4', 'Prompt'));
  if (!item.prompt.length) box.append(el('p', 'Not kept (a run made before prompts were logged).', 'na'));
  for (const ref of item.prompt) { const m = run.messages[ref] || {};
    box.append(el('div', (m.role || '?') + (m.image ? ' (with the cartoon)' : ''), 'role'),
               el('div', m.content, 'message')); }
  box.append(el('h4', 'Reply'), el('div', item.reply ?? '(no reply)', 'reply'));
  if (item.reply_chars) { const a = el('a', 'the whole reply (' + item.reply_chars + ' characters)');
    a.href = '/text?' + new URLSearchParams({run: String(DATA.runs.indexOf(run)), task: $('task').value,
                                             key: item.key});
    box.append(el('p', 'Cut at ' + DATA.cut + ' characters: ', 'na')); box.lastChild.append(a); }
  if (item.verdicts.length) {
    box.append(el('h4', 'Judge' + (item.judge ? ': ' + item.judge : '')));
    for (const v of item.verdicts) {
      const what = v.element ? 'element: ' + v.element
        : v.against ? 'against ' + v.against + ' (model as ' + v.model_position + ')' : '';
      const delta = v.delta_logprob != null ? 'Δ log p(A) − log p(B) ' + Number(v.delta_logprob).toFixed(2) : '';
      const said = v.verdict != null ? v.verdict + (delta ? ' (' + delta + ')' : '') : delta || 'no verdict';
      box.append(el('div', (what ? what + ' → ' : '') + said, 'verdict'));
      if (v.reasoning) box.append(el('div', v.reasoning, 'reasoning'));
    }
  }
  return box;
}
function detail(pair) {
  const box = $('detail');
  if (!pair) { box.replaceChildren(el('p', 'Click an instance to see its prompt, reply and verdict.', 'na')); return; }
  const a = runOf($('run-a').value), b = runOf($('run-b').value);
  box.replaceChildren(el('h2', 'Instance ' + pair[0].id + (pair[0].contest != null ? ', contest ' +
    pair[0].contest : '')), Object.assign(el('div', null, 'sides'), {}));
  box.lastChild.append(side(a, pair[0]));
  if (b) box.lastChild.append(side(b, pair[1]));
}
for (const id of ['task', 'run-a', 'run-b', 'filter'])
  $(id).addEventListener('change', () => { selected = null; page = 0; render(); });
$('search').addEventListener('input', () => { page = 0; render(); });
$('prev').addEventListener('click', () => { page -= 1; render(); });
$('next').addEventListener('click', () => { page += 1; render(); });
render();
"""


def _json_in_html(value: Any) -> str:
    """JSON that can sit inside a <script> element: no `<`, `>` or `&` that could end it."""
    return (json.dumps(value, ensure_ascii=False).replace("&", "\\u0026").replace("<", "\\u003c")
            .replace(">", "\\u003e"))


REPLY_CUT = 4_000
"""A served page shows at most this many characters of a reply, with a link to the whole text (`/text`): a run
of long replies is not one page of its whole size."""


def _cut(items: dict[str, list[dict[str, Any]]], cut: int | None) -> dict[str, list[dict[str, Any]]]:
    """The items with each reply over `cut` characters cut to it (`reply_chars`: its whole length)."""
    if cut is None:
        return items
    return {task: [{**i, "reply": i["reply"][:cut], "reply_chars": len(i["reply"])}
                   if isinstance(i.get("reply"), str) and len(i["reply"]) > cut else i for i in rows]
            for task, rows in items.items()}


def scores_table(views: list[RunView]) -> str:
    """Runs × scores: one row per run, one column per headline score any run has, each cell the value with its
    interval and count (the leaderboard's format); a blank cell says the run did not score it."""
    from ..tasks.scores import metrics

    records = [v.record or {} for v in views]
    shown = [m for m in metrics() if m.headline and any(
        m.extract((r.get("tasks", {}).get(m.task) or {}).get("scores"))[0] is not None for r in records)]
    head = "".join(f"<th>{e(m.task)}<br><small>{e(m.label)}</small></th>" for m in shown)
    rows = []
    for view, record in zip(views, records, strict=True):
        cells = []
        for m in shown:
            scores = (record.get("tasks", {}).get(m.task) or {}).get("scores")
            why = "not run" if view.record is not None else "no results yet"
            cells.append(f"<td>{m.format(scores)}</td>" if m.extract(scores)[0] is not None
                         else f"<td class='na'>{why}</td>")
        rows.append(f"<tr><th class='run'>{e(view.label)}</th>{''.join(cells)}</tr>")
    if not shown:
        return "<p class='na'>No run has a score yet.</p>"
    return (f"<div class='table-wrap board-wrap'><table class='board' id='board'><thead><tr><th>run</th>{head}</tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table></div>")


def _run_block(view: RunView) -> str:
    """A run's scores with intervals (the leaderboard's run detail) and each task's status."""
    out = [f"<div class='run'><p><b>{e(view.label)}</b><br><small>{e(str(view.folder))}</small></p>"]
    if view.record is None:
        out.append(f"<p class='problem'>{e(view.problem or 'no results')}; its items are shown below.</p>")
    else:
        rows = [f"<tr><th>{e(t)}</th><td class='status-{e(str(entry.get('status')))}'>{e(str(entry.get('status')))}"
                + (f": {e(str(entry['status_reason']))}" if entry.get("status_reason") else "") + "</td></tr>"
                for t, entry in view.record.get("tasks", {}).items()]
        out.append("<table class='nycc-facts task-status'>" + "".join(rows) + "</table>")
        out.append(detail_html(view.record))
    return "\n".join(out) + "</div>"


def view_page(views: list[RunView], nonce: str = "", cut: int | None = None) -> str:
    """The whole page for these runs (`nonce` marks the inline script and style the server's policy allows;
    `cut`: replies over it are cut, with a link to the whole text, as the server sends them)."""
    data = {"cut": cut, "runs": [{"label": v.label, "items": _cut(v.items, cut), "messages": v.messages}
                                 for v in views]}
    attr = f" nonce='{e(nonce)}'" if nonce else ""
    title = "nycc-bench view: " + ", ".join(v.label for v in views)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)}</title><style{attr}>{CSS}</style></head>
<body>
<h1>nycc-bench view</h1>
<h2>Scores</h2>
{scores_table(views)}
<h2>Instances</h2>
<div class="controls">
<label>Task <select id="task"></select></label>
<label>Run <select id="run-a"></select></label>
<label id="compare">beside <select id="run-b"></select></label>
<label>Show <select id="filter"><option value="all">all</option><option value="wrong">wrong</option>
<option value="unparsed">unparsed</option><option value="failed">failed</option>
<option value="disagree">where the two runs disagree</option></select></label>
<label>Search <input id="search" type="search" placeholder="id, prompt, reply, answer, verdict"></label>
<span id="count"></span>
</div>
<div class="pager"><button id="prev" type="button">previous</button><span id="page"></span>
<button id="next" type="button">next</button></div>
<div class="table-wrap"><table class="items"><thead><tr id="items-head"></tr></thead><tbody id="items-body"></tbody>
</table></div>
<div id="detail"></div>
<h2>Runs</h2>
<div class="runs" id="scores">{"".join(_run_block(v) for v in views)}</div>
<script type="application/json" id="data">{_json_in_html(data)}</script>
<script{attr}>{SCRIPT}</script>
</body></html>
"""
