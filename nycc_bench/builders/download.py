"""Fetch the real upstream sources (Hub dataset and pinned GitHub files) into the huggingface_hub cache."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx
from huggingface_hub import constants, snapshot_download
from tqdm.auto import tqdm

from ..errors import NyccBenchError

HESSEL_REPO = "jmhessel/newyorker_caption_contest"


class DownloadError(NyccBenchError):
    """An upstream source could not be fetched as pinned; the message names the URL or the repository."""


@dataclass(frozen=True)
class GitHubSource:
    """Files of one GitHub repository at a pinned commit, selected by glob patterns on their paths."""

    repo: str
    commit: str
    patterns: tuple[str, ...]


GITHUB_SOURCES = (
    GitHubSource("nextml/caption-contest-data-api", "9e38b2b73a4541dd26111e05b90bcca6bdcae008",
                 ("contests/summaries/*_summary_*.csv", "contests/metadata/descriptions.txt")),
    GitHubSource("yguooo/cartoon-caption-generation", "91231db2029eaa3ce1fa4daaa12518fe021d050f",
                 ("examples/generations/human_*.csv",)),
    GitHubSource("ReubenNarad/Humor-Bench", "cc99276f7cdff9f90d6316a61668e59be6bd1c7a",
                 ("comprehensive_annotations.csv", "categorized_output_*.csv",
                  "analysis/runs/full benchmark/hard_subset.csv")),
)


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


def fetch_github(source: GitHubSource, client: httpx.Client, progress: bool = True) -> Path:
    """Download the selected files of one repository at its commit; files already cached are kept."""
    folder = cache_root() / source.repo.replace("/", "__") / source.commit
    tree = _get(client, f"{github_api()}/repos/{source.repo}/git/trees/{source.commit}?recursive=1")
    paths = _selected([e["path"] for e in tree.json()["tree"] if e["type"] == "blob"], source.patterns)
    if not paths:
        raise DownloadError(f"{source.repo}@{source.commit}: no file matches {', '.join(source.patterns)}")
    for path in tqdm(paths, desc=source.repo, unit="file", disable=not progress):
        target = folder / path
        if target.exists():
            continue
        response = _get(client, f"{github_raw()}/{source.repo}/{source.commit}/{quote(path)}")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".incomplete")
        partial.write_bytes(response.content)
        partial.replace(target)  # a killed download never leaves a truncated file under the real name
    return folder


def fetch_upstream(progress: bool = True, include_hessel: bool = True) -> list[Path]:
    """Fetch every upstream source; return the folders to build from (`nycc-bench build --source upstream`)."""
    folders = []
    if include_hessel:
        # HF_ENDPOINT is read now, not at import, so a mirror set at run time is honoured.
        folders.append(Path(snapshot_download(
            HESSEL_REPO, repo_type="dataset", allow_patterns=["*/*.parquet"],
            endpoint=os.environ.get("HF_ENDPOINT"), cache_dir=constants.HF_HUB_CACHE)))
    with httpx.Client(timeout=60, follow_redirects=True) as client:
        folders += [fetch_github(s, client, progress) for s in GITHUB_SOURCES]
    return folders
