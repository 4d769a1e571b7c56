"""What produced a number: library versions and device, the data's fingerprint, the checkout's commit, the model."""

from __future__ import annotations

import hashlib
import importlib.metadata
import platform
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

LIBRARIES = ("torch", "transformers", "datasets", "evaluate")


def _version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def environment() -> dict[str, Any]:
    """Python, the libraries that touch the numbers, the platform, and the accelerator if torch is loaded."""
    device = "cpu"
    torch = sys.modules.get("torch")  # never imported here just to ask
    if torch is not None and torch.cuda.is_available():
        device = f"cuda: {torch.cuda.get_device_name(0)}"
    return {"python": platform.python_version(), **{lib: _version(lib) for lib in LIBRARIES},
            "platform": platform.platform(), "device": device}


def git_commit() -> str | None:
    """The commit of the nycc-bench checkout this runs from (a `+dirty` suffix when it has changes), else None."""
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return None
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return sha + ("+dirty" if dirty else "")


def dataset_record(dataset: str, configs: Iterable[str]) -> dict[str, Any]:
    """The dataset and a sha256 over the parquet files of the configs used (a local folder), else the Hub id."""
    root = Path(dataset)
    record: dict[str, Any] = {"name": str(dataset), "revision": None, "fingerprint": None, "sample": False}
    if not root.is_dir():
        return record
    digest = hashlib.sha256()
    for config in sorted(set(configs)):
        for f in sorted((root / "data" / config).glob("*.parquet")):
            digest.update(f"{config}/{f.name}\0".encode())
            digest.update(hashlib.sha256(f.read_bytes()).digest())
    record["fingerprint"] = "sha256:" + digest.hexdigest()
    card = root / "README.md"
    record["sample"] = card.exists() and "sample-data" in card.read_text(encoding="utf-8", errors="replace")[:4000]
    return record


def model_record(description: dict[str, Any]) -> dict[str, Any]:
    """How results name the model, from a system's `describe()`."""
    spec = description["spec"]
    kind = spec.partition(":")[0]
    source = description.get("source") or ("baseline" if kind in ("random", "length", "sbert") else kind)
    return {"spec": spec, "name": description.get("model") or spec, "source": source,
            "revision": description.get("revision"), "fingerprint": description.get("fingerprint"),
            "parameters": description.get("parameters"),
            **({"endpoint": description["endpoint"]} if description.get("endpoint") else {}),
            **({"served": description["served"]} if description.get("served") else {})}
