"""Votes as data: the export's one schema (the `arena_votes` dataset config has the same features), which votes
count (`rules.py`, decided here and recorded beside the vote, never by deleting it), and reading an export back:
one-line errors, duplicate rows dropped (on `vote_id` and `battle_id`), rows that contradict each other refused
naming both, and `counted` decided again from the probes and the rules, never taken from the file."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .columns import SCHEMA
from .errors import ArenaRefused
from .pool import GOLD_DECOY, GOLD_REAL
from .rules import ACCOUNT, records, voter_reason
from .settings import ArenaSettings
from .votes import Vote, VoteStore

OPTIONAL = {"voter_kind": ACCOUNT, "address_hash": ""}  # columns an older export lacks, and their value there
DERIVED = ("counted", "excluded_reason")  # decided by the rules whenever votes are read, never trusted


def recount(frame: pd.DataFrame, settings: ArenaSettings | None = None,
            include_simulated: bool = False) -> pd.DataFrame:
    """`gold`, `gold_correct`, `counted` and `excluded_reason` decided again from the rows themselves: a probe is a
    battle of the real caption (A) against a decoy (B), passed when A won; the rest is `rules.py`."""
    settings = settings or ArenaSettings()
    frame = frame.copy()
    gold = (frame["player_a"] == GOLD_REAL) | (frame["player_b"] == GOLD_DECOY)
    frame["gold"] = gold.to_numpy(dtype=bool)
    frame["gold_correct"] = pd.array([w == "a" if g else None for w, g in zip(frame["winner"], gold, strict=True)],
                                     dtype="boolean")
    kind = frame["voter_kind"].fillna(ACCOUNT) if "voter_kind" in frame.columns else pd.Series(ACCOUNT,
                                                                                               index=frame.index)
    simulated = frame["simulated"].fillna(False).astype(bool).to_numpy()
    # people and simulated voters are never one visitor: their records are kept apart
    by_voter = records(zip(zip(frame["voter"], simulated, strict=True), kind, frame["gold"],
                           frame["gold_correct"].fillna(False), frame["winner"], frame["left_side"], strict=True))
    reason_of = {v: voter_reason(r, settings.gold_min, settings.gold_threshold, settings.count_anonymous)
                 for v, r in by_voter.items()}
    reasons: list[str | None] = []
    for voter, is_simulated, is_gold in zip(frame["voter"], simulated, frame["gold"], strict=True):
        if is_gold:
            reasons.append("gold probe")
        elif is_simulated and not include_simulated:
            reasons.append("simulated vote (counted only with --include-simulated)")
        else:
            reasons.append(reason_of[voter, is_simulated])
    frame["excluded_reason"] = pd.array(reasons, dtype=object)
    frame["counted"] = frame["excluded_reason"].isna().to_numpy(dtype=bool)
    return frame


def vote_frame(votes: list[Vote], settings: ArenaSettings | None = None,
               include_simulated: bool = False) -> pd.DataFrame:
    """The votes in the export's schema, with whether each counts (`recount`)."""
    rows = []
    for v in votes:
        rows.append({"vote_id": v.vote_id, "battle_id": v.battle_id, "contest_number": v.contest,
                     "caption_a_id": v.caption_a, "caption_b_id": v.caption_b, "player_a": v.player_a,
                     "player_b": v.player_b, "caption_a": v.text_a, "caption_b": v.text_b,
                     "description": v.description, "left_side": v.left_side, "winner": v.winner,
                     "flag_a": v.flag_a, "flag_b": v.flag_b, "voter": v.voter,
                     "shown_at": pd.Timestamp(round(v.shown_at * 1000), unit="ms", tz="UTC"),
                     "voted_at": pd.Timestamp(round(v.voted_at * 1000), unit="ms", tz="UTC"), "gold": v.gold,
                     "gold_correct": v.gold_correct, "counted": False, "excluded_reason": None,
                     "simulated": v.simulated, "voter_kind": v.voter_kind, "address_hash": v.address_hash})
    frame = pd.DataFrame(rows, columns=SCHEMA.names)
    return recount(frame, settings, include_simulated) if len(frame) else frame


def arena_dir(data_dir: str | Path) -> Path:
    """The arena folder of a leaderboard data dir (`arena/`, or `hub/arena/` for a Hub-backed store)."""
    root = Path(data_dir)
    for folder in (root / "arena", root / "hub" / "arena"):
        if (folder / "arena.sqlite").exists():
            return folder
    raise ArenaRefused(f"data-dir: no arena votes under {root} (expected arena/arena.sqlite); pass the leaderboard's "
                       "data folder (NYCC_LB_DATA_DIR)")


def export_votes(data_dir: str | Path, out: str | Path, settings: ArenaSettings | None = None, *,
                 drop_voters: Iterable[str] = (), drop_addresses: Iterable[str] = (), cap_voter: int | None = None,
                 cap_address: int | None = None) -> pd.DataFrame:
    """Write every vote of a leaderboard's data dir to a parquet file; returns the frame. An operator cleaning a
    stuffed arena drops voters or address hashes, or keeps at most the first N votes of each (the store itself is
    never changed); `counted` is then decided on what is left."""
    out = Path(out)
    if out.suffix != ".parquet":
        raise ArenaRefused(f"out: {out} must end in .parquet")
    for name, cap in (("cap-voter", cap_voter), ("cap-address", cap_address)):
        if cap is not None and cap < 1:
            raise ArenaRefused(f"{name}: at least 1 vote, got {cap}")
    store = VoteStore(arena_dir(data_dir))
    try:
        votes = store.votes()
    finally:
        store.close()
    drop_v, drop_a = set(drop_voters), set(drop_addresses)
    votes = [v for v in votes if v.voter not in drop_v and not (v.address_hash and v.address_hash in drop_a)]
    for cap, key in ((cap_voter, "voter"), (cap_address, "address_hash")):
        if cap is not None:
            seen: dict[str, int] = {}
            kept = []
            for v in votes:  # in the order cast: the first `cap` of each are kept
                k = getattr(v, key)
                seen[k] = seen.get(k, 0) + 1
                if not k or seen[k] <= cap:
                    kept.append(v)
            votes = kept
    frame = vote_frame(votes, settings)
    write_votes(frame, out)
    return frame


def write_votes(frame: pd.DataFrame, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    pq.write_table(pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False), tmp)
    tmp.replace(out)


def read_votes(path: str | Path, settings: ArenaSettings | None = None,
               include_simulated: bool = False) -> pd.DataFrame:
    """An export read back and checked: a missing, unreadable or malformed file is one line naming it; duplicate
    rows dropped, contradicting ones refused, `counted` decided again (`recount`; simulated votes only with
    `include_simulated`)."""
    path = Path(path)
    if not path.is_file():
        raise ArenaRefused(f"votes: no file {path}; write one with `nycc-bench arena export --data-dir DIR --out "
                           "FILE.parquet`")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as err:
        raise ArenaRefused(f"votes: {path} is not a parquet file ({' '.join(str(err).split())[:120]})") from None
    columns = []
    for field in SCHEMA:
        if field.name not in table.column_names and field.name in OPTIONAL:  # an export written before they existed
            columns.append(pa.array([OPTIONAL[field.name]] * table.num_rows, field.type))
            continue
        if field.name not in table.column_names:
            raise ArenaRefused(f"votes: {path} has no column {field.name!r}; it is not an `arena export` file")
        try:
            columns.append(table[field.name].cast(field.type))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise ArenaRefused(f"{field.name}: column of {path} is {table.schema.field(field.name).type}, expected "
                               f"{field.type}") from None
    table = pa.Table.from_arrays(columns, schema=SCHEMA)
    frame = table.to_pandas()
    for column in ("vote_id", "battle_id", "player_a", "player_b", "caption_a", "caption_b", "winner", "voter"):
        if frame[column].isna().any() or (frame[column] == "").any():
            row = int(frame.index[frame[column].isna() | (frame[column] == "")][0])
            raise ArenaRefused(f"{column}: empty in row {row} of {path}")
    frame = deduplicate(frame, str(path))
    return recount(frame, settings, include_simulated)


def deduplicate(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """One row per vote: a row repeated exactly (but for the derived `counted`) is dropped, and counted in
    `attrs["duplicates_dropped"]`; two rows that share a `vote_id` or a `battle_id` but differ are refused, naming
    both rows and the first column they differ in."""
    facts = [c for c in frame.columns if c not in DERIVED]
    keys = pd.Series(pd.util.hash_pandas_object(frame[facts], index=False).to_numpy(), index=frame.index)
    for column in ("vote_id", "battle_id"):
        first: dict[str, int] = {}
        for row, (key, fact) in enumerate(zip(frame[column], keys, strict=True)):
            if key not in first:
                first[key] = row
                continue
            other = first[key]
            if keys.iloc[other] != fact:
                differ = next((c for c in facts if repr(frame[c].iloc[other]) != repr(frame[c].iloc[row])), "a value")
                raise ArenaRefused(f"{column}: rows {other} and {row} of {source} are both {key!r} but differ in "
                                   f"{differ!r}; the file contradicts itself, export it again from the arena")
    duplicated = keys.duplicated().to_numpy()
    out = frame[~duplicated].reset_index(drop=True)
    out.attrs["duplicates_dropped"] = int(duplicated.sum())
    return out
