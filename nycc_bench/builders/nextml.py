"""Readers of the nextml rating summaries (both header variants) and the contest descriptions file."""

from __future__ import annotations

import csv
import hashlib
import io
import logging
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from .csvfile import decode, read_bytes, read_dicts, records_before
from .errors import SourceError
from .sources import SummaryFile

log = logging.getLogger("nycc_bench.build")

# Upstream header variants mapped to the project's column names (SPEC.md §2).
API_COLUMNS = ["rank", "funny", "somewhat_funny", "unfunny", "count", "score", "precision", "contest", "caption"]
NEXTML_COLUMNS = ["caption", "mean", "precision", "votes", "not_funny", "somewhat_funny", "funny"]
RENAME = {"score": "mean", "count": "votes", "not_funny": "unfunny", "rank": "upstream_rank"}
TYPES: dict[str, pa.DataType] = {
    "target_id": pa.int64(), "rank": pa.int64(), "funny": pa.int64(), "somewhat_funny": pa.int64(),
    "unfunny": pa.int64(), "not_funny": pa.int64(), "count": pa.int64(), "votes": pa.int64(),
    "score": pa.float64(), "mean": pa.float64(), "precision": pa.float64(), "contest": pa.int64(),
    "caption": pa.string(),
}
KNOWN_HEADERS = (
    API_COLUMNS, ["target_id", *API_COLUMNS], NEXTML_COLUMNS, ["rank", *NEXTML_COLUMNS],
)
RATING_COLUMNS = ["upstream_rank", "target_id", "caption", "mean", "precision", "votes",
                  "funny", "somewhat_funny", "unfunny", "file_contest_number"]
# Known upstream faults (nextml issue #38): every row of 688_summary_KLUCB.csv says contest 689. The file name
# is kept as the contest number and `file_contest_number` records what the rows say; any other mismatch fails.
KNOWN_MISLABELED: dict[tuple[str, int], int] = {("caption-contest-data-api", 688): 689}
# Upstream writes precision `inf` for a caption rated once (a standard error of one rating is undefined: contests
# 509-517). Its readers (nextml's `summary()`, Zhang et al.'s preprocess_dpo) read it with pandas and keep it, so
# such a caption never passes the pairs' 3-sigma test. The rule `one_vote_precision_inf`: +inf is accepted on a
# row with exactly one vote and kept as published; anywhere else precision must be a finite number >= 0.
ONE_VOTE_PRECISION_RULE = "one_vote_precision_inf"


def _header(path: Path, data: bytes) -> list[str]:
    """The first line of a summary, split on commas (upstream headers are never quoted)."""
    if not data or data.isspace():  # (isspace stops at the first other byte; strip() would copy the file)
        raise SourceError(path, "the file is empty", "restore the file from upstream or remove it", row=0)
    end = data.find(b"\n")
    first = data if end < 0 else data[:end]  # (split() would copy the rest of the file)
    try:
        line = first.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SourceError(path, "the header is not UTF-8 text (wrong encoding?)",
                          "re-save the file as UTF-8", row=0) from None
    return next(csv.reader([line.rstrip("\r")]), [])


def _check_header(path: Path, header: list[str]) -> None:
    """Accept exactly the four upstream variants; otherwise say which column is missing or unknown."""
    if header in KNOWN_HEADERS:
        return
    best = max(KNOWN_HEADERS, key=lambda known: len(set(known) & set(header)))
    missing = [c for c in best if c not in header]
    unknown = [c for c in header if c not in best]
    problem = "unknown header " + ",".join(header)
    if missing:
        problem += f" (missing column {', '.join(missing)})"
    if unknown:
        problem += f" (unknown column {', '.join(unknown)})"
    raise SourceError(path, problem, "use one of the nextml headers: "
                      + " | ".join(",".join(h) for h in KNOWN_HEADERS), row=0)


def _quotes(data: bytes, chunk: int = 1 << 16) -> int:
    """How many `"` bytes the data holds: NumPy over 64 KiB slices (2-3x faster than bytes.count; a slice's mask
    stays in cache and is never a fresh mapping of its own)."""
    view = np.frombuffer(data, np.uint8)
    return sum(int(np.count_nonzero(view[i:i + chunk] == 34)) for i in range(0, len(view), chunk))


def _check_complete(path: Path, data: bytes) -> None:
    """Refuse a file cut short: an unclosed quote or a last line without its line break."""
    if _quotes(data) % 2:
        raise SourceError(path, "a quoted caption is never closed (the file looks truncated)",
                          "download the file again", row=records_before(data, data.rindex(b'"')))
    if not data.endswith(b"\n"):
        raise SourceError(path, "the last line has no line break (the file looks truncated)",
                          "download the file again", row=records_before(data, len(data)))


def _locate_fault(path: Path, data: bytes, header: list[str], err: Exception) -> SourceError:
    """Re-read a file Arrow refused, record by record, to name the row and what is wrong with it."""
    try:
        text = decode(path, data)
    except SourceError as bad:
        return bad
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        rows = list(reader)
    except csv.Error as bad:
        return SourceError(path, f"the CSV cannot be parsed ({bad})", "download the file again",
                           row=max(0, reader.line_num - 1))
    for i, row in enumerate(rows[1:], start=1):
        if len(row) != len(header):
            return SourceError(path, f"{len(row)} fields where the header has {len(header)} (truncated or "
                               "unquoted comma?)", "download the file again or quote the caption", row=i)
    for name in header:
        if TYPES[name] == pa.string():
            continue
        column = header.index(name)
        kind = "a number" if pa.types.is_floating(TYPES[name]) else "a whole number"
        for i, row in enumerate(rows[1:], start=1):
            try:
                float(row[column]) if pa.types.is_floating(TYPES[name]) else int(row[column])
            except ValueError:
                return SourceError(path, f"column {name} holds {row[column]!r}, not {kind}",
                                   f"write {kind} in column {name}", row=i)
    return SourceError(path, f"cannot parse the file ({err})", "check the CSV quoting")


def _read_csv(path: Path, data: bytes, header: list[str]) -> pa.Table:
    """Parse with Arrow (quoted newlines allowed, captions never turned into nulls); faults name their row."""
    parse = pcsv.ParseOptions(newlines_in_values=True)
    # One thread per file: the caller reads files in parallel, which beats Arrow's in-file threading here.
    read = pcsv.ReadOptions(use_threads=False, block_size=1 << 22)
    try:
        return pcsv.read_csv(pa.BufferReader(data), read_options=read, parse_options=parse,
                             convert_options=pcsv.ConvertOptions(column_types={c: TYPES[c] for c in header},
                                                                 strings_can_be_null=False))
    except pa.ArrowInvalid as err:
        raise _locate_fault(path, data, header, err) from err


def _first_bad(mask: np.ndarray) -> int:
    """1-based record number of the first True in a mask."""
    return int(np.flatnonzero(mask)[0]) + 1


def _repeats(ids: np.ndarray) -> bool:
    """Whether any id occurs twice: counted by `bincount` when the ids span a small range (upstream numbers them
    0..n-1), else by sorting."""
    if len(ids) < 2:
        return False
    if ids.dtype.kind in "iu" and int(ids.max()) - int(ids.min()) < 4 * len(ids):
        return bool(np.bincount((ids - ids.min()).astype(np.int64)).max() > 1)
    ordered = np.sort(ids)
    return bool((ordered[1:] == ordered[:-1]).any())


def _ratings_valid(api: bool, votes: np.ndarray, funny: np.ndarray, somewhat: np.ndarray, unfunny: np.ndarray,
                   precision: np.ndarray, mean: np.ndarray) -> bool:
    """Whether a run's ratings pass every check of `_rating_fault`, by reductions (no mask per check).

    A NaN makes min() NaN, which fails every comparison, so it is caught with the out-of-range values.
    """
    if not len(votes):
        return True
    total = funny + somewhat
    total += unfunny
    counts = np.array_equal(votes, total) if api else bool((votes >= total).all())
    return (counts and all(bool(column.min() >= 0) for column in (votes, funny, somewhat, unfunny))
            and bool(precision.min() >= 0) and _precision_finite_or_one_vote(precision, votes)
            and bool(mean.min() >= 1) and bool(mean.max() <= 3))


def _precision_finite_or_one_vote(precision: np.ndarray, votes: np.ndarray) -> bool:
    """Whether every precision is finite, or +inf on a one-vote row (rule `one_vote_precision_inf`)."""
    if bool(precision.max() < np.inf):
        return True
    return bool(((precision < np.inf) | (votes == 1)).all())


def _rating_fault(path: Path, api: bool, votes: np.ndarray, funny: np.ndarray, somewhat: np.ndarray,
                  unfunny: np.ndarray, precision: np.ndarray, mean: np.ndarray) -> None:
    """Raise for the first fault of a run's ratings, in a fixed order, naming its row."""
    if (bad := (votes != funny + somewhat + unfunny) if api else (votes < funny + somewhat + unfunny)).any():
        raise SourceError(path, "the vote count is " + ("not" if api else "below") +
                          " funny + somewhat_funny + unfunny", "recount the votes column", row=_first_bad(bad))
    for name, counts in (("votes", votes), ("funny", funny), ("somewhat_funny", somewhat), ("unfunny", unfunny)):
        if (bad := counts < 0).any():
            raise SourceError(path, f"{name} is negative ({counts[_first_bad(bad) - 1]})",
                              f"vote counts are whole numbers >= 0; fix column {name}", row=_first_bad(bad))
    one_vote_inf = (precision == np.inf) & (votes == 1)  # rule `one_vote_precision_inf`
    if (bad := ~(np.isfinite(precision) | one_vote_inf) | (precision < 0)).any():
        raise SourceError(path, f"precision {precision[_first_bad(bad) - 1]} is not a finite number >= 0 "
                          "(inf is accepted only on a caption with one vote)",
                          "precision is a standard error; fix the precision column", row=_first_bad(bad))
    if (bad := ~np.isfinite(mean) | (mean < 1) | (mean > 3)).any():
        raise SourceError(path, f"mean rating {mean[_first_bad(bad) - 1]} is outside 1..3",
                          "ratings are 1 (unfunny) to 3 (funny); fix the score/mean column", row=_first_bad(bad))


def read_summary(summary: SummaryFile) -> pa.Table:
    """Read one summary into the project's columns, validated, in the file's own row order."""
    path = summary.path
    data = read_bytes(path)
    header = _header(path, data)
    _check_header(path, header)
    _check_complete(path, data)
    table = _read_csv(path, data, header)
    stated = None
    if "contest" in header:
        contest = table["contest"].to_numpy()
        known = KNOWN_MISLABELED.get((summary.repo, summary.contest_number))
        if known is not None and len(contest) and (contest == known).all():
            stated = known  # a known upstream fault: kept under the file name's number and flagged
        elif (bad := contest != summary.contest_number).any():
            row = _first_bad(bad)
            raise SourceError(path, f"column contest says {contest[row - 1]} but the file name says "
                              f"{summary.contest_number}", "rename the file or fix the contest column", row=row)
        table = table.drop(["contest"])
    table = table.rename_columns([RENAME.get(c, c) for c in table.column_names])
    n = table.num_rows
    if n == 0:
        raise SourceError(path, "the file has no caption rows", "remove the empty file")
    for name in ("upstream_rank", "target_id"):
        if name not in table.column_names:
            table = table.append_column(name, pa.nulls(n, pa.int64()))
    votes, funny = table["votes"].to_numpy(), table["funny"].to_numpy()
    somewhat, unfunny = table["somewhat_funny"].to_numpy(), table["unfunny"].to_numpy()
    mean, precision = table["mean"].to_numpy(), table["precision"].to_numpy()
    # The api repo's `count` is exactly the three vote counts; the newer repo's `votes` can exceed them (its
    # mean divides by `votes`), so there the counts may not exceed the votes.
    api = "count" in header
    if not _ratings_valid(api, votes, funny, somewhat, unfunny, precision, mean):  # (then name the first fault)
        _rating_fault(path, api, votes, funny, somewhat, unfunny, precision, mean)
    ids = table["target_id"].to_numpy(zero_copy_only=False)
    present = ids[~np.isnan(ids)] if ids.dtype.kind == "f" else ids
    if _repeats(present):  # rare: only then find the rows, for the message
        first_row: dict[int, int] = {}
        for row, target_id in enumerate(table["target_id"].to_pylist(), start=1):
            if target_id is not None and target_id in first_row:
                raise SourceError(path, f"target_id {target_id} appears twice (first on row {first_row[target_id]})",
                                  "keep one row per target_id", row=row)
            first_row.setdefault(target_id, row)
    table = table.append_column("file_contest_number", pa.repeat(pa.scalar(stated, pa.int32()), n))
    return table.select(RATING_COLUMNS)


def _size(path: Path) -> int:
    """A file's size in bytes; -1 when it cannot be read (the read names the fault later)."""
    try:
        return path.stat().st_size
    except OSError:
        return -1


def unique_summaries(summaries: list[SummaryFile]) -> tuple[list[SummaryFile], list[tuple[SummaryFile, SummaryFile]]]:
    """(the summaries to read, [(duplicate, the file it repeats)]): a file of a contest byte-identical to an
    earlier one of the same contest, under any name, is one rating run saved twice; it is read once and reported,
    never counted as a new run. (Two contests may have identical files upstream, 643 and 644: both are kept.)"""
    first: dict[tuple[int, bytes], SummaryFile] = {}
    duplicates = []
    # identical files have one size: only files sharing their contest and size with another are read and hashed
    sizes = Counter(same_size := [(s.contest_number, _size(s.path)) for s in summaries])
    alike = {id(s) for s, key in zip(summaries, same_size, strict=True) if sizes[key] > 1}
    # of identical files the first round, then the first path, is the one read (whatever order they were found in)
    for summary in sorted((s for s in summaries if id(s) in alike), key=lambda s: (s.round, str(s.path))):
        digest = hashlib.sha256(read_bytes(summary.path)).digest()
        if (original := first.setdefault((summary.contest_number, digest), summary)) is not summary:
            duplicates.append((summary, original))
            log.warning("%s is byte-identical to %s: read once (the same rating run saved under two names)",
                        summary.path, original.path)
    dropped = {id(d) for d, _ in duplicates}
    return [s for s in summaries if id(s) not in dropped], duplicates


def stable_rank(mean: np.ndarray) -> np.ndarray:
    """Row order after sorting by mean descending, ties keeping file order (SPEC §3)."""
    return np.argsort(-mean, kind="stable")


def stable_sorted(table: pa.Table) -> pa.Table:
    """The rows in `stable_rank` order, as one chunk per column; a file already in that order (upstream writes
    its summaries by rank) is kept as read instead of copied row by row."""
    mean = table["mean"].to_numpy()
    if bool((mean[:-1] >= mean[1:]).all()):  # non-increasing: the stable sort is the identity
        whole = table.combine_chunks()  # (one chunk per column, as `take` gives; a lone chunk is not copied)
        return pa.Table.from_arrays([_as_taken(c.chunk(0)) if c.num_chunks == 1 else c for c in whole.columns],
                                    schema=whole.schema)
    return table.take(pa.array(stable_rank(mean)))


def _as_taken(array: pa.Array) -> pa.Array:
    """The array with the buffers `take` gives it: a text column without nulls gets an all-valid bitmap.

    The card records each split's in-memory size (`num_bytes`), which counts that bitmap; a file kept as read
    must record what a sorted copy records, so that a build's card does not depend on how the file was ordered.
    """
    validity, *rest = array.buffers()
    if validity is not None or array.offset or not (pa.types.is_string(array.type)
                                                    or pa.types.is_large_string(array.type)):
        return array
    bits = pa.py_buffer(np.packbits(np.ones(len(array), dtype=bool), bitorder="little"))
    return pa.Array.from_buffers(array.type, len(array), [bits, *rest])  # (null_count=0 would drop the bitmap)


def read_descriptions(path: Path | None) -> dict[int, str]:
    """`contest,description` → {contest: description}; a duplicate or non-numeric contest is an error."""
    if path is None:
        return {}
    out: dict[int, str] = {}
    for i, row in enumerate(read_dicts(path, ["contest", "description"]), start=1):
        try:
            contest = int(row["contest"])
        except ValueError:
            raise SourceError(path, f"contest {row['contest']!r} is not a whole number",
                              "write the contest number in the first column", row=i) from None
        if contest in out:
            raise SourceError(path, f"contest {contest} is described twice",
                              "keep one description per contest", row=i)
        out[contest] = row["description"]
    return out


def primary_runs(runs: Iterable[tuple[SummaryFile, pa.Table]]) -> set[str]:
    """Pick one run per contest: the "funny" question, then the latest round, most votes, most captions.

    Several runs of one contest (two algorithms over the same captions, a second round, a second question)
    all stay in `caption_ratings`; the primary one feeds the human groups and preference pairs.
    """
    best: dict[int, tuple[tuple, str]] = {}
    for summary, table in runs:
        key = (not summary.algorithm.endswith("_original"), summary.round,
               pc.sum(table["votes"]).as_py(), table.num_rows, summary.run_id)
        if summary.contest_number not in best or key > best[summary.contest_number][0]:
            best[summary.contest_number] = (key, summary.run_id)
    return {run_id for _, run_id in best.values()}
