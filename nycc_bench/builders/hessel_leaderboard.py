"""Hessel et al.'s hidden-label leaderboard sets: `matching_leaderboard` and `ranking_leaderboard`, no labels.

Upstream (jmhessel/caption_contest_corpus README, "Leaderboard setting") ships each set as a zip,
`<task>_test_set_public.zip`, holding a folder `<task>_test_set_public/` with `instances.json` (a list of
`{"choices": {"A": ..}, "image": "<md5>.jpg", "instance_id": ..}`) and the cartoon JPEGs beside it. There are no
labels and no cartoon descriptions: a prediction goes to the leaderboard's server as a submission
(`nycc_bench.submission`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from ..feature_types import arrow_schema, image, list_of, value
from .cartoons import read_image
from .csvfile import decode, read_bytes
from .errors import SourceError
from .options import BuildOptions
from .sources import SourceFiles
from .writer import BuiltConfig, ConfigSpec

LETTERS = {"matching": "ABCDE", "ranking": "AB"}
UPSTREAM_SIZE = {"matching": 830, "ranking": 664}  # the README's counts (the description quotes them)
STR = value("string")
FEATURES = {"image": image(), "caption_choices": list_of(STR), "instance_id": STR}


def _spec(task: str) -> ConfigSpec:
    """One leaderboard config, described as upstream gives it."""
    return ConfigSpec(
        name=f"{task}_leaderboard", family="hessel2023", features=FEATURES,
        description=(f"Hessel et al.'s {task} leaderboard set ({UPSTREAM_SIZE[task]} instances upstream, "
                     f"`{task}_test_set_public.zip`): the cartoon image and the captions (letters "
                     f"{', '.join(LETTERS[task])} in order), as upstream gives them: no label (hidden) and no "
                     "description. Predictions are submitted as `{instance_id: letter}` "
                     "(`nycc-bench submission check`)."))


CONFIGS = {s.name: s for s in (_spec(t) for t in LETTERS)}


def read_instances(path: Path, task: str) -> pa.Table:
    """One `instances.json` with its images (beside it), validated: letters, images, unique ids."""
    try:
        items = json.loads(decode(path, read_bytes(path)))
    except ValueError as err:
        raise SourceError(path, f"not JSON ({str(err).splitlines()[0]})", "download the zip again") from None
    if not isinstance(items, list) or not items:
        raise SourceError(path, "not a non-empty list of instances", "use upstream's instances.json")
    rows, seen = [], {}
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not {"choices", "image", "instance_id"} <= item.keys():
            raise SourceError(path, "an instance needs choices, image and instance_id",
                              "use upstream's instances.json", row=i)
        choices, iid, image = item["choices"], item["instance_id"], item["image"]
        if not isinstance(choices, dict) or sorted(choices) != list(LETTERS[task]) \
                or not all(isinstance(c, str) for c in choices.values()):
            raise SourceError(path, f"choices must map {', '.join(LETTERS[task])} to captions",
                              f"give each {task} instance its {len(LETTERS[task])} captions", row=i)
        if not isinstance(iid, str) or not iid:
            raise SourceError(path, "instance_id is empty", "give every instance an id", row=i)
        if iid in seen:
            raise SourceError(path, f"instance_id {iid} repeats row {seen[iid]}", "keep one row per id", row=i)
        seen[iid] = i
        image_path = path.parent / str(image)
        if Path(str(image)).name != image or not image_path.is_file():
            raise SourceError(path, f"image {image!r} is not beside instances.json",
                              "unzip the whole folder (instances.json and its JPEGs)", row=i)
        rows.append({"image": read_image(image_path), "caption_choices": [choices[k] for k in LETTERS[task]],
                     "instance_id": iid})
    return pa.Table.from_pylist(rows, schema=arrow_schema(FEATURES))


def build(sources: SourceFiles, configs: set[str], progress: bool = True,
          options: BuildOptions | None = None) -> list[BuiltConfig]:
    """Build each leaderboard config whose `instances.json` was found (`options`: none apply)."""
    return [BuiltConfig(CONFIGS[f"{task}_leaderboard"], {"test": read_instances(path, task)})
            for task, path in sorted(sources.hessel_leaderboard.items()) if f"{task}_leaderboard" in configs]
