"""HumorBench (Narad et al. 2025) figures: its size, Table 3's category shares, Table 5's hard pass rates, and
the published per-model toxic-or-shocking pass rates recomputed from upstream's stored verdicts."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from ..builders.csvfile import read_bytes, read_dicts
from ..builders.errors import SourceError
from ..builders.humorbench import CATEGORIES, Element, _caption_rows, read_elements, read_hard
from ..builders.sources import (
    HUMORBENCH_COMMIT,
    HUMORBENCH_LABELS,
    PAPER_CATEGORIES_COMMIT,
    PAPER_HARD_COMMIT,
    PAPER_HARD_FILE,
    PAPER_HARD_FOLDER,
    PAPER_HARD_UPSTREAM_PATH,
)
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
    """Every HumorBench figure, each reading the inputs it names (never another figure's labels)."""
    elements = _elements(inputs)
    return [*size(inputs, elements), *table3(inputs, elements), *table5(inputs, elements), *toxic_pass_rates(inputs)]


def _elements(inputs: Inputs, labels: str | None = None) -> list[Element] | None:
    """The annotations with exactly the chosen labels (`paper`: 41cacd4's, `leaderboard`: cc99276's, None: none),
    whatever else the source holds; None if the annotations (or any of the chosen label files) are absent."""
    path = inputs.file(ANNOTATIONS)
    files = label_files(inputs, labels) if labels else {}
    if path is None or any(p is None for p in files.values()):
        return None
    chosen = {name: p for name, p in files.items() if p is not None}
    sources = replace(inputs.sources, humorbench_annotations=path,
                      humorbench_paper_categories=chosen if labels == "paper" else {},
                      humorbench_categories=chosen if labels == "leaderboard" else {})
    return read_elements(sources, labels or "leaderboard")


def label_file(labels: str, name: str) -> Needed:
    """One category's labels: the paper's (41cacd4, kept under another name) or the leaderboard's (cc99276)."""
    if labels not in HUMORBENCH_LABELS:
        raise ValueError(f"labels {labels!r} is not one of {', '.join(HUMORBENCH_LABELS)}")
    return paper_category_file(name) if labels == "paper" else humorbench_file(f"categorized_output_{name}.csv")


def label_files(inputs: Inputs, labels: str) -> dict[str, Path | None]:
    """Each category's label file of one version, as found below the source (None where absent)."""
    return {name: inputs.file(label_file(labels, name)) for name in CATEGORY_FILES}


def size(inputs: Inputs, elements: list[Element] | None) -> list[Figure]:
    """499 elements over 309 captions (§3.4)."""
    rows = [Figure(PAPER, "§3.4", "HumorBench", what, printed) for what, printed in (("elements", "499"),
                                                                                    ("captions", "309"))]
    if elements is None:
        return [f.absent([inputs.why(ANNOTATIONS)]) for f in rows]
    captions = _caption_rows(elements, {}, False, PAPER_CATEGORIES_COMMIT)
    return [rows[0].settle(len(elements)), rows[1].settle(len(captions))]


def table3(inputs: Inputs, elements: list[Element] | None) -> list[Figure]:
    """Each category's share of the 499 elements, from the paper's labels (41cacd4), whatever else is present."""
    labels = label_files(inputs, "paper")
    rows = [Figure(PAPER, "Table 3", row, "entire set share", printed) for row, printed in TABLE3.values()]
    needs = [inputs.why(label_file("paper", n)) for n, p in labels.items() if p is None]
    if elements is None or needs:
        return [f.absent(needs + ([] if elements else [inputs.why(ANNOTATIONS)])) for f in rows]
    labelled = _elements(inputs, "paper") or []
    note = f"labels at {PAPER_CATEGORIES_COMMIT[:7]} (the paper's)"
    return [f.settle(100 * sum(CATEGORIES[name] in e.categories for e in labelled) / len(labelled), n=len(labelled),
                     note=note) for f, name in zip(rows, TABLE3, strict=True)]


def table5(inputs: Inputs, elements: list[Element] | None) -> list[Figure]:
    """Table 5's pass rates, copied from the `pass_rate` cells of the paper's HumorBench-Hard list: the very file
    the table was made from. The graded runs behind them are not published (upstream's `analysis/hard_subsets/`
    holds earlier runs of another set of models), so they are `copied`, never a match."""
    rows = [Figure(PAPER, "Table 5", f"{'NYCC #' if isinstance(c, int) else ''}{c}", "pass rate (%)", printed,
                   kind="copied") for c, _, printed in TABLE5]
    path = inputs.file(HARD)
    if elements is None or path is None:
        needs = [inputs.why(ANNOTATIONS)] * (elements is None) + [inputs.why(HARD)] * (path is None)
        return [f.absent(needs) for f in rows]
    hard = read_hard(path, elements)
    note = (f"the pass_rate cell of {PAPER_HARD_UPSTREAM_PATH} at {PAPER_HARD_COMMIT[:7]}; the 15 graded runs "
            "behind it are not published")
    for figure, (cartoon, words, _) in zip(rows, TABLE5, strict=True):
        column = "contest_number" if isinstance(cartoon, int) else "cartoonstock_id"
        rates = {hard[e.element_id][0] for e in elements if e.element_id in hard and words in e.row["caption"]
                 and e.row[column] and (e.row[column] == cartoon or _number(e.row[column]) == cartoon)}
        if len(rates) != 1:
            figure.settle("not found", note=f"{len(rates)} hard captions of {cartoon} contain {words!r}")
            continue
        figure.settle(100 * rates.pop(), note=note)
    return rows


def _number(text: str) -> int | None:
    """An upstream contest cell (`2.0`) as a number."""
    try:
        return int(float(text))
    except ValueError:
        return None


def toxic_pass_rates(inputs: Inputs) -> list[Figure]:
    """Each leaderboard model's published toxic-or-shocking pass rate (docs/data.json), recomputed from the stored
    verdicts through the element metric with the leaderboard's own labels (cc99276), whatever else is present."""
    data, verdicts = inputs.file(humorbench_file(LEADERBOARD_DATA)), inputs.file(humorbench_file(TOXIC_VERDICTS))
    if data is None:
        return [Figure(PAPER, LEADERBOARD, "every model", "toxic or shocking pass rate", "(docs/data.json)")
                .absent([inputs.why(humorbench_file(LEADERBOARD_DATA))])]
    published = _published(data)
    rows = [Figure(PAPER, LEADERBOARD, display, "toxic or shocking pass rate", printed)
            for display, printed in published.values()]
    elements = _elements(inputs, "leaderboard")
    if verdicts is None or elements is None:
        needs = [inputs.why(humorbench_file(TOXIC_VERDICTS))] * (verdicts is None)
        needs += [inputs.why(ANNOTATIONS)] * (inputs.file(ANNOTATIONS) is None)
        needs += [inputs.why(label_file("leaderboard", n)) for n, p in label_files(inputs, "leaderboard").items()
                  if p is None]
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
                      f"['{TOXIC}'] over {category['n']} graded elements, labels at {HUMORBENCH_COMMIT[:7]}")
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
