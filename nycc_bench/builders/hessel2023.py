"""Hessel et al. 2023 configs: matching, ranking and explanation, from description and from pixels, 5 folds."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..feature_types import Feature, Features, image, list_of, value
from ..progress import each
from . import hessel_leaderboard
from .csvfile import read_parquet
from .errors import SourceError
from .options import BuildOptions
from .sources import SourceFiles
from .writer import BuiltConfig, ConfigSpec

TASKS = ("matching", "ranking", "explanation")
FOLDS = ("", "_1", "_2", "_3", "_4")
LETTERS = {"matching": "ABCDE", "ranking": "AB"}
WINNER_SOURCES = {"official_winner", "crowd_winner"}

STR, I32 = value("string"), value("int32")
TASK_TEXT = {
    "matching": "5-way multiple choice: which of five captions was written for this cartoon? `label` is the "
                "letter of the right caption; the other four were written for other cartoons.",
    "ranking": "2-way multiple choice: which of two captions for this cartoon is the finalist (New Yorker "
               "editors' pick or crowd favourite, `winner_source`) rather than a lower-rated entry? `label` "
               "is its letter. CrowdAcc is accuracy on `crowd_winner` items, NYAcc on the rest.",
    "explanation": "Generate an explanation of why the caption (`caption_choices`) is funny for the cartoon; "
                   "`label` is the human-written explanation.",
}


def features(task: str, from_pixels: bool) -> Features:
    """The upstream columns of one Hessel config, in upstream order."""
    choices = STR if task == "explanation" else list_of(STR)
    cols: dict[str, Feature] = {"image": image(), "contest_number": I32}
    if not from_pixels:
        cols |= {"image_location": STR, "image_description": STR, "image_uncanny_description": STR,
                 "entities": list_of(STR), "questions": list_of(STR)}
    cols["caption_choices"] = choices
    if not from_pixels:
        cols["from_description"] = STR
    if task == "ranking":
        cols["winner_source"] = STR
    cols |= {"label": STR, "n_tokens_label": I32, "instance_id": STR}
    return cols


def _spec(task: str, from_pixels: bool, fold: str) -> ConfigSpec:
    """Name and describe one config exactly as upstream names it."""
    name = f"{task}{'_from_pixels' if from_pixels else ''}{fold}"
    setting = ("From pixels: only the image and the captions; no human annotations of the scene."
               if from_pixels else
               "From description: the image plus human annotations (location, description, what is "
               "unusual, Wikipedia entities, questions) packed into `from_description`.")
    fold_text = f"Cross-validation fold {fold[1:] if fold else 0} of 5."
    return ConfigSpec(name=name, family="hessel2023", features=features(task, from_pixels),
                      description=f"{TASK_TEXT[task]} {setting} {fold_text} Columns and splits as upstream.")


CONFIGS = {s.name: s for s in (_spec(t, p, f) for t in TASKS for p in (False, True) for f in FOLDS)}
CONFIGS |= hessel_leaderboard.CONFIGS  # the hidden-label leaderboard sets, from upstream's zips


def _validate(spec: ConfigSpec, split: str, table: pa.Table, path: str) -> pa.Table:
    """Check columns, types, labels and unique instance ids; return the table in the config's schema."""
    expected = spec.arrow_schema
    if missing := [c for c in expected.names if c not in table.column_names]:
        raise SourceError(path, f"missing column {', '.join(missing)} for config {spec.name}",
                          f"write the upstream columns: {', '.join(expected.names)}")
    if unknown := [c for c in table.column_names if c not in expected.names]:
        raise SourceError(path, f"unknown column {', '.join(unknown)} for config {spec.name}",
                          "drop it or build the config it belongs to")
    table = table.select(expected.names)
    for field in expected:
        try:
            table = table.set_column(table.schema.get_field_index(field.name), field.name,
                                     table[field.name].cast(field.type))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
            raise SourceError(path, f"column {field.name} has type {table.schema.field(field.name).type}, "
                              f"expected {field.type}", f"write {field.name} as {field.type}") from err
    for name in ("label", "instance_id"):
        if pc.any(nulls := pc.is_null(table[name])).as_py():
            row = int(pc.index(nulls, True).as_py()) + 1
            raise SourceError(path, f"{name} is empty", f"give every row a {name}", row=row)
    task = spec.name.split("_")[0]
    if task in LETTERS:
        labels = table["label"].to_pylist()
        for i, label in enumerate(labels, start=1):
            if label not in LETTERS[task]:
                raise SourceError(path, f"label {label!r} is not one of {', '.join(LETTERS[task])}",
                                  "write the letter of the right caption", row=i)
    if "winner_source" in table.column_names:
        for i, source in enumerate(table["winner_source"].to_pylist(), start=1):
            if source not in WINNER_SOURCES:
                raise SourceError(path, f"winner_source {source!r} is unknown",
                                  f"use one of {', '.join(sorted(WINNER_SOURCES))}", row=i)
    ids = table["instance_id"].to_pylist()
    seen: dict[str, int] = {}
    for i, iid in enumerate(ids, start=1):
        if iid in seen:
            raise SourceError(path, f"instance_id {iid} repeats row {seen[iid]} in split {split}",
                              "keep one row per instance_id", row=i)
        seen[iid] = i
    return table


def build(sources: SourceFiles, configs: set[str], progress: bool = True,
          options: BuildOptions | None = None) -> list[BuiltConfig]:
    """Copy each upstream Hessel config found below the source folder, validated (`options`: none apply)."""
    built = []
    names = [n for n in CONFIGS if n in configs and n in sources.hessel]
    for name in each(names, "hessel configs", "config", enable=progress and bool(names)):
        spec, splits = CONFIGS[name], {}
        for split in ("train", "validation", "test"):
            shards = sorted(sources.hessel[name].get(split, []))
            if not shards:
                continue
            tables = [_validate(spec, split, read_parquet(p), str(p)) for p in shards]
            splits[split] = _validate(spec, split, pa.concat_tables(tables), str(shards[0].parent))
        built.append(BuiltConfig(spec, splits, upstream_files={split: [p.name for p in sorted(
            sources.hessel[name].get(split, []))] for split in splits}))
    return built + hessel_leaderboard.build(sources, configs, progress, options)
