"""HumorBench's stored explanations (`analysis/category_subsets/*.csv` at the pinned commit: each model's
explanation of each element with GPT-4o's autograder verdict and reasoning) as runs of `humorbench`: element
accuracy by this toolkit's metric over the elements the files cover (coverage "n of 499"), the stored verdicts as
the run's judge verdicts (judge `gpt-4o`, the authors' autograder), and beside it the authors' reported
whole-benchmark figures (`docs/data.json`, `analysis/runs/full benchmark/leaderboard.csv`), labelled "reported"."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ..builders.csvfile import read_bytes, read_dicts
from ..builders.errors import SourceError
from ..builders.humorbench import Element, _caption_rows, read_elements, read_hard
from ..errors import NyccBenchError
from ..metrics import compute_metric
from ..reproducing.humorbench import HARD, _model_key
from ..reproducing.inputs import (
    CATEGORY_FILES,
    HUMORBENCH_COMMIT,
    LEADERBOARD_DATA,
    TOXIC_VERDICTS,
    Inputs,
    humorbench_file,
)
from ..scoring.autograder import VERDICTS
from ..tasks.lookup import extract_scores
from .runs import PublishedRun, prediction_lines, provenance, published_task, status_fields

PAPER = "HumorBench (Narad et al. 2025)"
SCORER = "elements"  # the task that grades each element of an explanation
# The verdict files read, in order: the leaderboard's July 2025 runs (the toxic-or-shocking file is the one
# docs/data.json's per-category rates come from; its cultural-reference twin is too large for the snapshot).
VERDICT_FILES = (TOXIC_VERDICTS, "analysis/category_subsets/20250710_201057_wordplay_subset.csv")
LEADERBOARD_CSV = "analysis/runs/full benchmark/leaderboard.csv"
AUTOGRADER = {"name": "gpt-4o", "backend": "openai", "model": "gpt-4o", "base_url": None,
              "note": "the authors' autograder: its verdicts as published, not asked again"}
COLUMNS = ["idx", "element", "explanation", "autograder_judgment", "autograder_reasoning", "explainer_model",
           "autograder_model"]


class StoredAutograder:
    """The judge of a published HumorBench run: GPT-4o as the authors ran it (its stored verdicts)."""

    name = "gpt-4o"
    backend = "openai"
    is_llm = True


def _reported(inputs: Inputs) -> tuple[dict[str, dict[str, Any]], list[dict[str, str]]]:
    """model key -> the authors' reported figures (docs/data.json's entry, the leaderboard.csv row by display
    name), printed digits kept; and the files' provenance."""
    data, table = inputs.file(humorbench_file(LEADERBOARD_DATA)), inputs.file(humorbench_file(LEADERBOARD_CSV))
    out: dict[str, dict[str, Any]] = {}
    files = []
    if data is not None:
        try:
            entries = json.loads(read_bytes(data).decode("utf-8"), parse_float=str)
        except json.JSONDecodeError as err:
            raise SourceError(data, f"not JSON ({err.msg})", "download docs/data.json again", row=err.lineno) from None
        if not isinstance(entries, list) or not all(isinstance(e, dict) and "explainer_model" in e for e in entries):
            raise SourceError(data, "not a list of leaderboard entries", "download docs/data.json again")
        out = {e["explainer_model"]: {"display_name": e.get("display_name") or e["explainer_model"],
                                      "data_json": e} for e in entries}
        files.append(provenance(humorbench_file(LEADERBOARD_DATA), data))
    if table is not None:
        rows = read_dicts(table, ["Model", "Overall (%)"])
        by_name = {r["Model"]: r for r in rows}
        for entry in out.values():
            if (row := by_name.get(entry["display_name"])) is not None:
                entry["leaderboard_csv"] = row
        files.append(provenance(humorbench_file(LEADERBOARD_CSV), table))
    return out, files


def _stored(inputs: Inputs) -> tuple[dict[str, dict[tuple[int, str], dict[str, str]]], list[dict[str, str]]]:
    """explainer model -> (idx, element) -> its stored row (the first file that holds the pair wins; a pair
    stored twice with two verdicts is an error), and the files' provenance."""
    out: dict[str, dict[tuple[int, str], dict[str, str]]] = {}
    files = []
    for name in VERDICT_FILES:
        path = inputs.file(humorbench_file(name))
        if path is None:
            continue
        files.append(provenance(humorbench_file(name), path))
        for i, row in enumerate(read_dicts(path, COLUMNS), start=1):
            try:
                key = (int(float(row["idx"])), row["element"])
            except ValueError:
                raise SourceError(path, f"idx {row['idx']!r} is not a number", "restore the file", row=i) from None
            rows = out.setdefault(row["explainer_model"], {})
            if key in rows and rows[key]["autograder_judgment"] != row["autograder_judgment"]:
                raise SourceError(path, f"idx {key[0]} of {row['explainer_model']} is graded "
                                  f"{row['autograder_judgment']} here and {rows[key]['autograder_judgment']} in an "
                                  "earlier file", "restore the pinned files", row=i)
            rows.setdefault(key, row)
    return out, files


def humorbench_runs(inputs: Inputs) -> tuple[list[PublishedRun], list[str]]:
    """One run per explainer model of the stored verdict files, scored on the elements they cover; and what is
    absent."""
    labels = {n: p for n in CATEGORY_FILES if (p := inputs.file(humorbench_file(f"categorized_output_{n}.csv")))}
    annotations = inputs.file(humorbench_file("comprehensive_annotations.csv"))
    if annotations is None:
        return [], [inputs.why(humorbench_file("comprehensive_annotations.csv"))]
    # the leaderboard's (cc99276) labels of the categories present: the ones docs/data.json's rates were made with
    elements = read_elements(replace(inputs.sources, humorbench_annotations=annotations, humorbench_categories=labels,
                                     humorbench_paper_categories={}), "leaderboard")
    stored, verdict_files = _stored(inputs)
    if not stored:
        return [], [inputs.why(humorbench_file(name)) for name in VERDICT_FILES]
    reported, reported_files = _reported(inputs)
    base = [provenance(humorbench_file("comprehensive_annotations.csv"), annotations),
            *[provenance(humorbench_file(f"categorized_output_{n}.csv"), p) for n, p in sorted(labels.items())]]
    hard_path = inputs.file(HARD)  # the paper's HumorBench-Hard (its Hard subset column), when present
    hard = set(read_hard(hard_path, elements)) if hard_path is not None else None
    if hard_path is not None:
        base.append(provenance(HARD, hard_path))
    task = published_task(SCORER)
    runs = [_run(task, model, rows, elements, reported.get(_model_key(model)),
                 [*base, *verdict_files, *reported_files], hard) for model, rows in sorted(stored.items())]
    return runs, []


def _run(task: Any, model: str, rows: dict[tuple[int, str], dict[str, str]], elements: list[Element],
         reported: dict[str, Any] | None, files: list[dict[str, str]], hard: set[str] | None) -> PublishedRun:
    """One explainer model's stored explanations and verdicts as a scored run of the elements they cover."""
    from ..score import task_config

    captions = _caption_rows(elements, {}, False, HUMORBENCH_COMMIT)
    unit: list[tuple[str, dict[str, Any], int]] = []  # (instance id, caption row, element position)
    for caption in captions:
        for k, element_id in enumerate(caption["element_ids"]):
            unit.append((f"{caption['caption_id']}/{element_id}", caption, k))
    by_id = {e.element_id: (e.idx, e.row["element"]) for e in elements}
    covered = [(iid, c, k, rows[key]) for iid, c, k in unit if (key := by_id[c["element_ids"][k]]) in rows]
    unknown = len(rows) - len(covered)
    if not covered:
        raise NyccBenchError(f"source: the stored rows of {model} match no element of comprehensive_annotations.csv; "
                             "use the annotations of the pinned commit")
    verdicts = [r["autograder_judgment"] if r["autograder_judgment"] in VERDICTS else "ERROR" for *_, r in covered]
    details = compute_metric(task.metric, predictions=[r["explanation"] for *_, r in covered],
                             references=[c["elements"][k] for _, c, k, _ in covered], judgments=verdicts,
                             caption_ids=[c["caption_id"] for _, c, _, _ in covered],
                             categories=[c["element_categories"][k] for _, c, k, _ in covered],
                             hard=None if hard is None else [c["element_ids"][k] in hard for _, c, k, _ in covered])
    details["truncation"] = {"last_k_tokens": None, "tokenizer": None,
                             "note": "graded by the authors as they stored the explanations"}
    details["element_verdicts"] = {iid: v for (iid, *_), v in zip(covered, verdicts, strict=True)}
    judge = StoredAutograder()
    values = task.option_values()
    config = task_config(task, values, None, [0], task.split, None)
    config["judge"] = {**dict(task.judge), **AUTOGRADER}
    config["effective"]["judge"] = {"name": "gpt-4o", "stored": True}
    config["deviations"] = [d for d in config["deviations"] if not d.startswith("No judge")]
    stored = ", ".join(sorted({f["path"] for f in files if "category_subsets" in f["path"]}))
    config["deviations"].append(f"Not run by nycc-bench: {PAPER}'s stored explanations and GPT-4o verdicts "
                                f"({stored}), imported with `nycc-bench import published`.")
    n_error = verdicts.count("ERROR")
    why = "the elements the published verdict files cover"
    entry: dict[str, Any] = {
        "config": config, "coverage": {"n": len(covered), "of": len(unit), "why": why, "partial": True},
        "scores": extract_scores(task, details), "n": len(covered), "n_unparsed": 0, "n_failed": 0,
        "n_error": n_error, "details": details, "predictions": []}
    entry.update(status_fields(task, entry, judge))
    name = (reported or {}).get("display_name") or model
    figures = _figures(reported)
    notes = [f"{PAPER}: the authors' stored explanations of {len(covered)} of {len(unit)} elements by {model}, "
             "graded by their GPT-4o autograder (verdicts as published)."]
    if unknown:
        notes.append(f"{unknown} stored rows match no element of the annotations and are left out.")
    run = PublishedRun(run_id="humorbench-" + "".join(c if c.isalnum() else "-" for c in _model_key(model).lower()),
                       name=str(name), paper=PAPER, entries={task.name: entry}, predictions={}, judged={},
                       files=files, judge=dict(AUTOGRADER), notes=notes,
                       extra={"published": {"kind": "model", "explainer_model": model, "reported": figures}})
    run.predictions[task.name] = prediction_lines(run, task, [(iid, r["explanation"]) for iid, _, _, r in covered])
    run.judged[task.name] = {iid: {"judge": "gpt-4o", "correct": v == "PASS" if v in ("PASS", "FAIL") else None,
                                   "verdicts": [{"element": c["elements"][k], "verdict": v,
                                                 "reasoning": r.get("autograder_reasoning")}]}
                             for (iid, c, k, r), v in zip(covered, verdicts, strict=True)}
    return run


def _figures(reported: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The authors' reported whole-benchmark figures of one model, as printed, each labelled "reported"."""
    if not reported:
        return []
    data = reported["data_json"]
    out = [{"label": "reported", "figure": key, "value": data[key], "source": LEADERBOARD_DATA,
            "n": data.get("num_rows")} for key in ("pass_rate_per_row", "toxic_or_shocking_pass_rate_per_row",
                                                   "wordplay_pass_rate_per_row",
                                                   "cultural_reference_pass_rate_per_row")
           if data.get(key) not in (None, "NaN")]
    if row := reported.get("leaderboard_csv"):
        out += [{"label": "reported", "figure": column, "value": row[column], "source": LEADERBOARD_CSV, "n": None}
                for column in ("Overall (%)", "Hard Subset (%)") if row.get(column)]
    return out

