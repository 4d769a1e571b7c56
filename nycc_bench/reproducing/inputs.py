"""Where the public inputs of `reproduce` are: pinned upstream files, fetched into the upstream cache or found
below a folder (`--source DIR`, or `NYCC_BENCH_UPSTREAM_DIR` as an offline mirror of `--source upstream`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..builders.download import (
    GITHUB_SOURCES,
    HESSEL_REPO,
    DownloadError,
    GitHubSource,
    HubSource,
    fetch_github,
    fetch_hub,
)
from ..builders.errors import SourceError
from ..builders.sources import (
    CATEGORY_FILES,
    HESSEL_HF_REVISION,
    HUMORBENCH_COMMIT,
    HUMORBENCH_REPO,
    PAPER_CATEGORIES_COMMIT,
    SourceFiles,
    _files,
    discover,
)
from ..errors import NyccBenchError
from .figures import HESSEL, HUMORBENCH, ZHANG

ZHANG_REPO, ZHANG_COMMIT = "yguooo/cartoon-caption-generation", "91231db2029eaa3ce1fa4daaa12518fe021d050f"
# HumorBench's pins are the builder's (`builders/sources.py`): the leaderboard's files at HUMORBENCH_COMMIT, and
# the element categories behind the paper's Table 3 (122 / 95 / 128 of 499) at PAPER_CATEGORIES_COMMIT, kept under
# another name so that one folder can hold both commits' `categorized_output_*.csv`.
TOXIC_VERDICTS = "analysis/category_subsets/20250710_201058_toxic_or_shocking_subset.csv"
LEADERBOARD_DATA = "docs/data.json"


def paper_category_path(name: str) -> str:
    """Where the paper's labels of one category are kept (the upstream file is `categorized_output_<name>.csv`)."""
    return f"analysis/paper_categories/paper_categories_{PAPER_CATEGORIES_COMMIT[:7]}_{name}.csv"


@dataclass(frozen=True)
class Needed:
    """One pinned upstream file a figure reads: found below a folder by the tail of its kept path."""

    repo: str
    commit: str
    path: str  # upstream path
    kept: str = ""  # the path it is kept under when that differs (two commits' files of one name)

    @property
    def tail(self) -> str:
        """The path (relative) a file must end with to be this input."""
        return self.kept or self.path

    def __str__(self) -> str:
        return f"{self.repo}@{self.commit[:7]} {self.path}" + (f" (kept as {self.kept})" if self.kept else "")


def zhang_file(name: str) -> Needed:
    """One of upstream's stored generation (or human group) files."""
    return Needed(ZHANG_REPO, ZHANG_COMMIT, f"examples/generations/{name}.csv")


def humorbench_file(path: str) -> Needed:
    """A HumorBench file at the commit the builder pins."""
    return Needed(HUMORBENCH_REPO, HUMORBENCH_COMMIT, path)


def paper_category_file(name: str) -> Needed:
    """The paper's labels of one category (41cacd4)."""
    return Needed(HUMORBENCH_REPO, PAPER_CATEGORIES_COMMIT, f"categorized_output_{name}.csv", paper_category_path(name))


# What `--source upstream` fetches per paper (beside the builder's own pins, reused as they are).
_NEXTML = tuple(s for s in GITHUB_SOURCES if s.repo.startswith("nextml/"))
_PAPER_HARD = tuple(s for s in GITHUB_SOURCES if s.repo == HUMORBENCH_REPO and s.store_as)
FETCH: dict[str, tuple[GitHubSource | HubSource, ...]] = {
    ZHANG: (GitHubSource(ZHANG_REPO, ZHANG_COMMIT, ("examples/generations/*.csv",)), *_NEXTML),
    HUMORBENCH: (
        GitHubSource(HUMORBENCH_REPO, HUMORBENCH_COMMIT, ("comprehensive_annotations.csv", "categorized_output_*.csv",
                                                          LEADERBOARD_DATA, TOXIC_VERDICTS)),
        GitHubSource(HUMORBENCH_REPO, PAPER_CATEGORIES_COMMIT,
                     tuple(f"categorized_output_{n}.csv" for n in CATEGORY_FILES),
                     tuple((f"categorized_output_{n}.csv", paper_category_path(n)) for n in CATEGORY_FILES)),
        *_PAPER_HARD,
    ),
    HESSEL: (HubSource(HESSEL_REPO, HESSEL_HF_REVISION, ("matching_from_pixels/*.parquet",
                                                         "ranking_from_pixels/*.parquet")),),  # build's pin
}


@dataclass
class Inputs:
    """The folders the inputs were found in, and the upstream sources that could not be fetched (and why)."""

    roots: list[Path]
    failed: dict[str, str] = field(default_factory=dict)  # repo -> download error
    memo: dict[str, Any] = field(default_factory=dict)  # what one paper's figures read once and share

    def file(self, need: Needed) -> Path | None:
        """The one file below the roots whose path ends with the input's kept path; two are ambiguous."""
        parts = tuple(Path(need.tail).parts)
        if "files" not in self.memo:  # walked once, as discovery walks (links followed, hidden folders skipped)
            self.memo["files"] = sorted({p for root in self.roots for p in _files(root)})
        found = [p for p in self.memo["files"] if p.parts[-len(parts):] == parts]
        if len(found) > 1:
            raise SourceError(found[1], f"a second copy of {need.tail} (the first is {found[0]})",
                              "keep one copy below --source, or point --source at a narrower folder")
        return found[0] if found else None

    def why(self, need: Needed | str, repo: str | None = None) -> str:
        """The line naming an absent input, with the download error of its repository if it failed."""
        repo = need.repo if isinstance(need, Needed) else repo
        error = self.failed.get(repo or "")
        return f"{need}" + (f" (download failed: {error})" if error else "")

    @cached_property
    def sources(self) -> SourceFiles:
        """Every file the builders recognise below the roots (rating summaries, Hessel shards, ...)."""
        return discover(*self.roots)


def locate(source: str, papers: tuple[str, ...], progress: bool = True) -> Inputs:
    """`upstream`: fetch each paper's pinned sources into the upstream cache (or read `NYCC_BENCH_UPSTREAM_DIR`);
    a folder: read it as it is. A source that cannot be fetched leaves its figures "inputs not present"."""
    if source != "upstream":
        if not Path(source).is_dir():
            raise NyccBenchError(f"source: {source} is not a folder; pass --source upstream or a folder holding "
                                 "upstream files under their upstream names")
        return Inputs([Path(source)])
    if mirror := os.environ.get("NYCC_BENCH_UPSTREAM_DIR"):
        if not Path(mirror).is_dir():
            raise NyccBenchError(f"NYCC_BENCH_UPSTREAM_DIR: {mirror} is not a folder; unset it to download")
        return Inputs([Path(mirror)])
    import httpx

    inputs = Inputs([])
    with httpx.Client(timeout=60, follow_redirects=True) as client:
        for pin in dict.fromkeys(s for paper in papers for s in FETCH[paper]):
            try:
                folder = fetch_hub(pin) if isinstance(pin, HubSource) else fetch_github(pin, client, progress)
            except DownloadError as err:
                inputs.failed.setdefault(pin.repo, str(err).splitlines()[0])
                continue
            inputs.roots.append(folder)
    return inputs
