"""Votes as data: the export's one schema (the `arena_votes` dataset config has the same features), which votes
count (a visitor's gold accuracy, decided here and recorded beside the vote, never by deleting it), and reading an
export back with one-line errors."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import ArenaRefused
from .settings import ArenaSettings
from .votes import Vote, VoteStore

SCHEMA = pa.schema([
    ("vote_id", pa.string()), ("battle_id", pa.string()), ("contest_number", pa.int64()),
    ("caption_a_id", pa.string()), ("caption_b_id", pa.string()), ("player_a", pa.string()),
    ("player_b", pa.string()), ("caption_a", pa.string()), ("caption_b", pa.string()),
    ("description", pa.string()), ("left_side", pa.string()), ("winner", pa.string()), ("flag_a", pa.bool_()),
    ("flag_b", pa.bool_()), ("voter", pa.string()), ("shown_at", pa.timestamp("ms", tz="UTC")),
    ("voted_at", pa.timestamp("ms", tz="UTC")), ("gold", pa.bool_()), ("gold_correct", pa.bool_()),
    ("counted", pa.bool_()), ("excluded_reason", pa.string()), ("simulated", pa.bool_()),
])
DESCRIPTIONS = {
    "vote_id": "the vote's id", "battle_id": "the battle (token) it answers; one vote per battle",
    "contest_number": "the cartoon (New Yorker contest number)",
    "caption_a_id": "caption A's id (a hash of player, cartoon and displayed text)", "caption_b_id": "caption B's id",
    "player_a": "who wrote caption A: human:<group>, run:<run id>, or gold:real / gold:decoy for a probe",
    "player_b": "who wrote caption B", "caption_a": "caption A as shown", "caption_b": "caption B as shown",
    "description": "the cartoon's description", "left_side": "which caption was on the left (a or b)",
    "winner": "a, b, tie or both_bad", "flag_a": "caption A flagged as offensive",
    "flag_b": "caption B flagged as offensive", "voter": "pseudonymous visitor id (a keyed hash)",
    "shown_at": "when the battle was shown (UTC)", "voted_at": "when the vote was cast (UTC)",
    "gold": "a gold probe: the cartoon's real caption (A) against one written for another cartoon (B)",
    "gold_correct": "a probe's outcome (the real caption picked); null for other battles",
    "counted": "enters the ratings (not a probe, visitor above the gold threshold)",
    "excluded_reason": "why a vote does not count", "simulated": "cast by a simulated voter (the demo's seed)",
}


def excluded_voters(votes: list[Vote], settings: ArenaSettings) -> dict[str, str]:
    """Visitors left out of the ratings, with why: below the gold threshold after enough probes."""
    record: dict[str, list[int]] = {}
    for vote in votes:
        if vote.gold:
            passed = record.setdefault(vote.voter, [0, 0])
            passed[0] += bool(vote.gold_correct)
            passed[1] += 1
    out = {}
    for voter, (passed, answered) in record.items():
        if answered >= settings.gold_min and passed / answered < settings.gold_threshold:
            out[voter] = (f"gold accuracy {passed}/{answered} below {settings.gold_threshold:.0%}")
    return out


def vote_frame(votes: list[Vote], settings: ArenaSettings | None = None) -> pd.DataFrame:
    """The votes in the export's schema, with whether each counts."""
    settings = settings or ArenaSettings()
    excluded = excluded_voters(votes, settings)
    rows = []
    for v in votes:
        reason = "gold probe" if v.gold else excluded.get(v.voter)
        rows.append({"vote_id": v.vote_id, "battle_id": v.battle_id, "contest_number": v.contest,
                     "caption_a_id": v.caption_a, "caption_b_id": v.caption_b, "player_a": v.player_a,
                     "player_b": v.player_b, "caption_a": v.text_a, "caption_b": v.text_b,
                     "description": v.description, "left_side": v.left_side, "winner": v.winner,
                     "flag_a": v.flag_a, "flag_b": v.flag_b, "voter": v.voter,
                     "shown_at": pd.Timestamp(round(v.shown_at * 1000), unit="ms", tz="UTC"),
                     "voted_at": pd.Timestamp(round(v.voted_at * 1000), unit="ms", tz="UTC"), "gold": v.gold,
                     "gold_correct": v.gold_correct, "counted": reason is None, "excluded_reason": reason,
                     "simulated": v.simulated})
    frame = pd.DataFrame(rows, columns=SCHEMA.names)
    return frame.astype({"gold_correct": "boolean"}) if len(frame) else frame


def arena_dir(data_dir: str | Path) -> Path:
    """The arena folder of a leaderboard data dir (`arena/`, or `hub/arena/` for a Hub-backed store)."""
    root = Path(data_dir)
    for folder in (root / "arena", root / "hub" / "arena"):
        if (folder / "arena.sqlite").exists():
            return folder
    raise ArenaRefused(f"data-dir: no arena votes under {root} (expected arena/arena.sqlite); pass the leaderboard's "
                       "data folder (NYCC_LB_DATA_DIR)")


def export_votes(data_dir: str | Path, out: str | Path, settings: ArenaSettings | None = None) -> pd.DataFrame:
    """Write every vote of a leaderboard's data dir to a parquet file; returns the frame."""
    out = Path(out)
    if out.suffix != ".parquet":
        raise ArenaRefused(f"out: {out} must end in .parquet")
    store = VoteStore(arena_dir(data_dir))
    try:
        frame = vote_frame(store.votes(), settings)
    finally:
        store.close()
    write_votes(frame, out)
    return frame


def write_votes(frame: pd.DataFrame, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    pq.write_table(pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False), tmp)
    tmp.replace(out)


def read_votes(path: str | Path) -> pd.DataFrame:
    """An export read back and checked: a missing, unreadable or malformed file is one line naming it."""
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
        if field.name not in table.column_names:
            raise ArenaRefused(f"votes: {path} has no column {field.name!r}; it is not an `arena export` file")
        try:
            columns.append(table[field.name].cast(field.type))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise ArenaRefused(f"{field.name}: column of {path} is {table.schema.field(field.name).type}, expected "
                               f"{field.type}") from None
    table = pa.Table.from_arrays(columns, schema=SCHEMA)
    frame = table.to_pandas()
    for column in ("vote_id", "player_a", "player_b", "caption_a", "caption_b", "winner"):
        if frame[column].isna().any() or (frame[column] == "").any():
            row = int(frame.index[frame[column].isna() | (frame[column] == "")][0])
            raise ArenaRefused(f"{column}: empty in row {row} of {path}")
    return frame
