"""Saved judge folders: find one locally or on the Hub, read and write its config and weights (no pickle)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "head.safetensors"
CARD_FILE = "README.md"
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def resolve_folder(path_or_repo: str | Path, required: Sequence[str], kind: str) -> Path:
    """A local folder holding `required`, or a Hub repo id downloaded with `huggingface_hub.snapshot_download`.

    A path that does not exist is tried on the Hub only when it reads as ``owner/name``; anything else, a
    failed download or a missing file is a ValueError naming what was looked for.
    """
    text = str(path_or_repo)
    path = Path(path_or_repo)
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"{kind}: {text} is a file; expected the saved folder ({', '.join(required)})")
    elif _REPO_ID.match(text) and ".." not in text:
        from huggingface_hub import snapshot_download

        try:
            path = Path(snapshot_download(repo_id=text))
        except Exception as err:  # offline, unknown repo, gated: all mean "not loadable" to the caller
            raise ValueError(
                f"{kind}: {text!r} is not a local folder and could not be downloaded from the Hub ({err})"
            ) from err
    else:
        raise ValueError(f"{kind}: no folder at {text} (expected a saved folder or a Hub repo id 'owner/name')")
    missing = [name for name in required if not (path / name).is_file()]
    if missing:
        raise ValueError(f"{kind}: {path} lacks {', '.join(missing)}; is it a folder saved by nycc-bench?")
    return path


def read_config(folder: Path, expected_format: str) -> dict[str, Any]:
    """config.json, checked to be of the expected format."""
    config = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
    if config.get("format") != expected_format:
        raise ValueError(
            f"{folder / CONFIG_FILE}: format {config.get('format')!r}, expected {expected_format!r}"
        )
    return config


def write_folder(folder: str | Path, config: Mapping[str, Any], tensors: Mapping[str, np.ndarray], card: str) -> Path:
    """Write config.json, head.safetensors and README.md into `folder` (created if needed)."""
    from safetensors.numpy import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG_FILE).write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(folder / WEIGHTS_FILE))
    (folder / CARD_FILE).write_text(card, encoding="utf-8")
    return folder


def read_tensors(folder: Path) -> dict[str, np.ndarray]:
    """The arrays of head.safetensors."""
    from safetensors.numpy import load_file

    return load_file(str(folder / WEIGHTS_FILE))


def fmt_rate(value: float | None, low: float | None = None, high: float | None = None) -> str:
    """A rate as a percentage with its interval, for the cards.

    >>> fmt_rate(0.8123, 0.75, 0.86), fmt_rate(None)
    ('81.2% [75.0, 86.0]', 'n/a')
    """
    if value is None:
        return "n/a"
    text = f"{100 * value:.1f}%"
    return text if low is None or high is None else f"{text} [{100 * low:.1f}, {100 * high:.1f}]"
