"""Fetch the real upstream sources (Hub dataset and pinned GitHub files) into the huggingface_hub cache."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from huggingface_hub import constants, snapshot_download
from tqdm.auto import tqdm

from ..errors import NyccBenchError
from .sources import (
    CATEGORY_FILES,
    HESSEL_HF_REVISION,
    HUMORBENCH_COMMIT,
    HUMORBENCH_REPO,
    PAPER_CATEGORIES_COMMIT,
    PAPER_CATEGORIES_FOLDER,
    PAPER_HARD_COMMIT,
    PAPER_HARD_FILE,
    PAPER_HARD_FOLDER,
    PAPER_HARD_UPSTREAM_PATH,
    ZHANG_HF_REPO,
    ZHANG_HF_REVISION,
)
from .sources import HESSEL_HF_REPO as HESSEL_REPO


class DownloadError(NyccBenchError):
    """An upstream source could not be fetched as pinned; the message names the URL or the repository."""


@dataclass(frozen=True)
class GitHubSource:
    """Files of one GitHub repository at a pinned commit, selected by glob patterns on their paths."""

    repo: str
    commit: str
    patterns: tuple[str, ...]
    store_as: tuple[tuple[str, str], ...] = ()  # (upstream path, local path): files kept under another name

    def local_path(self, path: str) -> str:
        """Where an upstream file is kept in the cache folder (its upstream path unless `store_as` renames it)."""
        return dict(self.store_as).get(path, path)


@dataclass(frozen=True)
class HubSource:
    """Files of one Hub dataset repository selected by `allow_patterns`; revision None is the default branch."""

    repo: str
    revision: str | None
    patterns: tuple[str, ...]


HUB_SOURCES = (
    HubSource(HESSEL_REPO, HESSEL_HF_REVISION, ("*/*.parquet",)),
    # Zhang et al.'s GPT-4o descriptions and cartoons (CC BY-NC 4.0). `ranking/` repeats the nextml summaries
    # and is not fetched; `cartoons/*` is fetched whole so an unexpected layout fails loudly at discovery.
    HubSource(ZHANG_HF_REPO, ZHANG_HF_REVISION, ("gpt4o_description/*.jsonl", "cartoons/*")),
)
GITHUB_SOURCES = (
    GitHubSource("nextml/caption-contest-data-api", "9e38b2b73a4541dd26111e05b90bcca6bdcae008",
                 ("contests/summaries/*_summary_*.csv", "contests/metadata/descriptions.txt")),
    # Contests 510-895: `summaries/<n>_<Sampler>.csv` (with `rank`) to 659, `summaries/<n>.csv` (no `rank`) after.
    GitHubSource("nextml/caption-contest-data", "2fac6c38cff48620911bd340f663060d79c95e1f", ("summaries/*.csv",)),
    GitHubSource("yguooo/cartoon-caption-generation", "91231db2029eaa3ce1fa4daaa12518fe021d050f",
                 ("examples/generations/human_*.csv",)),
    GitHubSource(HUMORBENCH_REPO, HUMORBENCH_COMMIT, ("comprehensive_annotations.csv", "categorized_output_*.csv")),
    # The paper's element categories (Table 3), kept where discovery looks for them beside the later ones.
    GitHubSource(HUMORBENCH_REPO, PAPER_CATEGORIES_COMMIT, tuple(f"categorized_output_{n}.csv" for n in CATEGORY_FILES),
                 tuple((f"categorized_output_{n}.csv", f"analysis/{PAPER_CATEGORIES_FOLDER}/paper_categories_"
                        f"{PAPER_CATEGORIES_COMMIT[:7]}_{n}.csv") for n in CATEGORY_FILES)),
    # The paper's HumorBench-Hard list survives only in upstream's history: kept where discovery looks for it.
    GitHubSource(HUMORBENCH_REPO, PAPER_HARD_COMMIT, (PAPER_HARD_UPSTREAM_PATH,),
                 ((PAPER_HARD_UPSTREAM_PATH, f"analysis/{PAPER_HARD_FOLDER}/{PAPER_HARD_FILE}"),)),
)


@dataclass(frozen=True)
class ZipSource:
    """One zip at a fixed URL, unpacked into the cache (Hessel's leaderboard sets). `sha256` None: not pinned by
    content, because no copy could be reached when the pin was written; the URL is the pin."""

    name: str  # the zip's stem, also the folder it is unpacked into
    url_path: str  # below `zip_root()`
    sha256: str | None = None


HESSEL_LEADERBOARD_ROOT = "https://storage.googleapis.com/ai2-mosaic-public/projects/nycc"
ZIP_SOURCES = tuple(ZipSource(f"{task}_test_set_public", f"{task}_test_set_public.zip")
                    for task in ("matching", "ranking"))


def zip_root() -> str:
    """Where Hessel's leaderboard zips are served; `NYCC_HESSEL_LEADERBOARD_URL` points it elsewhere."""
    return os.environ.get("NYCC_HESSEL_LEADERBOARD_URL", HESSEL_LEADERBOARD_ROOT).rstrip("/")


def fetch_zip(source: ZipSource, client: httpx.Client) -> Path:
    """Download and unpack one zip into the cache (kept: a second call downloads nothing); a corrupt zip, a
    digest other than the pinned one, or a member escaping the folder is a `DownloadError`."""
    import hashlib
    import io
    import shutil
    import zipfile

    folder = cache_root() / "hessel-leaderboard" / source.name
    if (folder / ".complete").exists():
        return folder
    url = f"{zip_root()}/{source.url_path}"
    data = _get(client, url).content
    if source.sha256 and hashlib.sha256(data).hexdigest() != source.sha256:
        raise DownloadError(f"{url}: sha256 {hashlib.sha256(data).hexdigest()} is not the pinned {source.sha256}")
    partial = folder.with_name(folder.name + ".incomplete")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if any(Path(n).is_absolute() or ".." in Path(n).parts for n in archive.namelist()):
                raise DownloadError(f"{url}: a member path leaves the folder")
            archive.extractall(partial)
    except zipfile.BadZipFile as err:
        raise DownloadError(f"{url}: not a readable zip ({err})") from err
    (partial / ".complete").write_text(hashlib.sha256(data).hexdigest() + "\n")
    shutil.rmtree(folder, ignore_errors=True)
    partial.replace(folder)
    return folder


def github_api() -> str:
    """GitHub's API root; `NYCC_GITHUB_API` points it elsewhere (a mirror, or a test server)."""
    return os.environ.get("NYCC_GITHUB_API", "https://api.github.com").rstrip("/")


def github_raw() -> str:
    """Root of raw file downloads; `NYCC_GITHUB_RAW` points it elsewhere."""
    return os.environ.get("NYCC_GITHUB_RAW", "https://raw.githubusercontent.com").rstrip("/")


def cache_root() -> Path:
    """Where GitHub files are kept: beside the Hub's own cache, so one cache setting governs both."""
    return Path(constants.HF_HUB_CACHE) / "nycc_bench-github"


def _selected(paths: list[str], patterns: tuple[str, ...]) -> list[str]:
    """Paths matching any pattern, where `*` never crosses a folder."""
    def match(path: str, pattern: str) -> bool:
        return path.count("/") == pattern.count("/") and fnmatch.fnmatchcase(path, pattern)
    return sorted(p for p in paths if any(match(p, pat) for pat in patterns))


def _get(client: httpx.Client, url: str) -> httpx.Response:
    """GET with a clear error: the status and URL, never a traceback from deep inside the HTTP client."""
    try:
        response = client.get(url)
    except httpx.HTTPError as err:
        raise DownloadError(f"cannot reach {url}: {err}") from err
    if response.status_code != 200:
        raise DownloadError(f"{url} answered {response.status_code}")
    return response


def github_files(source: GitHubSource, client: httpx.Client) -> list[str]:
    """The paths of the repository at its commit that the patterns select (one tree request, no file)."""
    tree = _get(client, f"{github_api()}/repos/{source.repo}/git/trees/{source.commit}?recursive=1")
    try:
        blobs = [e["path"] for e in tree.json()["tree"] if e["type"] == "blob"]
    except (ValueError, KeyError, TypeError) as err:
        raise DownloadError(f"{source.repo}@{source.commit}: the tree listing is not GitHub's format") from err
    paths = _selected(blobs, source.patterns)
    if not paths:
        raise DownloadError(f"{source.repo}@{source.commit}: no file matches {', '.join(source.patterns)}")
    return paths


def fetch_github(source: GitHubSource, client: httpx.Client, progress: bool = True) -> Path:
    """Download the selected files of one repository at its commit; files already cached are kept."""
    folder = cache_root() / source.repo.replace("/", "__") / source.commit
    paths = github_files(source, client)
    for path in tqdm(paths, desc=source.repo, unit="file", disable=not progress):
        target = folder / source.local_path(path)
        if target.exists():
            continue
        response = _get(client, f"{github_raw()}/{source.repo}/{source.commit}/{quote(path)}")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".incomplete")
        partial.write_bytes(response.content)
        partial.replace(target)  # a killed download never leaves a truncated file under the real name
    return folder


def _snapshot(source: HubSource, dry_run: bool) -> Any:
    """`snapshot_download` of one pinned Hub dataset, its failures as one-line `DownloadError`s."""
    try:  # HF_ENDPOINT is read now, not at import, so a mirror set at run time is honoured
        return snapshot_download(source.repo, repo_type="dataset", revision=source.revision,
                                 allow_patterns=list(source.patterns), endpoint=os.environ.get("HF_ENDPOINT"),
                                 cache_dir=constants.HF_HUB_CACHE, dry_run=dry_run)
    except (OSError, ValueError) as err:  # huggingface_hub's HTTP and offline errors derive from these
        raise DownloadError(f"{source.repo}@{source.revision or 'main'}: {str(err).splitlines()[0]}") from err


def fetch_hub(source: HubSource) -> Path:
    """Snapshot one Hub dataset at its revision into the Hub cache; files already cached are kept."""
    return Path(_snapshot(source, dry_run=False))


def hub_files(source: HubSource) -> list[str]:
    """The files `fetch_hub` would download (metadata requests only)."""
    return sorted(info.filename for info in _snapshot(source, dry_run=True))


def fetch_upstream(progress: bool = True, include_hessel: bool = True) -> list[Path]:
    """Fetch every upstream source; return the folders to build from (`nycc-bench build --source upstream`)."""
    folders = [fetch_hub(s) for s in HUB_SOURCES if include_hessel or s.repo != HESSEL_REPO]
    with httpx.Client(timeout=60, follow_redirects=True) as client:
        folders += [fetch_github(s, client, progress) for s in GITHUB_SOURCES]
        folders += [fetch_zip(s, client) for s in ZIP_SOURCES] if include_hessel else []
    return folders


@dataclass(frozen=True)
class PlannedSource:
    """One pinned source as `nycc-bench sources` lists it: where, which revision, which files."""

    kind: str  # "hub-dataset", "github" or "zip"
    repo: str
    revision: str
    patterns: tuple[str, ...]
    files: tuple[str, ...] | None  # None until resolved against the server

    def lines(self) -> list[str]:
        """Human-readable lines: a header, then the files (or the patterns when unresolved)."""
        head = f"{self.kind} {self.repo} @ {self.revision}"
        if self.files is None:
            return [head, *(f"  {p}  (pattern)" for p in self.patterns)]
        return [f"{head}  ({len(self.files)} files)", *(f"  {f}" for f in self.files)]


def planned_sources(resolve: bool = False) -> list[PlannedSource]:
    """Every pinned upstream source with its revision and the files `--source upstream` would fetch.

    Nothing is downloaded. Without `resolve` no network is used and the selection patterns are listed; with
    `resolve` only metadata is fetched (the GitHub tree at the commit, the Hub's file list at the revision)
    to list the exact files.
    """
    planned = []
    for hub in HUB_SOURCES:
        files = tuple(hub_files(hub)) if resolve else None
        planned.append(PlannedSource("hub-dataset", hub.repo, hub.revision or "main", hub.patterns, files))
    with httpx.Client(timeout=60, follow_redirects=True) as client:
        for gh in GITHUB_SOURCES:
            files = tuple(github_files(gh, client)) if resolve else None
            planned.append(PlannedSource("github", gh.repo, gh.commit, gh.patterns, files))
    for z in ZIP_SOURCES:
        planned.append(PlannedSource("zip", f"{zip_root()}/{z.url_path}",
                                     f"sha256 {z.sha256}" if z.sha256 else "URL only (sha256 not pinned)",
                                     ("instances.json", "*.jpg"), None))
    return planned


def format_sources(planned: list[PlannedSource]) -> str:
    """The text `nycc-bench sources` prints."""
    return "\n".join(line for source in planned for line in source.lines())
