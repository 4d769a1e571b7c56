"""The Gradio 6 app: leaderboard tabs (overview + one per family), run detail, Browse, Submit, Arena, About."""

from __future__ import annotations

import datetime as dt
import html
import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from ..standings import (
    SETTINGS,
    SIZES,
    TYPES,
    UNKNOWN_SIZE,
    Filters,
    build_frame,
    datatypes,
    filter_rows,
    tab_table,
)
from ..tasks import all_tasks
from ..tasks.scores import family_list, family_metrics, family_summary
from . import about
from .arena_tab import build_arena_tab
from .browse import ContestIndex, Predictions, contest_html, outputs_html, showcase
from .detail import detail_html, prediction_files, run_choices
from .exports import write_exports
from .judges_reports import JudgeReports, configured_judges
from .limits import MAX_CHARS, BodyCap, Busy, VisitorGate, capped, trust_proxies, visitor
from .plots import compare_plot, interval_plot
from .screens import SCREENS_CSS
from .settings import Settings
from .store import Job, Refused, Store, StoreUnavailable
from .store import run_id as store_run_id
from .submit import DTYPES, submit

log = logging.getLogger("nycc_bench.leaderboard")
e = html.escape
VIEWS: list[tuple[str | None, str, str]] = [(None, "overview", "Overview"),
                                            *((f.key, f.key, f.title) for f in family_list())]
CSS = """
.nycc-banner {padding: 10px 14px; border-radius: 8px; margin: 4px 0;}
.nycc-error {background: #fde8e8; color: #8a1c1c; border: 1px solid #f5b5b5;}
.nycc-note {background: #fff8e1; color: #6b4e00; border: 1px solid #f0d68a;}
.nycc-ok {background: #e8f6ec; color: #1c5e2f; border: 1px solid #a9dbb7;}
.nycc-warn {color: #8a5a00;}
.nycc-groups {display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 12px;}
.nycc-tag {background: #333; color: #fff; border-radius: 4px; padding: 0 5px; font-size: 0.8em;}
.nycc-outputs td, .nycc-outputs th, .nycc-facts td, .nycc-facts th {padding: 3px 8px; vertical-align: top;
  text-align: left; border-bottom: 1px solid #ddd;}
.nycc-command {white-space: pre-wrap; font-size: 0.85em;}
.nycc-choices {list-style: none; padding-left: 0.5em;}
""" + SCREENS_CSS  # the tables' widths: screens.py
QUEUE_COLUMNS = ["Job", "Model", "Tasks", "Status", "Details", "Submitted (UTC)", "User"]


def banner(kind: str, text: str) -> str:
    """A coloured banner; `text` is HTML the caller has escaped."""
    return f"<div class='nycc-banner nycc-{kind}'>{text}</div>"


def queue_table(jobs: list[Job]) -> pd.DataFrame:
    """The requests, newest first, with the reason of every failure."""
    rows = [[j.id, j.model + (f" @ {j.commit[:8]}" if j.source == "hub" and j.commit else ""), ", ".join(j.tasks),
             j.status, j.reason or j.progress or "",
             dt.datetime.fromtimestamp(j.submitted_at, dt.UTC).strftime("%Y-%m-%d %H:%M"), j.user] for j in jobs]
    return pd.DataFrame(rows, columns=QUEUE_COLUMNS)


class App:
    """The store, the dataset index and the cached results frame behind the UI's handlers."""

    def __init__(self, settings: Settings, store: Store | None, store_error: str | None = None,
                 hub_api: Any = None) -> None:
        self.settings, self.store, self.store_error, self.hub_api = settings, store, store_error, hub_api
        self.contests = ContestIndex(settings.dataset)
        self.predictions = Predictions()
        self._frame: tuple[tuple[int, ...], pd.DataFrame] | None = None
        self._page: tuple[gr.Blocks, list[gr.Component]] | None = None  # what `serve_tables` keeps current
        self.tables_version = 0  # counts the frames built: the page holds the first tables of one of them
        self._exports: tuple[tuple[int, ...], list[str]] | None = None
        # what pages link to (exports, predictions JSONL) is copied here; the store itself is never served
        self.public = Path(tempfile.mkdtemp(prefix="nycc-lb-public-"))
        self.gate = VisitorGate(settings.visitor_concurrency)  # bounded work at once per visitor
        self.judges = JudgeReports(settings.data_dir, settings.judges_source_dir())  # the About tab's reports

    def guarded(self, fn: Any) -> Any:
        """`fn` as an event handler that holds one of its visitor's slots while it runs (refused when none is
        free: the visitor is told to wait, the other visitors are not slowed)."""

        def run(request: gr.Request, *args: Any) -> Any:
            try:
                with self.gate.slot(visitor(request)):
                    return fn(*args)
            except Busy as err:
                raise gr.Error(str(err)) from None

        return run

    def results(self) -> tuple[list[dict[str, Any]], str | None]:
        """Every result and the store's problem, if any (then no result: never stale or sample rows instead)."""
        if self.store is None:
            return [], self.store_error
        try:
            return self.store.results(), self.store.health()
        except StoreUnavailable as err:
            return [], str(err)

    def reported(self, family: str | None) -> list[dict[str, str]]:
        """The authors' reported rows of a tab (`published.reported`), shown apart from the ranked runs; none on a
        board without published runs."""
        from ..published.reported import reported_rows

        return reported_rows(family, self.results()[0])

    def reported_note(self, family: str | None) -> str | None:
        """What a tab's reported rows leave out and why (`published.reported.reported_note`)."""
        from ..published.reported import reported_note

        return reported_note(family, self.results()[0])

    def frame(self, results: list[dict[str, Any]]) -> pd.DataFrame:
        key = tuple(id(r) for r in results)
        if self._frame is None or self._frame[0] != key:
            self._frame = (key, build_frame(results))
            self.tables_version += 1
            self._serve_first_tables(self._frame[1])
        return self._frame[1]

    def first_tables(self, frame: pd.DataFrame | None = None) -> list[tuple[dict[str, Any], list[str]]]:
        """Every view's table under the default filters (value, column types), as the page's initial values: the
        rows arrive with the page itself instead of after a load event (Gradio's start-up in the browser and its
        queue take seconds)."""
        frame = self.frame(self.results()[0]) if frame is None else frame
        return [_table_value(tab_table(frame, family, Filters())) for family, _, _ in VIEWS]

    def first_plots(self, frame: pd.DataFrame | None = None) -> list[Any]:
        """Every view's plot under the default filters and its first metric, served with the page like the tables
        (so the load event has no plots to draw while the visitor opens tabs)."""
        frame = self.frame(self.results()[0]) if frame is None else frame
        kept = filter_rows(frame, Filters())
        return [interval_plot(kept, family_metrics(family)[0]) for family, _, _ in VIEWS]

    def serve_tables(self, demo: gr.Blocks, tables: list[gr.Dataframe], plots: list[gr.Plot],
                     version: gr.Textbox) -> None:
        """Keep the page Gradio serves current: whenever the results change, its tables' and plots' initial
        values follow, with the version they are of (the page sends it back on load, so unchanged ones are not
        sent again)."""
        self._page = (demo, [*tables, *plots, version])

    def _serve_first_tables(self, frame: pd.DataFrame) -> None:
        """Write the current first tables and plots into the config of the page Gradio serves (once it is
        launched; the load event still refreshes them, so a page served a moment before a change is corrected)."""
        if self._page is None or not isinstance(config := getattr(self._page[0], "config", None), dict):
            return
        props = {c.get("id"): c.get("props") for c in config.get("components", []) if isinstance(c, dict)}
        components, version = self._page[1][:-1], self._page[1][-1]
        tables, plots = components[:len(VIEWS)], components[len(VIEWS):]
        values = [(value, {"datatype": types}) for value, types in self.first_tables(frame)]
        values += [(figure, {}) for figure in self.first_plots(frame)]
        for component, (value, extra) in zip([*tables, *plots], values, strict=True):
            if isinstance(target := props.get(component._id), dict):
                shown = component.postprocess(value)
                component.value = target["value"] = shown.model_dump() if hasattr(shown, "model_dump") else shown
                for key, setting in extra.items():  # a config Gradio rebuilds keeps them too
                    setattr(component, key, setting)
                    target[key] = setting
        if isinstance(target := props.get(version._id), dict):  # last: a page never holds a newer version's number
            version.value = target["value"] = str(self.tables_version)

    def exports(self, results: list[dict[str, Any]]) -> list[str] | None:
        """The whole table as CSV and JSON files in the store folder (rewritten when the results change)."""
        if not results:
            return None
        key = tuple(id(r) for r in results)
        if self._exports is None or self._exports[0] != key:
            self._exports = (key, write_exports(results, self.public / "exports"))
        return self._exports[1]

    def banner_html(self, error: str | None, results: list[dict[str, Any]]) -> str:
        parts = []
        if error:
            parts.append(banner("error", f"<b>The results store cannot be read:</b> {e(error)}. No results are "
                                         "shown until the operator fixes it."))
        if self.store is not None and (left_out := self.store.problems()):
            parts.append(banner("note", "<b>Left out</b> (the rest of the board is shown): "
                                        + "; ".join(e(p) for p in left_out[:10])
                                        + (f"; and {len(left_out) - 10} more" if len(left_out) > 10 else "")))
        if self.settings.sample_data:
            parts.append(banner("note", about.SAMPLE_DATASET_NOTE))
        elif any(r.get("dataset", {}).get("sample") for r in results):
            parts.append(banner("note", about.SAMPLE_NOTE))
        return "\n".join(parts)

    # -- leaderboard -----------------------------------------------------------------------------------------
    def refresh(self, search: str, types: list[str], sizes: list[str], settings: list[str], show_sample: bool,
                details: bool, *metric_labels: str, page_version: str | None = None) -> list[Any]:
        """Banner, then per view its table and plot, then the run dropdown, the downloads and compare choices.

        `page_version`: on page load, the version of the first tables the page was served; when the results have
        not changed since and the filters are the defaults, the tables (and the plots of the default metrics) are
        left as they are (not sent and drawn again)."""
        results, error = self.results()
        frame = self.frame(results)
        filters = Filters(search or "", tuple(types or ()), tuple(sizes or ()), tuple(settings or ()),
                          bool(show_sample), bool(details))
        current = page_version == str(self.tables_version) and filters == Filters()
        plots_current = current and all(label == family_metrics(family)[0].label
                                        for (family, _, _), label in zip(VIEWS, metric_labels, strict=True))
        out: list[Any] = [self.banner_html(error, results)]
        kept = filter_rows(frame, filters)
        ranked: tuple[str, ...] = ()
        for (family, _, _), label in zip(VIEWS, metric_labels, strict=True):
            table = tab_table(frame, family, filters)
            ranked = table.ranked if family is None else ranked
            value, types = _table_value(table)
            out.append(gr.skip() if current else gr.Dataframe(value=value, datatype=types))
            metric = next((m for m in family_metrics(family) if m.label == label), family_metrics(family)[0])
            out.append(gr.skip() if plots_current else interval_plot(kept, metric))
        choices = run_choices(results)
        out.append(gr.Dropdown(choices=choices))
        out.append(self.exports(results))
        out.append(gr.Dropdown(choices=choices))
        out.append(ranked_note(ranked, not kept.empty))
        out.append(about.about_markdown(results, judges=False))
        return out

    def judge_reports(self) -> list[dict[str, Any]]:
        """The judges reports kept in the data folder, the configured judges' first (the About tab shows them)."""
        return about.judge_reports(self.settings.data_dir, self.settings.judges.values())

    def start_judge_reports(self) -> None:
        """Make the configured judges' reports in the background, unless the operator said never (`0`)."""
        if self.settings.judges_reports != "0":
            self.judges.start(configured_judges(self.settings.judges, self.results()[0]))

    def judges_section(self, opened: bool = False) -> tuple[str, Any]:
        """The About tab's judges section and its timer (ticking while reports are made); `opened`: the tab was
        just opened, which starts them in `auto` mode."""
        if opened and self.settings.judges_reports == "auto" and not self.judges.started:
            self.start_judge_reports()
        return self.judges.markdown(), gr.Timer(active=self.judges.busy())

    def plot(self, view: int, search: str, types: list[str], sizes: list[str], show_sample: bool,
             label: str) -> Any:
        """One view's plot, for its metric picker (drawing all four costs ~0.2 s each at 200 runs)."""
        family = VIEWS[view][0]
        frame = self.frame(self.results()[0])
        kept = filter_rows(frame, Filters(search or "", tuple(types or ()), tuple(sizes or ()),
                                          show_sample=bool(show_sample)))
        metric = next((m for m in family_metrics(family) if m.label == label), family_metrics(family)[0])
        return interval_plot(kept, metric)

    def compare(self, run_ids: list[str] | None, view: str) -> Any:
        """The chosen runs side by side on one view's percentage metrics."""
        family = next((f for f, _, title in VIEWS if title == view), None)
        frame = self.frame(self.results()[0])
        return compare_plot(frame, list(run_ids or [])[:6], family_metrics(family))

    def compare_first(self) -> tuple[Any, Any]:
        """On load: the comparison of the (up to) three ranked first on the overview, so it is never blank."""
        results = self.results()[0]
        ids = list(tab_table(self.frame(results), None, Filters()).run_ids[:3])
        return gr.Dropdown(choices=run_choices(results), value=ids), self.compare(ids, VIEWS[0][2])

    def detail(self, run_id: str | None) -> tuple[str, list[str] | None]:
        results, _ = self.results()
        result = next((r for r in results if store_run_id(r) == run_id), None)
        if result is None or self.store is None:
            return "<p><i>Choose a run: its scores, the command that reproduces it, its predictions.</i></p>", None
        return detail_html(result), self.published(prediction_files(result, self.store.resolve)) or None

    def published(self, files: list[str]) -> list[str]:
        """Copies of a run's predictions JSONL files in the public folder (the only files a page links to)."""
        out = []
        for name in files:
            path = Path(name)
            if path.suffix != ".jsonl" or self.store is None:
                continue
            target = self.public / path.relative_to(self.store.root.resolve())
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            out.append(str(target))
        return out

    # -- browse ------------------------------------------------------------------------------------------------
    def contest_choices(self) -> tuple[list[tuple[str, int]], str | None]:
        try:
            return self.contests.choices(), None
        except Exception as err:  # the dataset cannot be loaded: the tab says so instead of breaking the app
            log.exception("browse index")
            return [], f"{type(err).__name__}: {err}"

    def first_contest(self) -> int | None:
        """The contest Browse opens on (one with a cartoon, the caption groups and some run's answers)."""
        if self.store is None:
            return None
        try:
            return showcase(self.contests, self.results()[0], self.store.resolve, self.predictions)
        except Exception:  # an unreadable dataset is already reported by contest_choices
            log.exception("browse showcase")
            return None

    def contest_view(self, number: int | None) -> tuple[Any, str, str]:
        """(cartoon image or None, the contest's text, what the runs answered) as HTML."""
        if number is None:
            return None, "<p><i>Choose a contest.</i></p>", ""
        contest = self.contests.contest(int(number))
        results, _ = self.results()
        outputs = outputs_html(contest, results, self.store.resolve, self.predictions) if self.store else ""
        return contest.image, contest_html(contest), outputs

    def show_contest(self, number: int | None) -> tuple[Any, str, str]:
        image, text, outputs = self.contest_view(number)
        return gr.Image(value=image, visible=image is not None), text, outputs

    # -- submit ------------------------------------------------------------------------------------------------
    def queue(self) -> pd.DataFrame:
        return queue_table(self.store.jobs(limit=200)) if self.store else queue_table([])

    def submit(self, model: str, revision: str, tasks: list[str], dtype: str,
               profile: gr.OAuthProfile | None, request: gr.Request | None = None) -> tuple[str, pd.DataFrame]:
        """Queue a submission, or say why not (escaped: the reason may quote what was typed)."""
        if self.store is None:
            return banner("error", "The store is unavailable; submissions are closed."), self.queue()
        try:
            with self.gate.slot(visitor(request)):
                job = submit(self.store, self.settings, capped(model, "model"), capped(revision, "revision"), tasks,
                             getattr(profile, "username", None), dtype, api=self.hub_api,
                             visitor=visitor(request) if request is not None else None)
        except Busy as err:
            return banner("error", f"<b>Not queued.</b> {e(str(err))}"), self.queue()
        except Refused as err:
            return banner("error", f"<b>Not queued.</b> {e(str(err))}"), self.queue()
        return banner("ok", f"Queued <b>{e(job.model)}</b> as job <code>{e(job.id)}</code> ({job.status}): "
                            f"{e(', '.join(job.tasks))}."), self.queue()


def _table_value(table: Any) -> tuple[dict[str, Any], list[str]]:
    """A view's table as the Dataframe value (numbers for sorting, texts shown) and its columns' types."""
    return table.component_value(), datatypes(list(table.values.columns))


def default_tasks() -> list[str]:
    """The Submit form's preselected tasks: those with a headline score that any text model can run and no judge
    is needed for (from description, judge not required), read from the task files."""
    return [name for name, task in all_tasks().items()
            if not task.from_pixels and not task.needs_judge and any(s.headline for s in task.scores)]


def ranked_note(ranked: tuple[str, ...], any_rows: bool) -> str:
    """The line under the overview naming its ranked columns (or saying none is shared)."""
    if not any_rows:
        return ""
    if not ranked:
        return "*Ranked columns*: none — no headline column has a score for every run shown, so nothing is ranked."
    return f"*Ranked columns* (every run shown has a score in them): {', '.join(ranked)}."


def _tab_views(app: App) -> tuple[list[Any], list[Any], list[Any], Any]:
    """The per-view tables, plots and metric pickers, inside the leaderboard's sub-tabs; the overview's note."""
    tables, plots, pickers, note = [], [], [], None
    for (family, key, title), first, plot in zip(VIEWS, app.first_tables(), app.first_plots(), strict=True):
        with gr.Tab(title, id=f"view-{key}", elem_id=f"view-{key}"):
            summary = next((family_summary(f) for f in family_list() if f.key == family), about.OVERVIEW_SUMMARY)
            tables.append(gr.Dataframe(value=first[0], datatype=first[1], interactive=False,
                                       pinned_columns=2, max_height=520,
                                       wrap=True, elem_id=f"table-{key}", label=f"{title} results",
                                       show_label=False, buttons=["fullscreen", "copy"]))
            gr.Markdown(f"{summary} {about.rank_rule(family)}", elem_id=f"summary-{key}")  # the table comes first
            if reported := app.reported(family):
                gr.Markdown("**Reported by the authors** — figures as printed, where no per-item outputs are "
                            "published: not scored by nycc-bench, never ranked with the runs above, no interval.",
                            elem_id=f"reported-note-{key}")
                gr.Dataframe(value=pd.DataFrame(reported), interactive=False, wrap=True, elem_id=f"reported-{key}",
                             label=f"{title}: reported", show_label=False)
            if left_out := app.reported_note(family):
                gr.Markdown(left_out, elem_id=f"reported-left-out-{key}")
            if family is None:
                note = gr.Markdown(elem_id="ranked-overview")
            labels = [m.label for m in family_metrics(family)]
            pickers.append(gr.Dropdown(labels, value=labels[0], label="Plot", elem_id=f"plot-metric-{key}"))
            plots.append(gr.Plot(plot, label="Score by run", format="png", elem_id=f"plot-{key}"))
    return tables, plots, pickers, note


def build(app: App) -> gr.Blocks:
    """Lay out the app and wire its events."""
    with gr.Blocks(title=about.TITLE, analytics_enabled=False) as demo:
        gr.Markdown(f"# {about.TITLE}\n\n{about.INTRODUCTION}", elem_id="intro")
        banner_box = gr.HTML(elem_id="banner")
        if app.settings.oauth:
            gr.LoginButton()
        with gr.Tabs(overflow_behavior="wrap"):  # a phone shows every tab, on two lines
            with gr.Tab("Leaderboard", id="leaderboard", elem_id="tab-leaderboard"):
                with gr.Row(elem_id="search-row"):
                    search = gr.Textbox(label="Search models", placeholder="name; another name", scale=3,
                                        elem_id="search", max_length=MAX_CHARS["search"])
                    show_sample = gr.Checkbox(value=True, label="Show sample-data rows", scale=1)
                    details = gr.Checkbox(value=False, label="Details: interval and n in every cell", scale=1,
                                          elem_id="details")
                    refresh_btn = gr.Button("Refresh", scale=0, elem_id="refresh")
                with gr.Accordion("Filters: type, size, setting", open=False, elem_id="filters"), gr.Row():
                    types = gr.CheckboxGroup(list(TYPES.values()), value=list(TYPES.values()), label="Type")
                    sizes = gr.CheckboxGroup([s[0] for s in SIZES] + [UNKNOWN_SIZE],
                                             value=[s[0] for s in SIZES] + [UNKNOWN_SIZE], label="Size (parameters)")
                    settings = gr.CheckboxGroup(list(SETTINGS), value=list(SETTINGS), label="Setting")
                with gr.Tabs(overflow_behavior="wrap"):
                    tables, plots, pickers, note = _tab_views(app)
                tables_version = gr.Textbox(str(app.tables_version), visible=False, elem_id="tables-version")
                app.serve_tables(demo, tables, plots, tables_version)
                gr.Markdown(about.CELLS_HELP)
                downloads = gr.File(label="Download the whole table (CSV, JSON: every run and metric, with "
                                          "intervals and n)", file_count="multiple", interactive=False, height=150,
                                    elem_id="downloads")
                gr.Markdown("### Compare runs")
                with gr.Row():
                    compared = gr.Dropdown(label="Runs (up to 6)", choices=[], multiselect=True, max_choices=6,
                                           scale=3, elem_id="compare-runs")
                    compare_view = gr.Dropdown([title for _, _, title in VIEWS], value=VIEWS[0][2], label="Metrics of",
                                               scale=1, elem_id="compare-view")
                compare_plot_box = gr.Plot(label="Runs compared", format="png", elem_id="compare-plot")
                gr.Markdown("### Run detail")
                run = gr.Dropdown(label="Run", choices=[], elem_id="run-picker")
                detail = gr.HTML(app.detail(None)[0], elem_id="run-detail")
                files = gr.File(label="Predictions (JSONL, one record per item)", file_count="multiple",
                                interactive=False, height=140, elem_id="run-files")
            with gr.Tab("Browse", id="browse", elem_id="tab-browse"):
                choices, browse_error = app.contest_choices()
                if browse_error:
                    gr.HTML(banner("error", f"The dataset cannot be read: {e(browse_error)}"))
                first = app.first_contest() if not browse_error else None
                shown = app.contest_view(first)
                contest = gr.Dropdown(choices=choices, value=first, label="Contest", elem_id="contest-picker")
                with gr.Row():
                    image = gr.Image(value=shown[0], label="Cartoon", type="pil", visible=shown[0] is not None,
                                     interactive=False, height=320, scale=1,
                                     elem_id="contest-image")
                    text = gr.HTML(shown[1], elem_id="contest-text")
                said = gr.HTML(shown[2], elem_id="contest-outputs")
            with gr.Tab("Submit", id="submit", elem_id="tab-submit"):
                gr.Markdown(about.SUBMIT_HELP)
                with gr.Row():
                    model = gr.Textbox(label="Model", placeholder="org/model-name", max_lines=1, elem_id="model-id",
                                       scale=3, max_length=MAX_CHARS["model"])
                    revision = gr.Textbox(label="Revision (optional)", placeholder="main", max_lines=1,
                                          elem_id="model-revision", scale=1, max_length=MAX_CHARS["revision"])
                    dtype = gr.Dropdown(list(DTYPES), value="default", label="Precision", scale=1)
                tasks = gr.CheckboxGroup(list(all_tasks()), value=default_tasks(), label="Tasks", elem_id="tasks")
                send = gr.Button("Submit", variant="primary", elem_id="submit-button")
                message = gr.HTML(elem_id="submit-message")
                with gr.Row():
                    gr.Markdown("### Requests")
                    queue_btn = gr.Button("Refresh", scale=0, elem_id="queue-refresh")
                queue = gr.Dataframe(value=app.queue(), interactive=False, wrap=True, elem_id="queue",
                                     show_label=False)
            arena = build_arena_tab(app, demo)
            with gr.Tab("About", id="about") as about_tab:
                about_box = gr.Markdown(about.about_markdown(app.results()[0], judges=False), elem_id="about")
                judges_box = gr.Markdown(app.judges.markdown(), elem_id="about-judges-reports")
                judges_timer = gr.Timer(2.0, active=app.judges.busy())  # ticks while reports are being made
                about_tab.select(lambda: app.judges_section(opened=True), None, [judges_box, judges_timer],
                                 show_progress="hidden")
                judges_timer.tick(app.judges_section, None, [judges_box, judges_timer], show_progress="hidden")
                demo.load(app.judges_section, None, [judges_box, judges_timer], show_progress="hidden")
                demo.load(arena.judges_markdown, None, gr.Markdown(elem_id="about-judges"))

        filters = [search, show_sample, details, types, sizes, settings]
        view_outputs = [banner_box, *[x for pair in zip(tables, plots, strict=True) for x in pair], run, downloads,
                        compared, note, about_box]

        def refresh(search: str, show_sample: bool, details: bool, types: list[str], sizes: list[str],
                    settings: list[str], *labels: str, page_version: str | None = None) -> list[Any]:
            return app.refresh(search, types, sizes, settings, show_sample, details, *labels,
                               page_version=page_version)

        refresh_inputs = [*filters, *pickers]
        guarded_refresh = app.guarded(refresh)
        guarded_refresh.__name__ = "refresh"  # the API name stays /refresh
        for trigger in [search.submit, refresh_btn.click, show_sample.change, details.change, types.change,
                        sizes.change, settings.change]:
            trigger(guarded_refresh, refresh_inputs, view_outputs, show_progress="hidden")
        for i, (picker, plot) in enumerate(zip(pickers, plots, strict=True)):
            picker.change(app.guarded(lambda *a, i=i: app.plot(i, *a)), [search, types, sizes, show_sample, picker],
                          plot, show_progress="hidden")

        def load_refresh(version: str, *inputs: Any) -> list[Any]:
            return refresh(*inputs, page_version=version)

        # the tables came with the page: their refresh draws no progress overlay over rows already shown
        demo.load(named(app.guarded(load_refresh), "load_refresh"), [tables_version, *refresh_inputs], view_outputs,
                  show_progress="hidden")
        demo.load(app.compare_first, None, [compared, compare_plot_box])
        demo.load(app.show_contest, contest, [image, text, said])  # answers of runs finished since start-up
        for trigger in (compared.change, compare_view.change):
            trigger(named(app.guarded(app.compare), "compare"), [compared, compare_view], compare_plot_box,
                    show_progress="hidden")
        run.change(named(app.guarded(app.detail), "detail"), run, [detail, files])
        contest.input(named(app.guarded(app.show_contest), "show_contest"), contest, [image, text, said])
        send.click(app.submit, [model, revision, tasks, dtype], [message, queue])
        queue_btn.click(app.queue, None, queue)
        gr.Timer(30.0).tick(app.queue, None, queue, show_progress="hidden")  # the queue moves on its own
    return demo


def named(fn: Any, name: str) -> Any:
    """`fn` under `name` (gradio names an event's API endpoint after its function)."""
    fn.__name__ = name
    return fn


def launch_options(settings: Settings) -> dict[str, Any]:
    """What `launch` needs: styles, a cap on uploads, and the file route closed to the store (its database,
    WAL, sidecars and dotfiles); pages link only to the copies `App` makes in its public folder. Forwarding
    headers are believed only from the configured proxies (`trust_proxies`); no request body over the cap is read
    (`BodyCap`)."""
    from starlette.middleware import Middleware

    trust_proxies(settings.trusted_proxies)
    return {"css": CSS, "allowed_paths": [], "blocked_paths": [str(settings.data_dir.resolve())],
            "max_file_size": "5mb",
            "app_kwargs": {"middleware": [Middleware(BodyCap, max_bytes=settings.max_body_bytes)]}}

