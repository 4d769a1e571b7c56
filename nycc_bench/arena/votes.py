"""The arena's votes in SQLite (WAL, synchronous FULL): append-only, so a vote, once acknowledged, survives a
restart or a kill -9, and no code path can change or delete one (triggers refuse UPDATE and DELETE).

Three tables: `battles` (every battle served: who saw which pair, when; the scheduler's memory), `votes` (one row
per counted-or-not vote, never changed) and `mirrored` (the ids of votes already copied to the Hub). Whether a
vote counts (`rules.py`: the account or address behind it, its visitor's gold probes and sides) is decided when
ratings are computed, so a visitor left out is recorded, never deleted. Each vote carries its voter's kind (a
signed-in account or an anonymous client address) and a keyed hash of the client address, so an operator can clean
a stuffed export after the fact (`arena export --drop-address`).

A disk that fills is one plain sentence for the visitor (`DiskFull`), never SQLite's error.
"""

from __future__ import annotations

import errno
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..sqlite_write import immediate, use_wal
from .errors import ArenaRefused

WINNERS = ("a", "b", "tie", "both_bad")
SIDES = ("a", "b")
DAY_S = 24 * 3600.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS battles (battle_id TEXT PRIMARY KEY, voter TEXT NOT NULL, contest INTEGER NOT NULL,
    caption_a TEXT NOT NULL, caption_b TEXT NOT NULL, left_side TEXT NOT NULL, gold INTEGER NOT NULL,
    shown_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS battles_voter ON battles(voter);
CREATE TABLE IF NOT EXISTS votes (seq INTEGER PRIMARY KEY AUTOINCREMENT, vote_id TEXT NOT NULL UNIQUE,
    battle_id TEXT NOT NULL UNIQUE, voter TEXT NOT NULL, contest INTEGER NOT NULL,
    caption_a TEXT NOT NULL, caption_b TEXT NOT NULL, player_a TEXT NOT NULL, player_b TEXT NOT NULL,
    text_a TEXT NOT NULL, text_b TEXT NOT NULL, description TEXT NOT NULL,
    left_side TEXT NOT NULL CHECK (left_side IN ('a', 'b')),
    winner TEXT NOT NULL CHECK (winner IN ('a', 'b', 'tie', 'both_bad')), flag_a INTEGER NOT NULL,
    flag_b INTEGER NOT NULL, shown_at REAL NOT NULL, voted_at REAL NOT NULL, gold INTEGER NOT NULL,
    gold_correct INTEGER, simulated INTEGER NOT NULL DEFAULT 0, voter_kind TEXT NOT NULL DEFAULT 'account',
    address_hash TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS votes_voter ON votes(voter, voted_at);
CREATE TRIGGER IF NOT EXISTS votes_no_update BEFORE UPDATE ON votes
    BEGIN SELECT RAISE(ABORT, 'votes are append-only'); END;
CREATE TRIGGER IF NOT EXISTS votes_no_delete BEFORE DELETE ON votes
    BEGIN SELECT RAISE(ABORT, 'votes are append-only'); END;
CREATE TABLE IF NOT EXISTS mirrored (vote_id TEXT PRIMARY KEY);
"""


_ADDED_COLUMNS = {"voter_kind": "TEXT NOT NULL DEFAULT 'account'", "address_hash": "TEXT NOT NULL DEFAULT ''"}
DISK_FULL = ("Your vote could not be saved because the server's disk is full; nothing was recorded, so please try "
             "again later.")


class DiskFull(ArenaRefused):
    """The store's disk (or SQLite's page limit) is full: the visitor reads one plain sentence."""


class Replayed(ValueError):
    """A second vote on one battle."""


class OverCap(ValueError):
    """A visitor over the daily cap."""


@dataclass(frozen=True)
class Vote:
    """One stored vote (the columns of `votes`, less its sequence number)."""

    vote_id: str
    battle_id: str
    voter: str
    contest: int
    caption_a: str
    caption_b: str
    player_a: str
    player_b: str
    text_a: str
    text_b: str
    description: str  # the cartoon's, as shown (judges read it)
    left_side: str
    winner: str
    flag_a: bool
    flag_b: bool
    shown_at: float
    voted_at: float
    gold: bool
    gold_correct: bool | None
    simulated: bool = False
    voter_kind: str = "account"  # "account" (signed in) | "anonymous" (keyed on the client address)
    address_hash: str = ""  # keyed hash of the client address ("" for simulated voters)

    def problem(self) -> str | None:
        """Why this vote cannot be stored (a malformed line of a Hub shard), or None."""
        checks = (("winner", self.winner in WINNERS), ("left_side", self.left_side in SIDES),
                  ("contest", isinstance(self.contest, int) and not isinstance(self.contest, bool)),
                  ("voter_kind", self.voter_kind in ("account", "anonymous")))
        for name in ("vote_id", "battle_id", "voter", "caption_a", "caption_b", "player_a", "player_b", "text_a",
                     "text_b", "description", "address_hash"):
            checks += ((name, isinstance(getattr(self, name), str) and (bool(getattr(self, name)) or name in (
                "description", "address_hash"))),)
        for name in ("shown_at", "voted_at"):
            checks += ((name, isinstance(getattr(self, name), (int, float)) and not isinstance(getattr(self, name),
                                                                                              bool)),)
        bad = next((name for name, ok in checks if not ok), None)
        return None if bad is None else f"{bad}: {getattr(self, bad)!r} is not a valid value"


VOTE_COLUMNS = list(Vote.__dataclass_fields__)


class VoteStore:
    """`arena.sqlite` in a folder; one connection per thread, `BEGIN IMMEDIATE` per write, fsync per commit (a
    durable store: every real one)."""

    def __init__(self, folder: str | Path, salt: str | None = None, durable: bool = True) -> None:
        """Open (or create) the store; `salt` keys the voter pseudonyms of a new store (default: random; a
        simulated round passes a fixed one, its voters being no one); `durable=False` (a simulated round, made
        again by rerunning it) commits without an fsync per vote."""
        self.folder = Path(folder)
        self.synchronous = "FULL" if durable else "NORMAL"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "arena.sqlite"
        self._local = threading.local()
        db = self._connect()
        use_wal(db)
        db.executescript(_SCHEMA)
        with self._write() as db:  # a store written before the columns existed gains them (old votes: accounts)
            have = {row[1] for row in db.execute("PRAGMA table_info(votes)")}
            for column, kind in _ADDED_COLUMNS.items():
                if column not in have:
                    db.execute(f"ALTER TABLE votes ADD COLUMN {column} {kind}")
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('salt', ?)", (salt or secrets.token_hex(16),))
        self.salt = self.read_one("SELECT value FROM meta WHERE key = 'salt'")

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection (WAL readers never block the writer)."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
            db.execute(f"PRAGMA synchronous={self.synchronous}")  # FULL: a vote is on disk before it is acknowledged
            self._local.db = db
        return db

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction on this thread's connection."""
        return immediate(self._connect())

    @contextmanager
    def _visitor_write(self) -> Iterator[sqlite3.Connection]:
        """A write made for a visitor: a full disk is `DiskFull` (one plain sentence), never SQLite's error."""
        try:
            with self._write() as db:
                yield db
        except sqlite3.OperationalError as err:
            if "full" in str(err).lower():
                raise DiskFull(DISK_FULL) from None
            raise
        except OSError as err:
            if err.errno == errno.ENOSPC:
                raise DiskFull(DISK_FULL) from None
            raise

    def read_one(self, sql: str, args: tuple = ()) -> Any:
        row = self._connect().execute(sql, args).fetchone()
        return None if row is None else row[0]

    def rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        return self._connect().execute(sql, args).fetchall()

    # -- battles ------------------------------------------------------------------------------------------------
    def add_battle(self, battle_id: str, voter: str, contest: int, caption_a: str, caption_b: str, left_side: str,
                   gold: bool, shown_at: float) -> None:
        """Record a served battle (the visitor's seen pairs; the audit of what was issued)."""
        with self._visitor_write() as db:
            db.execute("INSERT INTO battles VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (battle_id, voter, contest, caption_a, caption_b, left_side, int(gold), shown_at))

    def seen(self, voter: str) -> set[tuple[str, str]]:
        """The caption pairs this visitor has been shown."""
        return {(a, b) for a, b in self.rows("SELECT caption_a, caption_b FROM battles WHERE voter = ?", (voter,))}

    # -- votes --------------------------------------------------------------------------------------------------
    def add_vote(self, vote: Vote, daily_cap: int | None = None) -> Vote:
        """Append a vote in one transaction: refused as `Replayed` when its battle has one, `OverCap` when the
        visitor cast `daily_cap` votes in the last 24 hours. Returns once the vote is on disk."""
        with self._visitor_write() as db:
            if daily_cap is not None:
                n = db.execute("SELECT COUNT(*) FROM votes WHERE voter = ? AND voted_at > ?",
                               (vote.voter, vote.voted_at - DAY_S)).fetchone()[0]
                if n >= daily_cap:
                    raise OverCap(f"{n} votes in the last 24 hours")
            try:
                self._insert(db, vote)
            except sqlite3.IntegrityError as err:
                if "battle_id" in str(err):
                    raise Replayed(vote.battle_id) from None
                raise
        return vote

    @staticmethod
    def _insert(db: sqlite3.Connection, vote: Vote) -> None:
        values = asdict(vote)
        db.execute(f"INSERT INTO votes ({', '.join(VOTE_COLUMNS)}) VALUES ({', '.join('?' * len(VOTE_COLUMNS))})",
                   [int(v) if isinstance(v, bool) else v for v in values.values()])

    def add_many(self, votes: list[Vote], mirrored: bool = False, problems: list[str] | None = None) -> int:
        """Votes restored from the Hub or a seed, in one transaction; a vote id or battle id already stored is
        skipped (each vote once), and so is a malformed vote, its reason appended to `problems`: one bad line never
        keeps the good ones out."""
        n = 0
        with self._write() as db:
            for vote in votes:
                reason = vote.problem()
                if reason is None and db.execute("SELECT 1 FROM votes WHERE vote_id = ? OR battle_id = ?",
                                                 (vote.vote_id, vote.battle_id)).fetchone() is None:
                    db.execute("SAVEPOINT one")
                    try:
                        self._insert(db, vote)
                        n += 1
                    except sqlite3.IntegrityError as err:
                        reason = str(err)
                    if reason is not None:
                        db.execute("ROLLBACK TO one")
                    db.execute("RELEASE one")
                if reason is not None:
                    if problems is not None:
                        problems.append(f"vote {vote.vote_id!r}: {reason}")
                    continue
                if mirrored:
                    db.execute("INSERT OR IGNORE INTO mirrored VALUES (?)", (vote.vote_id,))
        return n

    def votes(self, where: str = "", args: tuple = ()) -> list[Vote]:
        """Stored votes in the order they were cast."""
        rows = self.rows(f"SELECT {', '.join(VOTE_COLUMNS)} FROM votes {where} ORDER BY seq", args)
        return [_vote(r) for r in rows]

    def count(self, simulated: bool | None = None) -> int:
        if simulated is None:
            return self.read_one("SELECT COUNT(*) FROM votes")
        return self.read_one("SELECT COUNT(*) FROM votes WHERE simulated = ?", (int(simulated),))

    def pair_counts(self) -> dict[tuple[str, str], int]:
        """Votes per (player, player) pair, sorted names as the key (gold probes excluded)."""
        out: dict[tuple[str, str], int] = {}
        for a, b, n in self.rows("SELECT player_a, player_b, COUNT(*) FROM votes WHERE gold = 0 GROUP BY 1, 2"):
            key = (a, b) if a <= b else (b, a)
            out[key] = out.get(key, 0) + n
        return out

    def gold_record(self, voter: str) -> tuple[int, int]:
        """(gold probes passed, gold probes answered) of one visitor."""
        row = self._connect().execute("SELECT COALESCE(SUM(gold_correct), 0), COUNT(*) FROM votes WHERE voter = ? "
                                      "AND gold = 1", (voter,)).fetchone()
        return int(row[0]), int(row[1])

    def votes_today(self, voter: str, now: float) -> int:
        return self.read_one("SELECT COUNT(*) FROM votes WHERE voter = ? AND voted_at > ?", (voter, now - DAY_S))

    # -- mirror -------------------------------------------------------------------------------------------------
    def unmirrored(self) -> list[Vote]:
        rows = self.rows(f"SELECT {', '.join('v.' + c for c in VOTE_COLUMNS)} FROM votes v LEFT JOIN mirrored m "
                         "ON v.vote_id = m.vote_id WHERE m.vote_id IS NULL ORDER BY v.seq")
        return [_vote(r) for r in rows]

    def mark_mirrored(self, vote_ids: list[str]) -> None:
        with self._write() as db:
            db.executemany("INSERT OR IGNORE INTO mirrored VALUES (?)", [(v,) for v in vote_ids])

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None


def _vote(row: tuple) -> Vote:
    data = dict(zip(VOTE_COLUMNS, row, strict=True))
    for key in ("flag_a", "flag_b", "gold", "simulated"):
        data[key] = bool(data[key])
    data["address_hash"] = data["address_hash"] or ""
    data["gold_correct"] = None if data["gold_correct"] is None else bool(data["gold_correct"])
    return Vote(**data)


def now() -> float:
    """The clock votes are stamped with (one place to read it)."""
    return time.time()
