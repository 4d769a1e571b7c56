"""Zhang et al. 2024 configs: `caption_ratings`, `caption_generation`, `preference_pairs` and `cartoons`."""

from __future__ import annotations

import hashlib
import logging
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..contests import SPLITS, ZHANG_HELD_OUT, zhang_split
from ..feature_types import image, list_of, value
from ..progress import each
from .cartoons import (
    BY,
    CARTOONS,
    GPT4O_FEATURES,
    HESSEL_SOURCE,
    NC,
    build_cartoons,
    config_license,
    read_gpt4o,
    zhang_images,
)
from .csvfile import read_parquet, read_rows
from .errors import SourceError
from .nextml import (
    primary_runs,
    read_descriptions,
    read_summary,
    stable_rank,
    stable_sorted,
    unique_summaries,
)
from .options import BuildOptions
from .pairs import describe, draw_pairs, in_pair_train
from .sources import ZHANG_GROUP_FILES, ZHANG_HF_REPO, SourceFiles, SummaryFile
from .writer import BuiltConfig, ConfigSpec

log = logging.getLogger("nycc_bench.build")

GROUP_SLICES = {"human_top10": (0, 10), "human_200": (200, 210), "human_1000": (1000, 1010)}

STR, I32, I64, F64, BOOL = (value(t) for t in ("string", "int32", "int64", "float64", "bool"))
GROUP = list_of(STR)

CAPTION_RATINGS = ConfigSpec(
    name="caption_ratings",
    family="zhang2024",
    features={
        "contest_number": I32, "run_id": STR, "algorithm": STR, "question": STR, "round": I32,
        "is_primary": BOOL, "rank": I32, "upstream_rank": I32, "target_id": I64,
        "caption": STR, "mean": F64, "precision": F64, "votes": I64,
        "funny": I64, "somewhat_funny": I64, "unfunny": I64,
        "is_duplicate_text": BOOL, "is_repeated_row": BOOL, "is_empty_text": BOOL, "has_line_break": BOOL,
        "duplicate_of": I32, "file_contest_number": I32,
    },
    description=(
        "Every caption of every contest and rating run in the nextml summaries, with its crowd ratings "
        "(unfunny = 1, somewhat funny = 2, funny = 3): `mean` rating, the given `precision` column (kept as "
        "published, not recomputed: `inf` on a caption rated once, as upstream writes it, rule "
        "`one_vote_precision_inf`), `votes` and the three vote counts. `rank` is the 0-based position after a "
        "stable sort by mean descending (ties keep file order); `upstream_rank` is the file's own rank column "
        "where it has one. A contest may have several runs (two sampling algorithms over the same captions, a "
        "second round, the \"funny\" and \"original\" questions): `run_id` (upstream repo / file name) tells "
        "them apart and exactly one run per contest has `is_primary` (the funny question, then the latest "
        "round, then the most votes). `algorithm` is the sampling algorithm named in the file name. Split by "
        "Zhang et al.'s held-out contests. Known upstream faults are flagged, never dropped: `is_duplicate_text` "
        "marks a caption whose exact text already appears higher in the same run (the first, best-rated copy is "
        "not flagged), `is_repeated_row` a row that repeats an earlier row of its file exactly (the same caption with "
        "the same mean, precision and vote counts: one rating row saved twice), `is_empty_text` an empty or blank "
        "caption, `has_line_break` a caption holding a line "
        "break (kept as published); `duplicate_of` names an earlier contest whose caption list is identical to "
        "this run's (upstream 643/644, 646/647, 655/656, 665/666); `file_contest_number` is the contest the "
        "file's own rows state where it differs from its file name (every row of 688_summary_KLUCB.csv says "
        "689; the file name is kept). Ranks, human groups and preference pairs count every row, flagged or "
        "not, as upstream does."
    ),
)
CAPTION_GENERATION = ConfigSpec(
    name="caption_generation",
    family="zhang2024",
    features={
        "contest_number": I32, "description": STR, "image": image(), "image_source": STR,
        "image_location": STR, "image_description": STR, "image_uncanny_description": STR,
        "entities": list_of(STR), **GPT4O_FEATURES,
        "human_top10": GROUP, "human_200": GROUP,
        "human_1000": GROUP, "human_median": GROUP, "n_captions": I32, "group_source": STR,
        "matches_summary_rule": BOOL, "duplicate_of": I32,
    },
    description=(
        "One row per held-out contest of Zhang et al. (validation 44, test 47): the cartoon description where "
        "nextml has one, Hessel et al.'s annotations (location, description, uncanny description, entities) "
        "where the Hessel data has the contest (the first row of `matching`; the description and uncanny "
        "description from the first row of `ranking`, train shard 0 then validation then test, where it has the "
        "contest, as upstream's judge read them), Zhang et al.'s GPT-4o description (`gpt4o_location`, "
        "`gpt4o_canny`, `gpt4o_uncanny`, `gpt4o_entities`: what the paper prompts language-only models with) "
        "where their Hub dataset has it, the cartoon (Hessel's image, else Zhang's; `image_source` says which), "
        "and four human "
        "reference groups of 10 captions: `human_top10` (sorted positions "
        "0-9), `human_200` (200-209), `human_1000` (1000-1009) and `human_median` (n//2-5 .. n//2+4), from a "
        "stable sort of the contest's primary rating run by mean descending. Where Zhang et al.'s published "
        "`human_*.csv` are available they are used as published (`group_source` = `zhang2024`) and "
        "`matches_summary_rule` records whether the rule applied to the nextml summary gives the same lists "
        "(it does for every contest up to 655; later nextml snapshots differ). Otherwise the groups come from "
        "the rule (`group_source` = the run). A group the contest is too small for is null. The groups are "
        "positions: a repeated text, a blank caption or one with a line break stays where it falls, as in "
        "Zhang et al.'s published lists (see the flags in `caption_ratings`); `duplicate_of` flags a contest "
        "whose caption list is identical to an earlier contest's."
    ),
)
PREFERENCE_PAIRS = ConfigSpec(
    name="preference_pairs",
    family="zhang2024",
    features={
        "contest_number": I32, "run_id": STR, "description": STR, "chosen": STR, "rejected": STR,
        "chosen_rank": I32, "rejected_rank": I32, "chosen_mean": F64, "rejected_mean": F64,
        "chosen_precision": F64, "rejected_precision": F64, "duplicate_of": I32,
    },
    description=(
        "Caption preference pairs for reward modelling, DPO and RLHF, by Zhang et al.'s rule: per contest "
        "(primary run, captions stable-sorted by mean descending) a chosen position is drawn from the top half "
        "(0..int(n/2)) and a rejected one strictly below it; the pair is kept when mean_c - mean_r > "
        "3 * sqrt(precision_c^2 + precision_r^2). Validation/test pairs come from the held-out contests, for "
        "evaluating reward models. `duplicate_of` repeats the contest's flag from `caption_ratings` (a train "
        "contest whose caption list equals a held-out one's is a leak upstream keeps; filter on it if needed). "
    ),
)
RATING_SCHEMA = CAPTION_RATINGS.arrow_schema
CONFIGS = {c.name: c for c in (CAPTION_RATINGS, CAPTION_GENERATION, PREFERENCE_PAIRS, CARTOONS)}


def uses_zhang_hub(tables: dict[str, pa.Table]) -> bool:
    """Whether any row holds a GPT-4o description or a cartoon from Zhang's Hub dataset (then CC BY-NC 4.0)."""
    for t in tables.values():
        if t["gpt4o_canny"].null_count < t.num_rows:
            return True
        if any(s and s.startswith(ZHANG_HF_REPO) for s in t["image_source"].to_pylist()):
            return True
    return False


@dataclass
class Run:
    """One rating run read from disk, with its captions already in stable-sorted order."""

    summary: SummaryFile
    table: pa.Table  # sorted by mean descending, stable
    primary: bool = False
    duplicate_of: int | None = None  # an earlier contest with exactly this caption list
    ratings: pa.Table | None = None  # its `rating_rows`, made in the thread that read it (a ratings build)


def one_array(values: pa.ChunkedArray | pa.Array) -> pa.Array:
    """The values as one array: a lone chunk as it is (`combine_chunks` would copy it), several concatenated."""
    if not isinstance(values, pa.ChunkedArray):
        return values
    return values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()


def caption_flags(captions: pa.ChunkedArray | pa.Array) -> dict[str, pa.Array]:
    """Per caption of one stable-sorted run: repeats an earlier (better-rated) text, is blank, holds a line break."""
    whole = one_array(captions)
    return {"is_duplicate_text": _repeated_texts(whole), "is_empty_text": _blank(whole),
            "has_line_break": _line_breaks(whole)}


def _string_offsets(array: pa.Array) -> np.ndarray:
    """A string (or large string) array's n + 1 offsets into its text buffer, as NumPy (no copy)."""
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    return np.frombuffer(array.buffers()[1], dtype=width)[array.offset:array.offset + len(array) + 1]


def _repeated_texts(captions: pa.Array) -> pa.Array:
    """Whether each row's text occurs in an earlier row.

    Each text gets a 64-bit key from its length and its first, middle and last 8 bytes (NumPy over the text
    buffer, no per-text work): texts with different keys differ, so only rows sharing a key with another row are
    compared, as Python strings in row order. A run of distinct texts (the usual case) has distinct keys and needs
    no comparison at all. Over the 2.2M captions of `benchmarks/build.py --synthetic 2.2M` this takes 0.24 s of
    CPU where hashing every whole text with Arrow (`_repeated_codes`, kept for nulls and large strings) took 0.53 s;
    0.058 s against 0.081 s over the 77 real runs of the shared data, half of which repeat a text.
    """
    n = len(captions)
    if captions.null_count or not pa.types.is_string(captions.type) or n < 2 or captions.buffers()[2] is None:
        return _repeated_codes(captions)
    offsets = _string_offsets(captions)
    raw = np.frombuffer(captions.buffers()[2], dtype=np.uint8)
    words = np.zeros(len(raw) // 8 + 2, dtype="<u8")  # the text buffer as little-endian 64-bit words, padded
    words.view(np.uint8)[:len(raw)] = raw
    starts = offsets[:-1].astype(np.int64)
    lengths = (offsets[1:] - offsets[:-1]).astype(np.int64)
    short = lengths < 8
    head = _word_at(words, starts)
    head[short] &= (np.uint64(1) << (8 * lengths[short]).astype(np.uint64)) - np.uint64(1)  # (a text's own bytes)
    tail = np.where(short, np.uint64(0), _word_at(words, np.maximum(starts + lengths - 8, starts)))
    middle = np.where(short, np.uint64(0), _word_at(words, starts + np.maximum(lengths - 8, 0) // 2))
    key = (head * np.uint64(0x9E3779B97F4A7C15)) ^ (tail * np.uint64(0xC2B2AE3D27D4EB4F)) ^ (
        middle * np.uint64(0x165667B19E3779F9)) ^ lengths.astype(np.uint64)
    flags = np.zeros(n, dtype=bool)
    ordered = np.sort(key)  # (a plain sort tells whether any key repeats, 10x faster than a stable argsort)
    if (ordered[1:] == ordered[:-1]).any():
        order = np.argsort(key)
        same = np.flatnonzero(key[order][1:] == key[order][:-1])
        shared = np.zeros(n, dtype=bool)
        shared[order[same]] = shared[order[same + 1]] = True
        rows = np.flatnonzero(shared)  # in row order: a text's earlier rows share its key, so they are here too
        seen: set[str] = set()
        flags[rows] = [text in seen or seen.add(text) is not None
                       for text in captions.take(pa.array(rows)).to_pylist()]
    return pa.array(flags, pa.bool_())


def _word_at(words: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The 8 bytes at each byte offset of a buffer held as little-endian 64-bit words (two aligned loads and
    shifts; the buffer is padded by a word)."""
    index, shift = at >> 3, ((at & 7) * 8).astype(np.uint64)
    low, high = words[index], words[index + 1]
    with np.errstate(over="ignore"):
        joined = (low >> shift) | (high << (np.uint64(64) - shift))
    return np.where(shift == 0, low, joined)


def _repeated_codes(captions: pa.Array) -> pa.Array:
    """`_repeated_texts` by Arrow's hash: it numbers each text at its first row, in row order, so a row is a
    text's first iff its code exceeds every code before it."""
    encoded = pc.dictionary_encode(captions, null_encoding="encode")
    if len(encoded.dictionary) == len(captions):
        return pa.repeat(False, len(captions))
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    earlier = np.maximum.accumulate(np.concatenate(([-1], codes[:-1])))
    return pa.array(codes <= earlier, pa.bool_())


def _blank(captions: pa.Array) -> pa.Array:
    """Whether each caption is empty or whitespace only (what trimming whitespace would empty).

    A caption that starts with a printable ASCII character other than a space (nearly all) is neither, so Arrow's
    whitespace test (bytes, no decode) runs only on the others: the empty ones and those starting with a space,
    a control or a non-ASCII byte.
    """
    if captions.null_count or not pa.types.is_string(captions.type) or captions.buffers()[2] is None:
        return pc.or_(pc.equal(pc.binary_length(captions), 0), pc.utf8_is_space(captions))
    n = len(captions)
    offsets = _string_offsets(captions)
    raw = np.frombuffer(captions.buffers()[2], dtype=np.uint8)
    starts = offsets[:-1]
    empty = offsets[1:] == starts
    first = raw[np.minimum(starts, len(raw) - 1)] if len(raw) else np.zeros(n, np.uint8)
    looked = np.flatnonzero(empty | (first <= 32) | (first >= 127))
    flags = empty
    if len(looked):
        flags[looked] |= pc.utf8_is_space(captions.take(pa.array(looked))).to_numpy(zero_copy_only=False)
    return pa.array(flags, pa.bool_())


def _line_breaks(captions: pa.Array) -> pa.Array:
    """Whether each caption holds a line break, found as \\n and \\r bytes of the text buffer (UTF-8 never uses
    those bytes inside another character) and mapped to their rows through the offsets."""
    if captions.null_count or not (pa.types.is_string(captions.type) or pa.types.is_large_string(captions.type)):
        return pc.match_substring_regex(captions, "[\r\n]")
    n = len(captions)
    offsets = _string_offsets(captions)
    flags = np.zeros(n, dtype=bool)
    if n and captions.buffers()[2] is not None:
        raw = np.frombuffer(captions.buffers()[2], dtype=np.uint8)[int(offsets[0]):int(offsets[-1])]
        low = np.flatnonzero(raw <= 13)  # one pass; then the few control bytes found are told apart
        at = low[(raw[low] == 10) | (raw[low] == 13)] + int(offsets[0])
        flags[np.searchsorted(offsets, at, side="right") - 1] = True
    return pa.array(flags, pa.bool_())


REPEAT_COLUMNS = ("caption", "mean", "precision", "votes", "funny", "somewhat_funny", "unfunny")
"""What a repeated row repeats: its caption and every rating (rank columns and target ids aside)."""


def repeated_rows(table: pa.Table, duplicate_text: pa.Array | None = None) -> pa.Array:
    """Per row of one run: it repeats an earlier row exactly (`REPEAT_COLUMNS`); the first copy is not flagged.

    A repeated row repeats its caption, so only rows whose text occurs more than once are compared, in Python,
    in file order; `duplicate_text` (the run's `is_duplicate_text`) lets a run without repeated texts skip even
    that.
    """
    flags = np.zeros(table.num_rows, dtype=bool)
    if duplicate_text is not None and not pc.any(duplicate_text).as_py():
        return pa.array(flags, pa.bool_())
    captions = one_array(table["caption"])
    codes = pc.dictionary_encode(captions, null_encoding="encode").indices.to_numpy(zero_copy_only=False)
    shared = np.flatnonzero(np.bincount(codes)[codes] > 1) if len(codes) else codes
    if len(shared):
        subset = table.select(list(REPEAT_COLUMNS)).take(pa.array(shared))
        seen: set[tuple] = set()
        rows = zip(*(subset[c].to_pylist() for c in REPEAT_COLUMNS), strict=True)
        flags[shared] = [row in seen or seen.add(row) is not None for row in rows]
    return pa.array(flags, pa.bool_())


def caption_multiset_key(captions: pa.ChunkedArray | pa.Array) -> bytes:
    """sha256 of a run's captions in sorted (byte) order, offsets included: equal iff the caption lists are equal
    as multisets."""
    ordered = pc.take(captions, pc.sort_indices(captions))
    ordered = one_array(ordered)
    offsets = _string_offsets(ordered).astype(np.int64)
    digest = hashlib.sha256((offsets - offsets[0]).tobytes())
    if len(ordered):
        digest.update(memoryview(ordered.buffers()[2])[int(offsets[0]):int(offsets[-1])])
    return digest.digest()


def mark_duplicate_contests(runs: list[Run]) -> None:
    """Set `duplicate_of` on each run whose caption multiset equals a run of a lower-numbered contest.

    Equal multisets have equal row counts and text bytes, so only runs that share both with another run are
    sorted and hashed (`caption_multiset_key`).
    """
    def size(run: Run) -> tuple[int, int]:
        captions = run.table["caption"]
        return captions.length(), sum(pc.sum(pc.binary_length(c)).as_py() or 0 for c in captions.chunks)

    sizes = [size(run) for run in runs]
    shared = {s for s, times in Counter(sizes).items() if times > 1}
    first: dict[bytes, int] = {}
    for run, run_size in sorted(zip(runs, sizes, strict=True),
                                key=lambda pair: (pair[0].summary.contest_number, pair[0].summary.run_id)):
        if run_size not in shared:
            run.duplicate_of = None
            continue
        earlier = first.setdefault(caption_multiset_key(run.table["caption"]), run.summary.contest_number)
        run.duplicate_of = earlier if earlier != run.summary.contest_number else None


def repeated_note(summary: SummaryFile, raw: pa.Table, flags: pa.ChunkedArray | pa.Array) -> str:
    """The build's line naming a run's repeated rows by file line (kept and flagged, as upstream published them)."""
    sorted_at = np.flatnonzero(one_array(flags).to_numpy(zero_copy_only=False))
    lines = sorted(int(i) + 2 for i in stable_rank(raw["mean"].to_numpy())[sorted_at])  # + header, 1-based
    shown = ", ".join(map(str, lines[:5])) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
    return (f"{summary.path}: line{'s' * (len(lines) > 1)} {shown} repeat{'s' * (len(lines) == 1)} an earlier row "
            "of the file exactly (caption and ratings); kept as published and flagged is_repeated_row in "
            "caption_ratings")


def read_runs(sources: SourceFiles, progress: bool = True, ratings: bool = False) -> list[Run]:
    """Read and validate every summary; sort each run once for all three configs; with `ratings`, also make each
    run's `rating_rows` in the thread that read it (a ratings build: no second pass over the runs, no thread
    hand-off per run, while the other thread is still parsing)."""
    def read(summary: SummaryFile) -> Run:
        raw = read_summary(summary)
        table = stable_sorted(raw)
        rows = rating_rows(summary, table) if ratings else None
        if rows is not None and pc.any(rows["is_repeated_row"]).as_py():
            log.warning(repeated_note(summary, raw, rows["is_repeated_row"]))
        return Run(summary, table, ratings=rows)

    # Arrow parses without the GIL, so files are read in parallel; map() keeps the discovery order.
    summaries, _ = unique_summaries(sources.summaries)  # a byte-identical copy is one run, read once
    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        runs = list(each(pool.map(read, summaries), "rating summaries", "file", progress, len(summaries)))
    primary = primary_runs((r.summary, r.table) for r in runs)
    for run in runs:
        run.primary = run.summary.run_id in primary
    mark_duplicate_contests(runs)
    return runs


def human_groups(captions: list[str]) -> dict[str, list[str] | None]:
    """The four reference groups of one stable-sorted contest (SPEC §3); None where the contest is too small."""
    n = len(captions)
    slices = {**GROUP_SLICES, "human_median": (n // 2 - 5, n // 2 + 5)}
    return {name: captions[a:b] if a >= 0 and b <= n else None for name, (a, b) in slices.items()}


def read_zhang_groups(paths: dict[str, Path]) -> dict[int, dict[str, list[str]]]:
    """Zhang's `human_*.csv`: 91 rows, columns 0..9, row i = contest ZHANG_HELD_OUT[i]."""
    if not paths:
        return {}
    if missing := [ZHANG_GROUP_FILES[k] for k in ZHANG_GROUP_FILES if k not in paths]:
        some = next(iter(paths.values()))
        raise SourceError(some.parent, f"missing {', '.join(missing)} beside {some.name}",
                          "provide all four human_*.csv files or none")
    out: dict[int, dict[str, list[str]]] = {c: {} for c in ZHANG_HELD_OUT}
    for group, path in paths.items():
        rows = read_rows(path)
        if rows[0] != [str(i) for i in range(10)]:
            raise SourceError(path, "unknown header", "the first line must be 0,1,...,9", row=0)
        body = rows[1:]
        if len(body) != len(ZHANG_HELD_OUT):
            raise SourceError(path, f"{len(body)} rows instead of {len(ZHANG_HELD_OUT)}",
                              "keep one row per held-out contest, in the order of the upstream files")
        for i, (contest, row) in enumerate(zip(ZHANG_HELD_OUT, body, strict=True), start=1):
            if len(row) != 10:
                raise SourceError(path, f"{len(row)} captions instead of 10", "write 10 captions per row", row=i)
            out[contest][group] = row
    return out


def repeated_text(value: str, n: int) -> pa.Array:
    """`pa.repeat(value, n)` (the same buffers), made from NumPy offsets and one bytes product: 3x faster than
    `pa.repeat` for the three texts every caption row repeats from its run (6.6M values at 2.2M captions)."""
    encoded = value.encode()
    if n * len(encoded) >= 2**31:  # (past a string array's 32-bit offsets: Arrow's own error)
        return pa.repeat(value, n)
    offsets = np.arange(n + 1, dtype=np.int32) * np.int32(len(encoded))
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(encoded * n)])


def rating_rows(s: SummaryFile, t: pa.Table) -> pa.Table:
    """One stable-sorted run's rows of `caption_ratings`, in the config's schema, but for the two columns that need
    every run: `is_primary` (False here) and `duplicate_of` (null here), which `build_caption_ratings` sets."""
    n = t.num_rows
    algorithm, question = s.algorithm, "funny"
    for asked in ("funny", "original"):  # 560_summary_KLUCB_original.csv asked "how original?"
        if algorithm.endswith(f"_{asked}"):
            algorithm, question = algorithm.removesuffix(f"_{asked}"), asked
    flags = caption_flags(t["caption"])
    meta = {
        "contest_number": pa.repeat(pa.scalar(s.contest_number, pa.int32()), n),
        "run_id": repeated_text(s.run_id, n), "algorithm": repeated_text(algorithm, n),
        "question": repeated_text(question, n), "round": pa.repeat(pa.scalar(s.round, pa.int32()), n),
        "is_primary": pa.repeat(False, n), "rank": pa.array(np.arange(n, dtype=np.int32)),
        **flags, "is_repeated_row": repeated_rows(t, flags["is_duplicate_text"]),
        "duplicate_of": pa.repeat(pa.scalar(None, pa.int32()), n),
    }
    read = set(t.column_names)
    columns = [t[field.name] if field.name in read else meta[field.name] for field in RATING_SCHEMA]
    # only the columns of another type are cast (upstream_rank: int64 -> int32, checked for overflow)
    return pa.Table.from_arrays([c if c.type == f.type else c.cast(f.type) for c, f in zip(columns, RATING_SCHEMA,
                                                                                          strict=True)],
                                schema=RATING_SCHEMA)


PRIMARY, DUPLICATE_OF = (RATING_SCHEMA.get_field_index(name) for name in ("is_primary", "duplicate_of"))


def build_caption_ratings(runs: list[Run]) -> dict[str, pa.Table]:
    """All runs, all captions, split by contest: each run's `rating_rows` with its `is_primary` and `duplicate_of`."""
    parts: dict[str, list[pa.Table]] = {s: [] for s in SPLITS}
    for run in runs:
        rows = run.ratings if run.ratings is not None else rating_rows(run.summary, run.table)
        if run.primary:
            rows = rows.set_column(PRIMARY, RATING_SCHEMA.field(PRIMARY), pa.repeat(True, rows.num_rows))
        if run.duplicate_of is not None:
            rows = rows.set_column(DUPLICATE_OF, RATING_SCHEMA.field(DUPLICATE_OF),
                                   pa.repeat(pa.scalar(run.duplicate_of, pa.int32()), rows.num_rows))
        parts[zhang_split(run.summary.contest_number)].append(rows)
    return {split: pa.concat_tables(tables) if tables else RATING_SCHEMA.empty_table()
            for split, tables in parts.items()}


def read_hessel_annotations(sources: SourceFiles) -> dict[int, dict]:
    """Per contest, the image and scene annotations of Hessel's `matching` config (every split of fold 0)."""
    columns = ["contest_number", "image", "image_location", "image_description", "image_uncanny_description",
               "entities"]
    out: dict[int, dict] = {}
    for split in ("train", "validation", "test"):
        for path in sorted(sources.hessel.get("matching", {}).get(split, [])):
            for row in read_parquet(path, columns).to_pylist():
                out.setdefault(row["contest_number"], {k: v for k, v in row.items() if k != "contest_number"})
    return out


# Upstream's judge read each contest's description from the first row of Hessel's `ranking` parquet: train shard
# 0, then validation, then test (ranking/rank_more.py L14-17, L82-83).
JUDGE_DESCRIPTION = ("image_description", "image_uncanny_description")


def read_judge_descriptions(sources: SourceFiles) -> dict[int, dict]:
    """Per contest, Hessel's description and uncanny description as upstream's judge read them: the first row of
    the `ranking` config's first train shard, then validation, then test."""
    shards = {split: sorted(sources.hessel.get("ranking", {}).get(split, [])) for split in ("train", "validation",
                                                                                           "test")}
    out: dict[int, dict] = {}
    for path in [*shards["train"][:1], *shards["validation"], *shards["test"]]:
        for row in read_parquet(path, ["contest_number", *JUDGE_DESCRIPTION]).to_pylist():
            out.setdefault(row["contest_number"], {k: row[k] for k in JUDGE_DESCRIPTION})
    return out


def with_judge_descriptions(annotations: dict[int, dict], judge: dict[int, dict]) -> dict[int, dict]:
    """`matching`'s annotations with the description pair taken from `ranking` where upstream's judge had it."""
    return {c: {**row, **judge.get(c, {})} for c, row in annotations.items()} | \
        {c: dict(d) for c, d in judge.items() if c not in annotations}


def build_caption_generation(runs: list[Run], descriptions: dict[int, str],
                             published: dict[int, dict[str, list[str]]], annotations: dict[int, dict],
                             gpt4o: dict[int, dict] | None = None,
                             images: dict[int, dict] | None = None) -> dict[str, pa.Table]:
    """One row per held-out contest that has published groups or a primary rating run.

    The image is Hessel's where their corpus has the contest, else Zhang's cartoon; GPT-4o fields where known.
    """
    gpt4o, images = gpt4o or {}, images or {}
    primary = {r.summary.contest_number: r for r in runs if r.primary}
    rows: dict[str, list[dict]] = {"validation": [], "test": []}
    for contest in ZHANG_HELD_OUT:
        run = primary.get(contest)
        from_rule = human_groups(run.table["caption"].to_pylist()) if run else None
        if contest in published:
            groups, source = published[contest], "zhang2024"
            matches = None if from_rule is None else from_rule == groups
        elif from_rule is not None:
            groups, source, matches = from_rule, run.summary.run_id, None
        else:
            continue
        hessel = annotations.get(contest, {})
        image = ({"image": hessel["image"], "image_source": HESSEL_SOURCE} if hessel.get("image")
                 else {k: v for k, v in images.get(contest, {}).items() if k != "image_license"})
        rows[zhang_split(contest)].append({
            "contest_number": contest, "description": descriptions.get(contest),
            **hessel, **image, **{k: v for k, v in gpt4o.get(contest, {}).items() if k != "gpt4o_split"}, **groups,
            "n_captions": run.table.num_rows if run else None, "group_source": source,
            "matches_summary_rule": matches, "duplicate_of": run.duplicate_of if run else None,
        })
    schema = CAPTION_GENERATION.arrow_schema
    return {split: pa.Table.from_pylist(r, schema=schema) for split, r in rows.items()}


def build_preference_pairs(runs: list[Run], descriptions: dict[int, str], rule: str = "upstream",
                           known_train: frozenset[int] | None = None) -> dict[str, pa.Table]:
    """Pairs from each contest's primary run by `rule` (see `pairs`), split like the contests."""
    parts: dict[str, list[pa.Table]] = {s: [] for s in SPLITS}
    schema = PREFERENCE_PAIRS.arrow_schema
    for run in sorted(runs, key=lambda r: r.summary.contest_number):
        t, contest = run.table, run.summary.contest_number
        split = zhang_split(contest)
        if not run.primary or (split == "train" and not in_pair_train(contest, rule, known_train)):
            continue
        mean, precision = t["mean"].to_numpy(), t["precision"].to_numpy()
        c, r = draw_pairs(mean, precision, contest, rule)
        if len(c) == 0:
            continue
        caption = t["caption"]
        parts[zhang_split(contest)].append(pa.table({
            "contest_number": pa.array(np.full(len(c), contest, np.int32)),
            "run_id": pa.array([run.summary.run_id] * len(c)),
            "description": pa.array([descriptions.get(contest)] * len(c), pa.string()),
            "chosen": caption.take(pa.array(c)), "rejected": caption.take(pa.array(r)),
            "chosen_rank": pa.array(c.astype(np.int32)), "rejected_rank": pa.array(r.astype(np.int32)),
            "chosen_mean": pa.array(mean[c]), "rejected_mean": pa.array(mean[r]),
            "chosen_precision": pa.array(precision[c]), "rejected_precision": pa.array(precision[r]),
            "duplicate_of": pa.repeat(pa.scalar(run.duplicate_of, pa.int32()), len(c)),
        }, schema=schema))
    return {split: pa.concat_tables(tables) if tables else schema.empty_table()
            for split, tables in parts.items()}


def build(sources: SourceFiles, configs: set[str], progress: bool = True,
          options: BuildOptions | None = None) -> list[BuiltConfig]:
    """Build the requested Zhang configs whose sources are present below the source folder."""
    options = options or BuildOptions()
    wanted = [name for name in CONFIGS if name in configs]
    zhang_hub = bool(sources.gpt4o_descriptions or sources.cartoon_images)
    if not wanted or not (sources.summaries or sources.zhang_groups or zhang_hub):
        return []
    runs = read_runs(sources, progress, ratings="caption_ratings" in wanted)
    descriptions = read_descriptions(sources.descriptions)
    gpt4o = read_gpt4o(sources.gpt4o_descriptions)
    images = zhang_images(sources) if {"cartoons", "caption_generation"} & set(wanted) else {}
    hessel = read_hessel_annotations(sources) if {"cartoons", "caption_generation"} & set(wanted) else {}
    built = []
    if "caption_ratings" in wanted and runs:
        built.append(BuiltConfig(CAPTION_RATINGS, build_caption_ratings(runs), license=BY))
    if "caption_generation" in wanted and (runs or sources.zhang_groups):
        tables = build_caption_generation(runs, descriptions, read_zhang_groups(sources.zhang_groups),
                                          with_judge_descriptions(hessel, read_judge_descriptions(sources)), gpt4o,
                                          images)
        license_ = NC if uses_zhang_hub(tables) else BY
        built.append(BuiltConfig(CAPTION_GENERATION, tables, license=license_))
    if "preference_pairs" in wanted and runs:
        known_train = frozenset(c for c, g in gpt4o.items() if g["gpt4o_split"] == "train") or None
        spec = replace(PREFERENCE_PAIRS, description=PREFERENCE_PAIRS.description + describe(options.pair_rule))
        built.append(BuiltConfig(spec, build_preference_pairs(runs, descriptions, options.pair_rule, known_train),
                                 license=BY))
    if "cartoons" in wanted and zhang_hub:
        duplicates = {r.summary.contest_number: r.duplicate_of for r in runs if r.primary and r.duplicate_of}
        tables = build_cartoons(gpt4o, images, hessel, descriptions, duplicates)
        built.append(BuiltConfig(CARTOONS, tables, license=config_license(tables, ("image_license", "gpt4o_license"))))
    return built
