"""Publish nycc-bench on the Hugging Face Hub: stage, check and push the dataset, metric Spaces, Spaces and model cards.

`upload.py` (repository root) is the command line; `stage` builds the folders, `validate` and `files` check
them, `hub` pushes them, `cards` writes model cards from results records (`local_hub.py`, served by `nycc-bench hub
serve`, stands in for the Hub).
"""

from __future__ import annotations

from pathlib import Path

from .. import __version__

ROOT = Path(__file__).resolve().parents[2]
NAMESPACE = "nycc-bench"
DATASET_NAME = "newyorker-caption-contest"  # the repo name of nycc_bench.kinds.instances.DEFAULT_DATASET
PROJECT_URL = "https://github.com/nycc-bench/nycc-bench"
# Spaces install the release they were staged with, from PyPI; `--package-spec` overrides it (e.g. a git URL pinned
# to a tag or commit, before a release is on PyPI).
DEFAULT_PACKAGE_SPEC = f"nycc-bench=={__version__}"
GIT_PACKAGE_SPEC = f"nycc-bench @ git+{PROJECT_URL}@v{__version__}"
SPACE_PYTHON = "3.11"  # the package needs Python >= 3.11; Spaces default to an older one
KINDS = ("dataset", "metrics", "spaces", "models")


class PublishError(ValueError):
    """Something that stops a publication before anything is pushed; the message says what to fix."""


def dataset_id(namespace: str) -> str:
    """The Hub id of the dataset repo in a namespace."""
    return f"{namespace}/{DATASET_NAME}"
