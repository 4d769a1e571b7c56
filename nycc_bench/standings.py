"""Results → ranked tables (the leaderboard's tabs and the report's summary): one wide frame of every run and
metric, then per-tab filtered views.

Each metric is one column: its value (a percentage for rates) shown with its 95% interval's own bounds,
`37.5 [12.5, 75.0]`, and sorted by the value; the details switch adds the item count to the same cell. Ranks:

- a family tab ranks on its first metric, Chatbot Arena style: 1 + the number of runs whose 95% interval lies
  wholly above this run's, so runs that cannot be told apart share a rank (a score without an interval counts
  as the interval [value, value]);
- the overview ranks only on the headline columns every run shown has a score in (`RANK_RULE`): a run gains
  nothing by skipping a task, and a run that beats another on every shared column always ranks above it.

A pooled column (a task file's score with `pooled: true`; HumorBench's "Hard, leaderboard rule") is not read from
one record but computed here over the runs shown: upstream's leaderboard rule for HumorBench Hard
(`ReubenNarad/Humor-Bench`, `reports/main_benchmark_results.py` at cc99276; `builders.hard_subset.hard_subset`)
pools the PASS/FAIL verdicts of every run per item (the score's `path` in each entry's `details`), keeps the 100
most-missed items with at least 3 valid gradings, and shows each run's PASS / (PASS + FAIL) on them, without an
interval. It moves as runs are added; runs on the sample data and on the benchmark data are pooled separately.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .lazy import LazyModule
from .results import run_id
from .tasks.definition import lookup
from .tasks.families import families
from .tasks.scores import Metric, family_metrics, metrics
from .urls import hub_link
from .wholeness import PARTIAL, shows_numbers, status_of

pd: Any = LazyModule("pandas")  # the tables are pandas frames; a score line (`score_text`) imports no pandas


def pooled_metrics() -> list[Metric]:
    """The columns computed over the runs shown, not read from one record (scores with `pooled: true`)."""
    return [m for m in metrics() if m.pooled]


def pooled_about() -> str:
    """The About tab's paragraph on each pooled column."""
    from .builders.hard_subset import HARD_SIZE, MIN_VALID  # lazily: `builders` pulls in `datasets`

    return "\n\n".join(
        f"**{m.label}** ({families()[m.family].title} tab): upstream's leaderboard rule for HumorBench Hard, applied "
        f"to the runs shown here. Every run's per-item verdicts (`details.{m.pooled}`) are pooled (benchmark and "
        f"sample runs separately, runs in run-id order), the {HARD_SIZE} items with the lowest pass rate among those "
        f"graded PASS or FAIL at least {MIN_VALID} times are kept (ties in order of first appearance), and the column "
        f"is each run's PASS / (PASS + FAIL) on them, without an interval. The set moves as runs are added. It is not "
        f"the paper's HumorBench-Hard (the *Hard subset* column: the paper's 100 captions, 164 elements); upstream's "
        f"own July list by this rule was never published (ReubenNarad/Humor-Bench reports/main_benchmark_results.py, "
        f"cc99276)." for m in pooled_metrics())


def item_verdicts(metric: Metric, result: dict[str, Any]) -> dict[str, str] | None:
    """A pooled column's per-item verdicts in one run; None when it has none (not run, not judged, incomplete, or
    recorded before verdicts were kept)."""
    entry = (result.get("tasks") or {}).get(metric.task) or {}
    if not entry or not shows_numbers(entry) or metric.pooled is None:  # the one rule of a whole result
        return None
    verdicts = lookup(entry.get("details") or {}, metric.pooled)
    return dict(verdicts) if isinstance(verdicts, dict) and verdicts else None


def hard_items(metric: Metric, results: Sequence[dict[str, Any]]) -> list[Hashable]:
    """The rule's items over these runs (pooled in run-id order), hardest first."""
    from .builders.hard_subset import hard_subset  # lazily: `builders` pulls in `datasets`

    runs = [v for r in sorted(results, key=run_id) if (v := item_verdicts(metric, r)) is not None]
    return [rate.key for rate in hard_subset(runs)] if runs else []


def pass_rate(verdicts: dict[str, str], items: Sequence[Hashable]) -> tuple[float | None, int]:
    """(PASS / (PASS + FAIL), the number of PASS/FAIL verdicts) of one run on the items; None when it has none."""
    valid = [verdicts[k] for k in items if verdicts.get(k) in ("PASS", "FAIL")]  # type: ignore[call-overload]
    return (sum(v == "PASS" for v in valid) / len(valid) if valid else None), len(valid)


def with_pooled(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of the records with each pooled column's score added to the entries that have verdicts (the input
    records are left as they are)."""
    out = list(results)
    sample = lambda r: bool((r.get("dataset") or {}).get("sample"))  # noqa: E731
    for metric in pooled_metrics():
        items = {flag: hard_items(metric, [r for r in results if sample(r) == flag]) for flag in (False, True)}
        scored = []
        for result in out:
            verdicts = item_verdicts(metric, result)
            value, n = pass_rate(verdicts, items[sample(result)]) if verdicts else (None, 0)
            if value is not None:
                entry = result["tasks"][metric.task]
                score = {"value": value, "ci_low": None, "ci_high": None, "n": n}
                result = {**result, "tasks": {**result["tasks"], metric.task: {
                    **entry, "scores": {**(entry.get("scores") or {}), metric.score: score}}}}
            scored.append(result)
        out = scored
    return out

TYPES = {"baseline": "Baseline", "open": "Open weights", "api": "API", "published": "Published outputs"}
SIZES = [("< 1B", 0.0, 1.0), ("1-3B", 1.0, 3.0), ("3-7B", 3.0, 7.0), ("7-15B", 7.0, 15.0), ("15-35B", 15.0, 35.0),
         ("35B+", 35.0, math.inf)]
UNKNOWN_SIZE = "unknown"
SETTINGS = ("from description", "from pixels")
INFO_COLUMNS = ["Model", "Type", "Params", "Data", "Judge"]
OFFLINE_JUDGES = {"reward": "offline reward model", "embedding": "offline embedding grader"}
NOT_RUN, CANNOT, NO_JUDGE, INCOMPLETE = "not run", "n/a", "no judge", "incomplete"  # why a cell has no number
OVERVIEW_DETAIL_COLUMNS = ("Type", "Data")  # shown on the overview only with Details (the width of 1400 px)
MAX_OVERVIEW_METRICS = 8  # the overview fits a 1400 px window; every other metric lives on its family tab
RANK_RULE = ("**Rank** (overview): only the headline columns that *every* run shown has a score in are ranked on "
             "(the *ranked columns*, listed under the table). In each, a run's column rank is 1 + the number of "
             "runs with a better score; a run's Rank is 1 + the number of runs with a lower mean column rank, so "
             "ties share a rank. Skipping a task never helps (a skipped column is not ranked on for anyone), and "
             "a run that beats another on every shared column always ranks above it, baselines included. When no "
             "column is shared by every run, the ranked columns are the one most runs have and every column all of "
             "those runs have; a run without a score in all of them is listed unranked (—), below.")


@dataclass(frozen=True)
class Filters:
    """What the user narrowed the table to; empty selections mean everything."""

    search: str = ""
    types: tuple[str, ...] = tuple(TYPES.values())
    sizes: tuple[str, ...] = (*(s[0] for s in SIZES), UNKNOWN_SIZE)
    settings: tuple[str, ...] = SETTINGS
    show_sample: bool = True
    details: bool = False  # add the interval and n to every score cell


@dataclass(frozen=True)
class Table:
    """One tab's table: `values` (numbers, what sorting uses) and `texts` (what each cell shows), same shape."""

    values: pd.DataFrame
    texts: pd.DataFrame
    run_ids: tuple[str, ...] = ()  # the run of each row, in order
    ranked: tuple[str, ...] = ()  # the overview's ranked columns (labels), see RANK_RULE

    @property
    def empty(self) -> bool:
        return self.values.empty

    def __len__(self) -> int:
        return len(self.values)

    def component_value(self) -> dict[str, Any]:
        """The gr.Dataframe value: numbers as data (sorting), the texts as display values."""
        data = [[None if isinstance(v, float) and math.isnan(v) else v for v in row]
                for row in self.values.astype(object).where(self.values.notna(), None).itertuples(index=False)]
        return {"headers": list(self.values.columns), "data": data,
                "metadata": {"display_value": self.texts.astype(str).values.tolist(), "styling": None}}


def size_bucket(params: int | None) -> str:
    """The size filter's bucket of a parameter count."""
    if params is None:
        return UNKNOWN_SIZE
    billions = params / 1e9
    return next(label for label, low, high in SIZES if low <= billions < high)


def digits(metric: Metric) -> int:
    """Decimals a metric is shown with, the same in every cell: percentages and BLEU one, other scores three."""
    return 1 if metric.rate or metric.score == "bleu" else 3


def _scale(metric: Metric, x: float | None) -> float | None:
    return None if x is None else round(x * 100 if metric.rate else x, digits(metric))


def fmt(x: float, places: int = 1) -> str:
    """A display-scale number with the metric's fixed number of decimals."""
    return f"{x:.{places}f}"


def params_text(params: int | float | None) -> str:
    """A parameter count as people say it: `44K`, `1.2M`, `7.2B` (empty when unknown)."""
    if params is None or pd.isna(params):
        return ""
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if params >= size:
            return f"{params / size:.{0 if params / size >= 100 else 1}f}{unit}".replace(".0" + unit, unit)
    return f"{int(params)}"


def failed_task(entry: dict[str, Any]) -> bool:
    """Whether a task entry is not whole (`wholeness.status_of`, as `evaluate` recorded it): its numbers are not
    shown or ranked."""
    return bool(entry) and not shows_numbers(entry)


def partial_note(tasks: dict[str, Any]) -> str:
    """` (partial: n of N)` for a run whose source covers only some items (`wholeness` status `partial`): its cells
    are scored and ranked on what it covers, and the row says so."""
    parts = [f"{(e.get('coverage') or {}).get('n')} of {(e.get('coverage') or {}).get('of')}"
             for e in tasks.values() if status_of(e).status == PARTIAL]
    return f" (partial: {', '.join(parts)})" if parts else ""


def model_link(name: str, url: str | None) -> str:
    """The model cell: a markdown link for Hub models, with markdown's special characters escaped."""
    text = "".join("\\" + c if c in "\\`*_{}[]()<>#+!|~" else c for c in name)
    link = hub_link(url)
    return f"[{text}]({link})" if link else text


def where_judged(judge: dict[str, Any]) -> str:
    """` at <endpoint>` for a judge that is not OpenAI's own endpoint (a local "gpt-4-turbo" says so), else ""."""
    endpoint = judge.get("endpoint") or judge.get("base_url")
    return f" at {endpoint}" if endpoint and urlsplit(str(endpoint)).hostname != "api.openai.com" else ""


def offline_trained_on(judge: dict[str, Any]) -> str:
    """`, trained on ...` for an offline judge whose record says what it was trained on (records made before it was
    recorded: the named judge's, `reward:sample` the invented sample), else ""."""
    if judge.get("backend") not in OFFLINE_JUDGES:
        return ""
    from .sample_judges import trained_on

    said = judge.get("trained_on") or trained_on(str(judge.get("backend")), str(judge.get("model")))
    return f", {said}" if said else ""


def task_judges(result: dict[str, Any]) -> dict[str, str]:
    """task → a short label of the judge that scored it (the record holds one judge, or one per task)."""
    judge = result.get("judge")
    if not isinstance(judge, dict) or not judge:
        return {}
    per_task = {None: judge} if "backend" in judge or "name" in judge else judge
    out = {}
    for task, spec in per_task.items():
        if isinstance(spec, dict):
            label = OFFLINE_JUDGES.get(str(spec.get("backend")), str(spec.get("model") or spec.get("name") or "?"))
            label += offline_trained_on(spec) + where_judged(spec)
        else:
            label = str(spec)
        if task is None:
            return {m.task: label for m in metrics() if m.judged}
        out[str(task)] = label
    return out


def _cell_state(metric: Metric, result: dict[str, Any]) -> str:
    """Why a cell has no number: the task was not run, the system cannot answer it, or no judge scored it."""
    tasks = result.get("tasks", {})
    if metric.task in (result.get("errors") or {}) or (metric.task in tasks and failed_task(tasks[metric.task])):
        return INCOMPLETE
    if metric.task in tasks:
        if metric.judged:
            return NO_JUDGE
        return INCOMPLETE if not tasks[metric.task].get("scores") else CANNOT
    if metric.task in (result.get("skipped") or {}):
        return NO_JUDGE if "judge" in str(result["skipped"][metric.task]).lower() else CANNOT
    return CANNOT if cannot_answer(str((result.get("model") or {}).get("spec") or ""), metric.task) else NOT_RUN


def cannot_answer(spec: str, task: str) -> bool:
    """Whether the system of `spec` cannot answer `task` by its declarations (its kinds and inputs): its cell is
    n/a, not "not run" (a system outside the registry, or a task outside the include path, is not known to be)."""
    from .errors import NyccBenchError
    from .systems.registry import entry_of
    from .tasks import get_task

    entry = entry_of(spec)
    try:
        return entry is not None and not entry.cls.can_answer(get_task(task))
    except NyccBenchError:
        return False


def params_reason(model: dict[str, Any]) -> str:
    """What the Params cell says when the record has no parameter count: why there is none."""
    from .systems.registry import entry_of

    spec = str(model.get("spec") or "")
    entry = entry_of(spec)
    if model.get("type") == "api" or spec.partition(":")[0] == "openai":
        return "API: not disclosed"
    if entry is not None and entry.baseline and not entry.hub_model:
        return "none (no model)"
    return "not recorded"


def record_key(result: dict[str, Any], index: int) -> str:
    """A row's key: the leaderboard run id, else the record's place in the list (records written by `evaluate`
    carry no run id, and each must still be its own row)."""
    return run_id(result) or f"record-{index}"


def build_frame(results: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per run: model facts and, per metric, value / low / high / n (display scale) and its state."""
    rows = []
    for index, result in enumerate(with_pooled(results)):
        model = result.get("model", {})
        params = model.get("parameters")
        tasks = result.get("tasks", {})
        judges = {task: judge for task, judge in task_judges(result).items() if task in tasks}
        row: dict[str, Any] = {
            "run_id": record_key(result, index), "name": model.get("name") or model.get("spec") or "?",
            "Type": TYPES.get(model.get("type", "open"), "Open weights"),
            "Params": params / 1e9 if params else None, "size": size_bucket(params),
            "params_why": None if params else params_reason(model),
            "Data": "sample" if result.get("dataset", {}).get("sample") else "benchmark",
            "created_at": str(result.get("created_at") or ""), "judges": judges,
        }
        row["Model"] = model_link(row["name"], model.get("url")) + partial_note(tasks)
        for metric in metrics():
            entry = tasks.get(metric.task) or {}
            value, low, high, n = metric.extract(None if failed_task(entry) else entry.get("scores"))
            row[metric.key] = _scale(metric, value)
            row[metric.key + "|low"], row[metric.key + "|high"] = _scale(metric, low), _scale(metric, high)
            row[metric.key + "|n"] = n
            row[metric.key + "|ran"] = metric.task in tasks
            row[metric.key + "|state"] = "" if value is not None else (
                CANNOT if metric.pooled and (tasks.get(metric.task) or {}).get("scores") else  # judged, no verdicts
                _cell_state(metric, result))
        rows.append(row)
    return pd.DataFrame(rows)


def arena_rank(values: pd.Series, lows: pd.Series, highs: pd.Series, higher_is_better: bool = True) -> pd.Series:
    """1 + how many runs are surely better (their interval wholly beyond this one's); NaN where no value."""
    low = lows.astype(float).fillna(values.astype(float)).to_numpy(dtype=float)
    high = highs.astype(float).fillna(values.astype(float)).to_numpy(dtype=float)
    if not higher_is_better:
        low, high = -high, -low
    ranks = [1 + int((low > h).sum()) if not math.isnan(h) else math.nan for h in high]
    return pd.Series(ranks, index=values.index, dtype="Float64")


def value_rank(values: pd.Series, higher_is_better: bool = True) -> pd.Series:
    """1 + how many runs have a strictly better value (ties share a rank); NaN where no value."""
    x = values.astype(float).to_numpy(dtype=float)
    better = (lambda v: x > v) if higher_is_better else (lambda v: x < v)
    return pd.Series([1 + int(better(v).sum()) if not math.isnan(v) else math.nan for v in x], index=values.index,
                     dtype="Float64")


def ranked_metrics(rows: pd.DataFrame, metrics: list[Metric]) -> list[Metric]:
    """The overview's ranked columns (see `RANK_RULE`): those every row has a value for; when there are none, the
    column most rows have (the first on a tie) and every other column all of those rows have."""
    if rows.empty:
        return []
    shared = [m for m in metrics if rows[m.key].notna().all()]
    if shared:
        return shared
    counts = [int(rows[m.key].notna().sum()) for m in metrics]
    if not counts or max(counts) < 2:
        return []
    anchor = metrics[counts.index(max(counts))]
    having = rows[rows[anchor.key].notna()]
    return [m for m in metrics if having[m.key].notna().all()]


def mean_rank(rows: pd.DataFrame, metrics: list[Metric]) -> pd.Series:
    """Each ranked run's mean column rank over the ranked columns; NaN for a run without a score in all of them."""
    shared = ranked_metrics(rows, metrics)
    if not shared:
        return pd.Series(math.nan, index=rows.index, dtype=float)
    ranked = rows[rows[[m.key for m in shared]].notna().all(axis=1)]
    ranks = pd.concat([value_rank(ranked[m.key], m.higher_is_better) for m in shared], axis=1)
    return ranks.astype(float).mean(axis=1).reindex(rows.index)


def overall_rank(means: pd.Series) -> pd.Series:
    """1 + the number of runs with a strictly lower (better) mean rank; NaN where there is none."""
    values = means.to_numpy(dtype=float)
    ranks = [1 + int((values < v).sum()) if not math.isnan(v) else math.nan for v in values]
    return pd.Series(ranks, index=means.index, dtype="Float64")


def visible_metrics(family: str | None, filters: Filters) -> list[Metric]:
    """The tab's metrics in the settings the user kept."""
    kept = {s == "from pixels" for s in filters.settings or SETTINGS}
    return [m for m in family_metrics(family) if m.from_pixels in kept]


SEARCH_MAX_CHARS = 200
"""The longest search read (the rest is ignored): one search costs at most one pass over the names."""
SEARCH_MAX_TERMS = 10
"""The most ';'-separated search terms read."""


def search_terms(search: str) -> list[str]:
    """The search's terms, bounded: the first `SEARCH_MAX_TERMS` of its first `SEARCH_MAX_CHARS` characters."""
    terms = [t.strip().lower() for t in str(search or "")[:SEARCH_MAX_CHARS].split(";") if t.strip()]
    return list(dict.fromkeys(terms))[:SEARCH_MAX_TERMS]


def filter_rows(frame: pd.DataFrame, filters: Filters) -> pd.DataFrame:
    """Rows matching the search (terms separated by ';', any may match), types, sizes and the sample switch."""
    if frame.empty:
        return frame
    mask = pd.Series(True, index=frame.index)
    if terms := search_terms(filters.search):  # one linear pass over the names, bounded terms
        mask &= pd.Series([any(t in str(n).lower() for t in terms) for n in frame["name"]], index=frame.index)
    if filters.types:
        mask &= frame["Type"].isin(filters.types)
    if filters.sizes:
        mask &= frame["size"].isin(filters.sizes)
    if not filters.show_sample:
        mask &= frame["Data"] != "sample"
    return frame[mask]


def missing(value: Any) -> bool:
    """`pd.isna` of one cell without importing pandas for a plain value: None, a float NaN, or pandas' NA/NaT."""
    if value is None:
        return True
    if isinstance(value, float):  # numpy's float64 too
        return math.isnan(value)
    if isinstance(value, int | str):
        return False
    return bool(pd.isna(value))  # pandas' NA or NaT, numpy scalars: they came from a frame, pandas is imported


def score_text(value: Any, low: Any, high: Any, n: Any, details: bool, state: str = "", places: int = 1) -> str:
    """`37.5 [12.5, 75.0]`: the value and its interval's own bounds (a bootstrap interval is rarely symmetric,
    so never a ±), with details ` n=528` added; the reason there is none otherwise."""
    if missing(value):
        return state or NOT_RUN
    text = fmt(float(value), places)
    if not missing(low) and not missing(high) and float(high) > float(low):
        text += f" [{fmt(float(low), places)}, {fmt(float(high), places)}]"
    if details and not missing(n):
        text += f" n={int(n)}"
    return text


def _judge_text(judges: dict[str, str], metrics: list[Metric]) -> str:
    names = sorted({judges[m.task] for m in metrics if m.judged and m.task in judges})
    if len(names) > 1 and all(n.startswith(tuple(OFFLINE_JUDGES.values())) for n in names):
        trained = {n.partition(", ")[2] for n in names}
        return "offline judges" + (f", {trained.pop()}" if len(trained) == 1 and "" not in trained else "")
    return ", ".join(names) if names else "none"


def tab_table(frame: pd.DataFrame, family: str | None, filters: Filters) -> Table:
    """The table one tab shows: ranked (see the module docstring), filtered, one column per metric."""
    shown = visible_metrics(family, filters)
    if family is None:
        shown = shown[:MAX_OVERVIEW_METRICS]
    judged = any(m.judged for m in shown)
    info = [c for c in INFO_COLUMNS if (c != "Judge" or judged)
            and (family is not None or filters.details or c not in OVERVIEW_DETAIL_COLUMNS)]
    columns = ["Rank", *info, *(m.label for m in shown)]
    rows = filter_rows(frame, filters)
    if rows.empty or not shown:
        return Table(pd.DataFrame(columns=columns), pd.DataFrame(columns=columns))
    rows = rows[rows[[m.key + "|ran" for m in shown]].any(axis=1)].copy()
    if rows.empty:
        return Table(pd.DataFrame(columns=columns), pd.DataFrame(columns=columns))
    first = shown[0]
    if family:
        rows["Rank"] = arena_rank(rows[first.key], rows[first.key + "|low"], rows[first.key + "|high"],
                                  first.higher_is_better)
        order = [first.key] if first.higher_is_better else []
        rows = rows.sort_values(["Rank", *order, "name"], ascending=[True, *[False] * len(order), True],
                                na_position="last")
    else:
        rows["mean rank"] = mean_rank(rows, shown)
        rows["Rank"] = overall_rank(rows["mean rank"])
        rows["coverage"] = rows[[m.key for m in shown]].notna().sum(axis=1)
        rows = rows.sort_values(["Rank", "coverage", "name"], ascending=[True, False, True], na_position="last")
    rows["Judge"] = [_judge_text(j, shown) for j in rows["judges"]]
    values = rows[["Rank", *info]].copy()
    texts = values.astype(object).where(values.notna(), "").astype(str)
    texts["Rank"] = [str(int(r)) if pd.notna(r) else "—" for r in rows["Rank"]]
    texts["Params"] = [params_text(p * 1e9) if pd.notna(p) else str(why or "not recorded")
                       for p, why in zip(rows["Params"], rows["params_why"], strict=True)]
    for m in shown:
        values[m.label] = rows[m.key].astype(float)
        texts[m.label] = [score_text(v, lo, hi, n, filters.details, s, digits(m)) for v, lo, hi, n, s in zip(
            rows[m.key], rows[m.key + "|low"], rows[m.key + "|high"], rows[m.key + "|n"], rows[m.key + "|state"],
            strict=True)]
    ranked = tuple(m.label for m in ranked_metrics(rows, shown)) if family is None else ()
    return Table(values.reset_index(drop=True), texts.reset_index(drop=True), tuple(rows["run_id"]), ranked)


def datatypes(columns: list[str]) -> list[str]:
    """gr.Dataframe column types: the model cell is markdown, numbers sort as numbers."""
    return ["markdown" if c == "Model" else "str" if c in ("Type", "Data", "Judge") else "number" for c in columns]
