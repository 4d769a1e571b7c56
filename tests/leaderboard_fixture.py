"""Hessel leaderboard sets in upstream's zip layout: `<task>_test_set_public/instances.json` and its JPEGs."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

from PIL import Image

LETTERS = {"matching": "ABCDE", "ranking": "AB"}


def _jpeg(k: int) -> bytes:
    """A tiny distinct JPEG."""
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (40 * k % 256, 90, 160)).save(buf, format="JPEG")
    return buf.getvalue()


def leaderboard_files(task: str, n: int = 3) -> dict[str, bytes]:
    """The zip's members as upstream lays them out: instance ids and image names are md5 hex like upstream's."""
    folder = f"{task}_test_set_public"
    files, instances = {}, []
    for k in range(n):
        image = hashlib.md5(f"{task} image {k}".encode()).hexdigest() + ".jpg"
        files[f"{folder}/{image}"] = _jpeg(k)
        instances.append({"choices": {letter: f"{task} caption {k}{letter}" for letter in LETTERS[task]},
                          "image": image, "instance_id": hashlib.md5(f"{task} {k}".encode()).hexdigest()})
    files[f"{folder}/instances.json"] = json.dumps(instances).encode()
    return files


def leaderboard_zip(task: str, n: int = 3) -> bytes:
    """`<task>_test_set_public.zip` as bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, data in leaderboard_files(task, n).items():
            archive.writestr(name, data)
    return buf.getvalue()


def write_leaderboard(root: Path, task: str, n: int = 3) -> list[str]:
    """Unzip the set below `root` (as `unzip <task>_test_set_public.zip` does); return its instance ids."""
    for name, data in leaderboard_files(task, n).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return [i["instance_id"] for i in json.loads((root / f"{task}_test_set_public" / "instances.json").read_text())]
