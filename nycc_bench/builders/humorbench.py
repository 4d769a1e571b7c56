"""HumorBench (Narad et al. 2025) configs: `humorbench`, `humorbench_hard` (the paper's list); a row per caption."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from ..errors import NyccBenchError
from ..feature_types import list_of, value
from .csvfile import read_dicts
from .errors import SourceError
from .options import BuildOptions
from .sources import HUMORBENCH_LABELS, PAPER_HARD_COMMIT, SourceFiles
from .writer import BuiltConfig, ConfigSpec

ANNOTATION_COLUMNS = ["idx", "cartoonstock_id", "contest_number", "description", "caption", "element"]
HARD_COLUMNS = [*ANNOTATION_COLUMNS, "pass_rate", "num_attempts"]
# File name part -> category name as the files spell their column (and as results report it).
CATEGORIES = {"wordplay": "wordplay", "cultural_reference": "cultural reference",
              "toxic_or_shocking": "toxic or shocking"}

log = logging.getLogger("nycc_bench")
STR = value("string")
BASE = {
    "caption_id": STR, "contest_number": value("int32"), "cartoonstock_id": STR,
    "description": STR, "caption": STR, "elements": list_of(STR), "element_ids": list_of(STR),
    "element_categories": list_of(list_of(STR)), "category_labels": STR,
}
HUMORBENCH = ConfigSpec(
    name="humorbench", family="humorbench",
    features={**BASE, "element_in_hard": list_of(value("bool"))},
    description=(
        "Explain the joke: one row per cartoon caption with its cartoon `description` and the objective "
        "`elements` an explanation must contain (1-3 per caption). An LLM autograder marks each element "
        "PASS or FAIL. `element_ids` are the upstream `idx` (an idx that upstream uses for two elements "
        "gets `-2` on its second element); `element_categories` lists each element's categories (wordplay, "
        "cultural reference, toxic or shocking; LLM-assigned upstream), from upstream's labels at the commit "
        "`category_labels` names (the paper's, 41cacd4, by default; `nycc-bench build --humorbench-labels "
        "leaderboard`: the later cc99276 labels); `element_in_hard` marks the elements "
        "of `humorbench_hard`. NYCC cartoons carry `contest_number`, CartoonStock ones `cartoonstock_id`."
    ),
)
HUMORBENCH_HARD = ConfigSpec(
    name="humorbench_hard", family="humorbench",
    features={**BASE, "element_pass_rates": list_of(value("float64")), "element_num_attempts": list_of(value("int32")),
              "element_hard_ranks": list_of(value("int32"))},
    description=(
        "HumorBench-Hard as the paper scored it (section 4.4, Tables 4-5): the 100 captions most often missed, "
        "with all their elements (164). The list is upstream's `analysis/runs/full benchmark/"
        f"hard_subset_with_categories.csv` at commit {PAPER_HARD_COMMIT[:7]} (July 2025): upstream's "
        "`reports/main_benchmark_results.py` at that commit pooled, per caption, the PASS/FAIL verdicts of 15 "
        "benchmark runs, kept captions with at least 3 gradings, took the 100 lowest pass rates and scored a "
        "model on the hard subset as element accuracy (PASS over PASS+FAIL) over these captions' elements. "
        "Table 5's example pass rates are this file's. `element_pass_rates` and `element_num_attempts` are the "
        "file's (per caption: every element of a caption shares them; attempts = 15 runs x elements); "
        "`element_hard_ranks` is each element's 0-based row in the file (sorted by pass rate). The paper's text "
        "says \"100 unique elements\", but its numbers come from these 100 captions. The upstream leaderboard's "
        "July hard list was element-level and was never written to a file; "
        "`nycc_bench.builders.hard_subset.hard_subset(runs)` applies that element-level rule to any set of "
        "graded runs (the leaderboard's \"Hard, leaderboard rule\")."
    ),
)
CONFIGS = {c.name: c for c in (HUMORBENCH, HUMORBENCH_HARD)}


@dataclass
class Element:
    """One annotation row: an element of one caption's rubric."""

    idx: int
    element_id: str
    row: dict[str, str]
    categories: list[str] = field(default_factory=list)


def _read_rows(path: Path, columns: list[str]) -> list[dict[str, str]]:
    """Read a HumorBench CSV whose header must hold `columns` (encoding, truncation and width checked)."""
    return read_dicts(path, columns)


def _int(path: Path, row: int, name: str, value: str, allow_empty: bool = False) -> int | None:
    """Parse an integer cell (upstream writes contest numbers as `2.0`)."""
    if value == "" and allow_empty:
        return None
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if number != number or number != int(number):
        raise SourceError(path, f"column {name} holds {value!r}, not a whole number",
                          f"write a whole number in {name}", row=row)
    return int(number)


def category_files(sources: SourceFiles, labels: str = "paper") -> tuple[dict[str, Path], str]:
    """The category files of the `labels` version (`paper`: 41cacd4, Table 3's; `leaderboard`: cc99276) and the
    commit they are; the paper's version falls back to the later one, named by its commit, when the source folder
    lacks `analysis/paper_categories/` (a results record then lists the later labels as a deviation)."""
    if labels not in HUMORBENCH_LABELS:
        raise NyccBenchError(f"humorbench-labels: unknown labels {labels!r}; use one of {', '.join(HUMORBENCH_LABELS)}")
    if labels == "paper" and sources.humorbench_paper_categories:
        return sources.humorbench_paper_categories, HUMORBENCH_LABELS["paper"][:7]
    if labels == "paper" and sources.humorbench_categories:
        log.warning("humorbench: the paper's element categories (analysis/paper_categories/, upstream 41cacd4) are "
                    "not in the source; using categorized_output_*.csv (cc99276, the leaderboard's later labels)")
    return sources.humorbench_categories, HUMORBENCH_LABELS["leaderboard"][:7]


def read_elements(sources: SourceFiles, labels: str = "paper") -> list[Element]:
    """Annotations joined with their categories (the `labels` version, `category_files`), validated; (idx,
    element) is the unique key."""
    path = sources.humorbench_annotations
    assert path is not None
    elements: list[Element] = []
    seen_key: dict[tuple[int, str], int] = {}
    idx_count: dict[int, int] = {}
    for i, row in enumerate(_read_rows(path, ANNOTATION_COLUMNS), start=1):
        idx = _int(path, i, "idx", row["idx"])
        _int(path, i, "contest_number", row["contest_number"], allow_empty=True)
        if not row["contest_number"] and not row["cartoonstock_id"]:
            raise SourceError(path, "neither contest_number nor cartoonstock_id is set",
                              "say which cartoon the caption belongs to", row=i)
        for name in ("caption", "element", "description"):
            if not row[name].strip():
                raise SourceError(path, f"{name} is empty", f"write the {name}", row=i)
        key = (idx, row["element"])
        if key in seen_key:
            raise SourceError(path, f"idx {idx} with this element repeats row {seen_key[key]}",
                              "keep one row per (idx, element)", row=i)
        seen_key[key] = i
        idx_count[idx] = idx_count.get(idx, 0) + 1
        suffix = "" if idx_count[idx] == 1 else f"-{idx_count[idx]}"
        elements.append(Element(idx, f"{idx}{suffix}", row))
    for file_key, path_c in sorted(category_files(sources, labels)[0].items()):
        if file_key not in CATEGORIES:
            raise SourceError(path_c, f"unknown category file {path_c.name}",
                              f"expected one of {', '.join(CATEGORIES)}")
        column = CATEGORIES[file_key]
        rows = _read_rows(path_c, ["idx", column])
        if len(rows) != len(elements):
            raise SourceError(path_c, f"{len(rows)} rows for {len(elements)} annotation rows",
                              "keep one category row per annotation row, in the same order")
        for i, (row, element) in enumerate(zip(rows, elements, strict=True), start=1):
            if _int(path_c, i, "idx", row["idx"]) != element.idx:
                raise SourceError(path_c, f"idx {row['idx']} where the annotations have {element.idx}",
                                  "keep the annotation file's row order", row=i)
            if row[column] not in ("True", "False"):
                raise SourceError(path_c, f"{column} holds {row[column]!r}", "write True or False", row=i)
            if row[column] == "True":
                element.categories.append(column)
    return elements


def read_hard(path: Path | None, elements: list[Element]) -> dict[str, tuple[float, int, int]]:
    """element_id -> (pass_rate, num_attempts, row) for every row of the paper's hard list, validated.

    The list is caption-level: all elements of a caption share its pass rate and attempt count, and a listed
    caption brings all its annotation rows. A row naming an element twice or one not in the annotations, a pass
    rate outside 0..1, fewer than one attempt, or a caption with differing rates or missing elements is an error.
    """
    if path is None:
        return {}
    by_key = {(e.idx, e.row["element"]): e for e in elements}
    out: dict[str, tuple[float, int, int]] = {}
    first_row: dict[str, int] = {}
    per_caption: dict[str, tuple[float, int, int]] = {}
    for i, row in enumerate(_read_rows(path, HARD_COLUMNS), start=1):
        key = (_int(path, i, "idx", row["idx"]), row["element"])
        if key not in by_key:
            raise SourceError(path, f"idx {key[0]} with this element is not in the annotations",
                              "use rows of comprehensive_annotations.csv", row=i)
        try:
            rate = float(row["pass_rate"])
        except ValueError:
            rate = float("nan")
        if not 0 <= rate <= 1:  # also catches nan
            raise SourceError(path, f"pass_rate {row['pass_rate']!r} is not a fraction in 0..1",
                              "write the share of passing runs, between 0 and 1", row=i)
        attempts = _int(path, i, "num_attempts", row["num_attempts"])
        assert attempts is not None
        if attempts < 1:
            raise SourceError(path, f"num_attempts {attempts} is below 1",
                              "write the number of graded runs (1 or more)", row=i)
        element_id = by_key[key].element_id
        if element_id in first_row:
            raise SourceError(path, f"idx {key[0]} with this element repeats row {first_row[element_id]}",
                              "keep one row per element", row=i)
        caption = row["caption"]
        seen = per_caption.setdefault(caption, (rate, attempts, i))
        if seen[:2] != (rate, attempts):
            raise SourceError(path, f"pass_rate/num_attempts {rate}/{attempts} differ from row {seen[2]} of the "
                              "same caption", "give every element of a caption the caption's rate", row=i)
        first_row[element_id] = i
        out[element_id] = (rate, attempts, i - 1)
    missing = [e.element_id for e in elements if e.row["caption"] in per_caption and e.element_id not in out]
    if missing:
        raise SourceError(path, f"listed captions lack elements {', '.join(missing[:5])}",
                          "list every annotation row of a hard caption (the list is caption-level)")
    return out


def _caption_rows(elements: list[Element], hard: dict[str, tuple[float, int, int]],
                  only_hard: bool, commit: str) -> list[dict]:
    """Group elements by caption (cartoon + caption text), keeping upstream order."""
    rows: dict[tuple[str, str, str, str], dict] = {}
    for e in elements:
        if only_hard and e.element_id not in hard:
            continue
        r = e.row
        key = (r["contest_number"], r["cartoonstock_id"], r["description"], r["caption"])
        out = rows.setdefault(key, {
            "caption_id": str(e.idx), "contest_number": int(float(r["contest_number"])) if r["contest_number"]
            else None, "cartoonstock_id": r["cartoonstock_id"] or None, "description": r["description"],
            "caption": r["caption"], "elements": [], "element_ids": [], "element_categories": [],
            "category_labels": commit,
        })
        out["elements"].append(r["element"])
        out["element_ids"].append(e.element_id)
        out["element_categories"].append(e.categories)
        if only_hard:
            out.setdefault("element_pass_rates", []).append(hard[e.element_id][0])
            out.setdefault("element_num_attempts", []).append(hard[e.element_id][1])
            out.setdefault("element_hard_ranks", []).append(hard[e.element_id][2])
        else:
            out.setdefault("element_in_hard", []).append(e.element_id in hard)
    return list(rows.values())


def build(sources: SourceFiles, configs: set[str], progress: bool = True,
          options: BuildOptions | None = None) -> list[BuiltConfig]:
    """Build the HumorBench configs when `comprehensive_annotations.csv` is there (`options.humorbench_labels`:
    which upstream element categories)."""
    if sources.humorbench_annotations is None or not (configs & set(CONFIGS)):
        return []
    labels = (options or BuildOptions()).humorbench_labels
    commit = category_files(sources, labels)[1]
    elements = read_elements(sources, labels)
    hard = read_hard(sources.humorbench_hard, elements)
    built = []
    for spec, only_hard in ((HUMORBENCH, False), (HUMORBENCH_HARD, True)):
        if spec.name in configs and (hard or not only_hard):
            table = pa.Table.from_pylist(_caption_rows(elements, hard, only_hard, commit),
                                         schema=spec.arrow_schema)
            built.append(BuiltConfig(spec, {"test": table}))
    return built
