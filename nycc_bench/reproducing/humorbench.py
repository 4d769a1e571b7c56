"""HumorBench (Narad et al. 2025) figures: its size, Table 3's category shares, Table 5's hard pass rates, and
the published per-model toxic-or-shocking pass rates recomputed from upstream's stored verdicts."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from ..builders.csvfile import read_bytes, read_dicts
from ..builders.errors import SourceError
from ..builders.humorbench import CATEGORIES, Element, _caption_rows, read_elements, read_hard
from ..builders.sources import PAPER_HARD_COMMIT, PAPER_HARD_FILE, PAPER_HARD_FOLDER, PAPER_HARD_UPSTREAM_PATH
from ..scoring.autograder import VERDICTS, element_scores
from .figures import HUMORBENCH, Figure
from .inputs import (
    CATEGORY_FILES,
    HUMORBENCH_REPO,
    LEADERBOARD_DATA,
    TOXIC_VERDICTS,
    Inputs,
    Needed,
    humorbench_file,
    paper_category_file,
)

PAPER = HUMORBENCH
ANNOTATIONS = humorbench_file("comprehensive_annotations.csv")
HARD = Needed(HUMORBENCH_REPO, PAPER_HARD_COMMIT, PAPER_HARD_UPSTREAM_PATH, f"{PAPER_HARD_FOLDER}/{PAPER_HARD_FILE}")
TOXIC = "toxic or shocking"
# Table 3, "Entire Set" column as printed.
TABLE3 = {"wordplay": ("Wordplay", "24.4%"), "cultural_reference": ("Cultural Reference", "19.0%"),
          "toxic_or_shocking": ("Toxic or Shocking", "25.7%")}
# Table 5 as printed: cartoon (NYCC contest number or CartoonStock id), words of its caption, pass rate (%).
TABLE5 = (
    ("CC123065", "beyond jolly", "0"),
    (40, "Manhattan skyline", "17"),
    (15, "lovely gesture", "20"),
    (669, "bedtime routine", "33"),
    (665, "carrying the groceries", "40"),
    (687, "spend at Macy", "40"),
    (686, "how to tell him", "27"),
    (61, "cholesterol", "20"),
)
PASS_RATE_KEY = "toxic_or_shocking_pass_rate_per_row"
LEADERBOARD = "Leaderboard (docs/data.json)"  # docs/data.json, one entry per leaderboard model


def figures(inputs: Inputs) -> list[Figure]:
    """Every HumorBench figure."""
    elements = _elements(inputs)
    return [*size(inputs, elements), *table3(inputs, elements), *table5(inputs, elements), *toxic_pass_rates(inputs)]


def _elements(inputs: Inputs, labels: dict[str, Path] | None = None) -> list[Element] | None:
    """The annotations (with the given category files' labels), or None if the annotations are absent."""
    path = inputs.file(ANNOTATIONS)
    if path is None:
        return None
    return read_elements(replace(inputs.sources, humorbench_annotations=path, humorbench_categories=labels or {}))


def size(inputs: Inputs, elements: list[Element] | None) -> list[Figure]:
    """499 elements over 309 captions (§3.4)."""
    rows = [Figure(PAPER, "§3.4", "HumorBench", what, printed) for what, printed in (("elements", "499"),
                                                                                    ("captions", "309"))]
    if elements is None:
        return [f.absent([inputs.why(ANNOTATIONS)]) for f in rows]
    return [rows[0].settle(len(elements)), rows[1].settle(len(_caption_rows(elements, {}, False)))]


def table3(inputs: Inputs, elements: list[Element] | None) -> list[Figure]:
    """Each category's share of the 499 elements, from the paper's labels (41cacd4)."""
    labels = {name: inputs.file(paper_category_file(name)) for name in CATEGORY_FILES}
    rows = [Figure(PAPER, "Table 3", row, "entire set share", printed) for row, printed in TABLE3.values()]
    needs = [inputs.why(paper_category_file(n)) for n, p in labels.items() if p is None]
    if elements is None or needs:
        return [f.absent(needs + ([] if elements else [inputs.why(ANNOTATIONS)])) for f in rows]
    labelled = _elements(inputs, {k: v for k, v in labels.items() if v is not None}) or []
    note = f"labels at {paper_category_file('wordplay').commit[:7]} (the paper's)"
    return [f.settle(100 * sum(CATEGORIES[name] in e.categories for e in labelled) / len(labelled), n=len(labelled),
                     note=note) for f, name in zip(rows, TABLE3, strict=True)]


def table5(inputs: Inputs, elements: list[Element] | None) -> list[Figure]:
    """The pass rates of Table 5's hard examples, from the paper's HumorBench-Hard list."""
    rows = [Figure(PAPER, "Table 5", f"{'NYCC #' if isinstance(c, int) else ''}{c}", "pass rate (%)", printed)
            for c, _, printed in TABLE5]
    path = inputs.file(HARD)
    if elements is None or path is None:
        needs = [inputs.why(ANNOTATIONS)] * (elements is None) + [inputs.why(HARD)] * (path is None)
        return [f.absent(needs) for f in rows]
    hard = read_hard(path, elements)
    for figure, (cartoon, words, _) in zip(rows, TABLE5, strict=True):
        column = "contest_number" if isinstance(cartoon, int) else "cartoonstock_id"
        rates = {hard[e.element_id][0] for e in elements if e.element_id in hard and words in e.row["caption"]
                 and e.row[column] and (e.row[column] == cartoon or _number(e.row[column]) == cartoon)}
        if len(rates) != 1:
            figure.settle("not found", note=f"{len(rates)} hard captions of {cartoon} contain {words!r}")
            continue
        figure.settle(100 * rates.pop(), note=f"caption containing {words!r}")
    return rows


def _number(text: str) -> int | None:
    """An upstream contest cell (`2.0`) as a number."""
    try:
        return int(float(text))
    except ValueError:
        return None


def toxic_pass_rates(inputs: Inputs) -> list[Figure]:
    """Each leaderboard model's published toxic-or-shocking pass rate (docs/data.json), recomputed from the stored
    verdicts through the element metric with the leaderboard's own labels (cc99276)."""
    data, verdicts = inputs.file(humorbench_file(LEADERBOARD_DATA)), inputs.file(humorbench_file(TOXIC_VERDICTS))
    elements = _elements(inputs, {n: p for n in CATEGORY_FILES
                                  if (p := inputs.file(humorbench_file(f"categorized_output_{n}.csv")))})
    if data is None:
        return [Figure(PAPER, LEADERBOARD, "every model", "toxic or shocking pass rate", "(docs/data.json)")
                .absent([inputs.why(humorbench_file(LEADERBOARD_DATA))])]
    published = _published(data)
    rows = [Figure(PAPER, LEADERBOARD, display, "toxic or shocking pass rate", printed)
            for display, printed in published.values()]
    toxic_labels = inputs.file(humorbench_file("categorized_output_toxic_or_shocking.csv"))
    if verdicts is None or elements is None or toxic_labels is None:
        needs = [inputs.why(humorbench_file(p)) for p, f in ((TOXIC_VERDICTS, verdicts),
                 ("comprehensive_annotations.csv", elements), ("categorized_output_toxic_or_shocking.csv",
                                                              toxic_labels)) if f is None]
        return [f.absent(needs) for f in rows]
    by_model = _verdicts(verdicts)
    keys = {(e.idx, e.row["element"]): e for e in elements}
    for figure, model in zip(rows, published, strict=True):
        graded = by_model.get(model)
        if not graded:
            figure.settle("no verdicts", note=f"{TOXIC_VERDICTS} has no rows of this model")
            continue
        tags = [keys[k].categories if k in keys else [] for k, _ in graded]
        captions = [keys[k].row["caption"] if k in keys else f"?{k[0]}" for k, _ in graded]
        scores = element_scores([v for _, v in graded], captions, tags)
        category = scores["category_scores"][TOXIC]
        figure.settle(category["accuracy"], n=category["n"], note="element_scores(...)['category_scores']"
                      f"['{TOXIC}'] over {category['n']} graded elements")
    return rows


def _model_key(name: str) -> str:
    """A model name as docs/data.json spells `explainer_model` (`/` and `.` become `-`)."""
    return name.replace("/", "-").replace(".", "-")


def _published(path: Path) -> dict[str, tuple[str, str]]:
    """explainer_model -> (display name, its toxic-or-shocking pass rate exactly as docs/data.json prints it)."""
    text = read_bytes(path).decode("utf-8")
    try:
        entries = json.loads(text, parse_float=str)  # keep the printed digits, never a re-rounded float
    except json.JSONDecodeError as err:
        raise SourceError(path, f"not JSON ({err.msg})", "download docs/data.json again", row=err.lineno) from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "explainer_model" in e for e in entries):
        raise SourceError(path, "not a list of leaderboard entries", "download docs/data.json again")
    return {e["explainer_model"]: (str(e.get("display_name") or e["explainer_model"]), str(e[PASS_RATE_KEY]))
            for e in entries if e.get(PASS_RATE_KEY) is not None}


def _verdicts(path: Path) -> dict[str, list[tuple[tuple[int, str], str]]]:
    """data.json model key -> [((idx, element), verdict)] of the stored verdict file; a verdict other than PASS or
    FAIL is the metric's ERROR (left out of the rate)."""
    out: dict[str, list[tuple[tuple[int, str], str]]] = {}
    for i, row in enumerate(read_dicts(path, ["idx", "element", "autograder_judgment", "explainer_model"]), start=1):
        idx = _number(row["idx"])
        if idx is None:
            raise SourceError(path, f"idx {row['idx']!r} is not a number", "restore the file", row=i)
        verdict = row["autograder_judgment"] if row["autograder_judgment"] in VERDICTS else "ERROR"
        out.setdefault(_model_key(row["explainer_model"]), []).append(((idx, row["element"]), verdict))
    return out
