"""The `cartoons` config: one row per contest with its image and every scene description, each with its source.

Zhang et al.'s Hub dataset (`yguooo/newyorker_caption_ranking`, CC BY-NC 4.0) gives GPT-4o descriptions
(`gpt4o_description/{train,validation,test}.jsonl`: `contest_number`, `location`, `canny`, `uncanny`,
`entities`) and the cartoons (`cartoons/<n>.jpg`, or `cartoons/source/<n>.jpg` in an older revision); Hessel et
al.'s corpus (CC BY 4.0) gives human-written descriptions and images of the contests it covers; nextml gives a
one-line description (CC BY 4.0). Anything derived from the Zhang Hub dataset carries CC BY-NC 4.0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from ..contests import SPLITS, zhang_split
from ..feature_types import image, list_of, value
from .csvfile import decode, read_bytes
from .errors import SourceError
from .sources import GPT4O_SPLITS, ZHANG_HF_REPO, SourceFiles
from .writer import ConfigSpec

NC = "cc-by-nc-4.0"
BY = "cc-by-4.0"
HESSEL_SOURCE = "jmhessel/newyorker_caption_contest (matching, fold 0)"
NEXTML_SOURCE = "nextml/caption-contest-data-api contests/metadata/descriptions.txt"
GPT4O_COLUMNS = {"gpt4o_location": "location", "gpt4o_canny": "canny", "gpt4o_uncanny": "uncanny"}
IMAGE_MAGIC = {b"\xff\xd8\xff": "JPEG", b"\x89PNG\r\n\x1a\n": "PNG"}

STR, I32 = value("string"), value("int32")
GPT4O_FEATURES = {"gpt4o_location": STR, "gpt4o_canny": STR, "gpt4o_uncanny": STR,
                  "gpt4o_entities": list_of(STR)}
CARTOONS = ConfigSpec(
    name="cartoons",
    family="zhang2024",
    features={
        "contest_number": I32, "image": image(), "image_source": STR, "image_license": STR,
        **GPT4O_FEATURES, "gpt4o_split": STR, "gpt4o_source": STR, "gpt4o_license": STR,
        "hessel_location": STR, "hessel_description": STR, "hessel_uncanny_description": STR,
        "hessel_entities": list_of(STR), "hessel_source": STR, "hessel_license": STR,
        "nextml_description": STR, "nextml_source": STR, "nextml_license": STR, "duplicate_of": I32,
    },
    description=(
        "One row per contest: the cartoon and every scene description known for it, each with its source and "
        "license. `gpt4o_*`: Zhang et al.'s GPT-4o descriptions (scene `location`, `canny` description, "
        "`uncanny` description, `entities`; `gpt4o_split` is the file they came from, validation/test being "
        "Zhang's held-out contests), what the paper prompts language-only models with. `hessel_*`: Hessel et "
        "al.'s human annotations where their corpus has the contest. `nextml_description`: the one-line "
        "description from nextml. `image` is Zhang et al.'s cartoon where their Hub dataset has it, else "
        "Hessel et al.'s; `image_source` says which file. `duplicate_of` names an earlier contest whose "
        "caption list is identical (an upstream fault: 643/644, 646/647, 655/656, 665/666). Split as the "
        "other Zhang configs (held-out contests are validation/test)."
    ),
)


def _text(path: Path, row: int, record: dict, key: str) -> str:
    """A string field of a description record."""
    value = record.get(key)
    if not isinstance(value, str):
        raise SourceError(path, f"field {key} is {type(value).__name__}, not a string",
                          f"write {key} as a JSON string", row=row)
    return value


def read_gpt4o(paths: dict[str, Path]) -> dict[int, dict]:
    """contest -> {gpt4o_location, gpt4o_canny, gpt4o_uncanny, gpt4o_entities, gpt4o_split} from the JSONL files."""
    out: dict[int, dict] = {}
    where: dict[int, str] = {}
    for split in GPT4O_SPLITS:
        if (path := paths.get(split)) is None:
            continue
        lines = decode(path, read_bytes(path)).splitlines()
        for row, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise SourceError(path, f"line is not JSON ({err.msg}; truncated?)", "download the file again",
                                  row=row) from None
            if not isinstance(record, dict):
                raise SourceError(path, "line is not a JSON object", "write one object per line", row=row)
            contest = record.get("contest_number")
            if isinstance(contest, bool) or not isinstance(contest, int):
                raise SourceError(path, f"contest_number is {contest!r}, not a whole number",
                                  "write contest_number as a JSON integer", row=row)
            entities = record.get("entities")
            if not isinstance(entities, list) or not all(isinstance(e, str) for e in entities):
                raise SourceError(path, "entities is not a list of strings", "write entities as a JSON list of "
                                  "strings", row=row)
            if contest in out:
                raise SourceError(path, f"contest {contest} is described twice (also in {where[contest]})",
                                  "keep one description per contest", row=row)
            where[contest] = f"{path.name}, row {row}"
            out[contest] = {**{col: _text(path, row, record, key) for col, key in GPT4O_COLUMNS.items()},
                            "gpt4o_entities": entities, "gpt4o_split": split}
    return out


def read_image(path: Path) -> dict:
    """An image cell (bytes and the upstream file name, no local path); anything but JPEG or PNG is an error."""
    data = read_bytes(path)
    if not any(data.startswith(magic) for magic in IMAGE_MAGIC):
        raise SourceError(path, "not a JPEG or PNG image (empty, truncated or another format)",
                          "download the cartoon again", row=None)
    return {"bytes": data, "path": path.name}


def image_source(path: Path) -> str:
    """Where a Zhang cartoon came from, as the upstream path (`cartoons/543.jpg` or `cartoons/source/543.jpg`)."""
    rel = f"{path.parent.name}/{path.name}" if path.parent.name == "cartoons" else f"cartoons/source/{path.name}"
    return f"{ZHANG_HF_REPO} {rel}"


def zhang_images(sources: SourceFiles) -> dict[int, dict]:
    """contest -> {image, image_source, image_license} for every Zhang cartoon found."""
    return {contest: {"image": read_image(path), "image_source": image_source(path), "image_license": NC}
            for contest, path in sorted(sources.cartoon_images.items())}


def build_cartoons(gpt4o: dict[int, dict], images: dict[int, dict], hessel: dict[int, dict],
                   descriptions: dict[int, str], duplicate_of: dict[int, int]) -> dict[str, pa.Table]:
    """One row per contest that has a GPT-4o description, a Zhang cartoon or Hessel annotations."""
    rows: dict[str, list[dict]] = {s: [] for s in SPLITS}
    for contest in sorted(set(gpt4o) | set(images) | set(hessel)):
        g, h = gpt4o.get(contest), hessel.get(contest)
        image = images.get(contest) or (
            {"image": h["image"], "image_source": HESSEL_SOURCE, "image_license": BY} if h and h.get("image")
            else {})
        text = descriptions.get(contest)
        rows[zhang_split(contest)].append({
            "contest_number": contest, **image,
            **(g or {}), "gpt4o_source": f"{ZHANG_HF_REPO} gpt4o_description/{g['gpt4o_split']}.jsonl" if g else None,
            "gpt4o_license": NC if g else None,
            **({"hessel_location": h["image_location"], "hessel_description": h["image_description"],
                "hessel_uncanny_description": h["image_uncanny_description"], "hessel_entities": h["entities"],
                "hessel_source": HESSEL_SOURCE, "hessel_license": BY} if h else {}),
            "nextml_description": text, "nextml_source": NEXTML_SOURCE if text else None,
            "nextml_license": BY if text else None, "duplicate_of": duplicate_of.get(contest),
        })
    schema = CARTOONS.arrow_schema
    return {split: pa.Table.from_pylist(r, schema=schema) for split, r in rows.items() if r}


def config_license(tables: dict[str, pa.Table], columns: tuple[str, ...]) -> str:
    """CC BY-NC 4.0 when any of `columns` (license columns) says so in any row, else CC BY 4.0."""
    for table in tables.values():
        for column in columns:
            if column in table.column_names and NC in table[column].to_pylist():
                return NC
    return BY
