"""Find upstream raw files by their upstream names anywhere below a folder."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SourceError

API_SUMMARY = re.compile(r"^(?P<contest>\d+)(?:-round(?P<round>\d+))?_summary_(?P<algo>[A-Za-z_]+)\.csv$")
NEXTML_SUMMARY = re.compile(r"^(?P<contest>\d+)(?:_(?P<algo>[A-Za-z][A-Za-z_-]*))?\.csv$")  # e.g. 559_lil-KLUCB
HESSEL_SHARD = re.compile(
    r"^newyorker_caption_contest-(?P<split>train|validation|test)(?:-\d{5}-of-\d{5})?\.parquet$"
)
ZHANG_GROUP_FILES = {
    "human_top10": "human_top.csv",
    "human_200": "human_200.csv",
    "human_1000": "human_1000.csv",
    "human_median": "human_median.csv",
}
HUMORBENCH_CATEGORY = re.compile(r"^categorized_output_(?P<name>[a-z_]+)\.csv$")
# HumorBench's element categories exist upstream in two versions. The paper's (Table 3's entire-set shares 24.4 /
# 19.0 / 25.7 %: wordplay 122, cultural reference 95, toxic or shocking 128 of 499) are
# `categorized_output_*.csv` at 41cacd4; the July 2025 leaderboard's later labels (119 / 181 / 78) are the same files
# at cc99276. The paper's are kept, renamed, in `analysis/paper_categories/` so one folder can hold both.
HUMORBENCH_REPO = "ReubenNarad/Humor-Bench"
HUMORBENCH_COMMIT = "cc99276f7cdff9f90d6316a61668e59be6bd1c7a"  # comprehensive_annotations.csv, the later labels
PAPER_CATEGORIES_COMMIT = "41cacd4b690596377d0a39e5ce7d05b33259f954"  # "preparing plots for paper", 2025-05-12
HUMORBENCH_LABELS = {"paper": PAPER_CATEGORIES_COMMIT, "leaderboard": HUMORBENCH_COMMIT}  # build option -> commit
PAPER_CATEGORIES_FOLDER = "paper_categories"
CATEGORY_FILES = ("wordplay", "cultural_reference", "toxic_or_shocking")  # categorized_output_<name>.csv
PAPER_CATEGORY = re.compile(rf"^paper_categories_{PAPER_CATEGORIES_COMMIT[:7]}_(?P<name>[a-z_]+)\.csv$")
# The paper's HumorBench-Hard list, as `download` stores it from upstream's pinned history (and ../shared/data
# keeps it); HEAD's `analysis/runs/full benchmark/` files of the same name are later lists that are not read.
PAPER_HARD_FOLDER, PAPER_HARD_FILE = "paper_hard_subset", "hard_subset_with_categories.csv"
PAPER_HARD_COMMIT = "6e87dbf1d552ce9440a04dd8c6bae21b0383bc9c"  # overwritten upstream in 927cefb
PAPER_HARD_UPSTREAM_PATH = "analysis/runs/full benchmark/hard_subset_with_categories.csv"
LEADERBOARD_FOLDERS = {"matching_test_set_public": "matching", "ranking_test_set_public": "ranking"}  # Hessel's zips
GPT4O_SPLITS = ("train", "validation", "test")
HESSEL_HF_REPO = "jmhessel/newyorker_caption_contest"  # pinned in `download`
HESSEL_HF_REVISION = "d81cbab7d0392708d5371d3a4960e69261824db4"  # main as of its last update (2023-12-22): parquet
ZHANG_HF_REPO = "yguooo/newyorker_caption_ranking"  # pinned in `download`; named here for the cards
ZHANG_HF_REVISION = "6cd125f293b7ab0700d64dc00cab870ecc07421e"
CARTOON_IMAGE = re.compile(r"^(?P<contest>\d+)\.(?:jpg|jpeg|png)$", re.IGNORECASE)


@dataclass(frozen=True)
class SummaryFile:
    """One nextml rating summary: one contest, one sampling run."""

    path: Path
    contest_number: int
    round: int
    algorithm: str
    repo: str  # "caption-contest-data-api" or "caption-contest-data"

    @property
    def run_id(self) -> str:
        """A stable identity of the rating run: upstream repo and file name without extension."""
        return f"{self.repo}/{self.path.stem}"


@dataclass
class SourceFiles:
    """Every upstream file found below one folder, grouped by what reads it."""

    roots: list[Path]
    summaries: list[SummaryFile] = field(default_factory=list)
    descriptions: Path | None = None
    zhang_groups: dict[str, Path] = field(default_factory=dict)
    hessel: dict[str, dict[str, list[Path]]] = field(default_factory=dict)  # config -> split -> shards
    hessel_leaderboard: dict[str, Path] = field(default_factory=dict)  # task -> <task>_test_set_public/instances.json
    humorbench_annotations: Path | None = None
    humorbench_categories: dict[str, Path] = field(default_factory=dict)  # the later labels (cc99276)
    humorbench_paper_categories: dict[str, Path] = field(default_factory=dict)  # the paper's (41cacd4)
    humorbench_hard: Path | None = None  # the paper's list: paper_hard_subset/hard_subset_with_categories.csv
    gpt4o_descriptions: dict[str, Path] = field(default_factory=dict)  # split -> gpt4o_description/<split>.jsonl
    cartoon_images: dict[int, Path] = field(default_factory=dict)  # contest -> cartoons/<n>.jpg (or source/)
    arena_votes: Path | None = None  # arena_votes.parquet, written by `nycc-bench arena export`


def _set_once(current: Path | None, found: Path, what: str) -> Path:
    """Keep a single file per role; two candidates are ambiguous, so name both."""
    if current is not None and current != found:
        raise SourceError(found, f"a second {what} was found (the first is {current})",
                          "keep one copy below --source, or point --source at a narrower folder")
    return found


def _files(root: Path) -> list[Path]:
    """Every file below `root` (symlinks followed), skipping hidden folders, virtualenvs and caches."""
    if not root.is_dir():
        raise SourceError(root, "the source folder does not exist", "pass an existing folder to --source")
    out = []
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in {"venv", "__pycache__"}]
        out += [Path(folder) / f for f in files]
    return sorted(out)


def _cartoon(found: SourceFiles, path: Path, rel: tuple[str, ...]) -> bool:
    """Classify a file below a `cartoons/` folder of Zhang's Hub dataset; refuse any other layout there."""
    if "cartoons" not in rel[:-1]:
        return False
    tail = rel[len(rel) - rel[::-1].index("cartoons"):]
    m = CARTOON_IMAGE.match(path.name)
    if m is None or tail not in ((path.name,), ("source", path.name)):
        raise SourceError(path, "unexpected file in the cartoons folder", "the layout must be cartoons/<n>.jpg or "
                          "cartoons/source/<n>.jpg (.png too); remove the file or report the new layout")
    contest = int(m["contest"])
    current = found.cartoon_images.get(contest)
    if current is None or (current.parent.name == "source" and len(tail) == 1):
        found.cartoon_images[contest] = path  # cartoons/<n> (the layout the authors' scripts read) wins
    elif current.parent == path.parent:
        raise SourceError(path, f"a second image of contest {contest} (the first is {current.name})",
                          "keep one image per contest")
    return True


def discover(*roots: Path) -> SourceFiles:
    """Walk the folders and classify upstream files by their upstream names."""
    found = SourceFiles(roots=[Path(r) for r in roots])
    seen_runs: dict[str, Path] = {}
    paths = [(p, p.relative_to(root).parts) for root in found.roots for p in _files(root)]
    for path, rel in paths:
        name, parent = path.name, path.parent.name
        summary = None
        if parent == "summaries" and (m := API_SUMMARY.match(name)):
            summary = SummaryFile(path, int(m["contest"]), int(m["round"] or 1), m["algo"],
                                  "caption-contest-data-api")
        elif parent == "summaries" and (m := NEXTML_SUMMARY.match(name)):
            summary = SummaryFile(path, int(m["contest"]), 1, m["algo"] or "", "caption-contest-data")
        if summary is not None:
            if summary.run_id in seen_runs:
                raise SourceError(path, f"rating run {summary.run_id} was already read from "
                                  f"{seen_runs[summary.run_id]}", "keep one copy of each summary file")
            seen_runs[summary.run_id] = path
            found.summaries.append(summary)
        elif name == "descriptions.txt":
            found.descriptions = _set_once(found.descriptions, path, "descriptions.txt")
        elif name in ZHANG_GROUP_FILES.values():
            key = next(k for k, v in ZHANG_GROUP_FILES.items() if v == name)
            found.zhang_groups[key] = _set_once(found.zhang_groups.get(key), path, name)
        elif m := HESSEL_SHARD.match(name):
            found.hessel.setdefault(parent, {}).setdefault(m["split"], []).append(path)
        elif name == "instances.json" and parent in LEADERBOARD_FOLDERS:
            task = LEADERBOARD_FOLDERS[parent]
            found.hessel_leaderboard[task] = _set_once(found.hessel_leaderboard.get(task), path, f"{parent}/{name}")
        elif name == "comprehensive_annotations.csv":
            found.humorbench_annotations = _set_once(found.humorbench_annotations, path, name)
        elif m := HUMORBENCH_CATEGORY.match(name):
            found.humorbench_categories[m["name"]] = _set_once(
                found.humorbench_categories.get(m["name"]), path, name)
        elif parent == PAPER_CATEGORIES_FOLDER and (m := PAPER_CATEGORY.match(name)):
            found.humorbench_paper_categories[m["name"]] = _set_once(
                found.humorbench_paper_categories.get(m["name"]), path, f"{parent}/{name}")
        elif name == PAPER_HARD_FILE and parent == PAPER_HARD_FOLDER:
            found.humorbench_hard = _set_once(found.humorbench_hard, path, f"{parent}/{name}")
        elif name == "arena_votes.parquet":
            found.arena_votes = _set_once(found.arena_votes, path, name)
        elif parent == "gpt4o_description" and path.suffix == ".jsonl" and path.stem in GPT4O_SPLITS:
            found.gpt4o_descriptions[path.stem] = _set_once(
                found.gpt4o_descriptions.get(path.stem), path, f"gpt4o_description/{name}")
        else:
            _cartoon(found, path, rel)
    return found
