"""Votes copied to the store's Hub dataset repo, as results are: new votes go up as one JSONL shard per push, named
after its first vote (`arena/votes/<first vote id>.jsonl`); a push that fails leaves them marked unmirrored,
retried on the next one, and the error is shown meanwhile. Each vote is on the Hub once: a push whose commit
landed but whose answer was lost (a timeout) is recognised on the retry (the shard is there) and not committed
again, and a retry after a restart rewrites the same shard (the same first vote) rather than adding a second.

At start the shards the snapshot brought down are read back into SQLite: a malformed line is skipped (logged,
counted, shown to the operator on the tab), every good vote is kept, and a vote already stored is not added twice,
so a Space that lost its disk loses no vote that reached the Hub, and one bad line never takes the arena down."""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .votes import Vote, VoteStore

log = logging.getLogger("nycc_bench.arena")
SHARDS = "arena/votes"


def read_shards(folder: Path, problems: list[str] | None = None) -> list[Vote]:
    """Every vote in the JSONL shards of a folder, oldest shard first; a malformed line is skipped, logged and its
    reason appended to `problems`."""
    out = []
    for path in sorted(Path(folder).glob("*.jsonl")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            _problem(problems, f"{path.name}: unreadable ({err})")
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                vote = Vote(**json.loads(line))
            except (TypeError, ValueError) as err:
                _problem(problems, f"{path.name} line {n}: {' '.join(str(err).split())[:120]}")
                continue
            if (reason := vote.problem()) is not None:
                _problem(problems, f"{path.name} line {n}: {reason}")
                continue
            out.append(vote)
    return out


def _problem(problems: list[str] | None, text: str) -> None:
    log.warning("arena: left out of the restore: %s", text)
    if problems is not None:
        problems.append(text)


def shard_text(votes: list[Vote]) -> str:
    return "".join(json.dumps(asdict(v), ensure_ascii=False, sort_keys=True) + "\n" for v in votes)


class VoteMirror:
    """Pushes unmirrored votes to `repo_id` (a Hub dataset; `api` is an `HfApi`-like object), at most every
    `interval_s` seconds, in a background thread."""

    def __init__(self, store: VoteStore, api: Any, repo_id: str, interval_s: float = 60.0) -> None:
        self.store, self.api, self.repo_id, self.interval_s = store, api, repo_id, interval_s
        self.error: str | None = None
        self.skipped: list[str] = []  # malformed lines the last restore left out (shown to the operator)
        self._pending: tuple[str, list[str]] | None = None  # a push whose outcome is unknown: its path and vote ids
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._started: threading.Timer | None = None  # the last timer started, kept after it fires (for `wait`)
        self._last = 0.0

    def restore(self, snapshot_root: Path) -> int:
        """Votes of the shards under a snapshot of the repo, into the store (already mirrored by definition); the
        malformed lines skipped are kept in `skipped`."""
        problems: list[str] = []
        added = self.store.add_many(read_shards(Path(snapshot_root) / SHARDS, problems), mirrored=True,
                                    problems=problems)
        self.skipped = problems
        return added

    def _landed(self, path: str) -> bool:
        """Whether a shard is on the Hub (a push whose answer was lost may have committed)."""
        exists = getattr(self.api, "file_exists", None)
        if exists is None:
            return False
        try:
            return bool(exists(self.repo_id, path, repo_type="dataset"))
        except Exception:  # unknown: push again (to the same path, so still once)
            return False

    def push(self) -> int:
        """Upload the votes not yet mirrored as one shard; returns how many (0 on failure, kept for later)."""
        with self._lock:
            self._timer = None
            if self._pending is not None and self._landed(self._pending[0]):  # it committed: never again
                self.store.mark_mirrored(self._pending[1])
            self._pending = None
            votes = self.store.unmirrored()
            if not votes:
                return 0
            path = f"{SHARDS}/{votes[0].vote_id}.jsonl"  # the same first vote, the same shard: a vote is there once
            try:
                self.api.upload_file(path_or_fileobj=shard_text(votes).encode(), path_in_repo=path,
                                     repo_id=self.repo_id, repo_type="dataset",
                                     commit_message=f"arena: {len(votes)} vote(s)")
            except Exception as err:  # kept unmirrored and retried; the tab says so meanwhile
                self._pending = (path, [v.vote_id for v in votes])
                self.error = (f"{len(votes)} arena vote(s) not yet copied to {self.repo_id} (kept on disk, retried): "
                              f"{' '.join(str(err).split())[:160]}")
                log.warning("arena: %s", self.error)
                return 0
            self.store.mark_mirrored([v.vote_id for v in votes])
            self.error, self._last = None, time.time()
            return len(votes)

    def schedule(self, _vote: Vote | None = None) -> None:
        """After a vote: push now if the last push is older than the interval, else once it is."""
        with self._lock:
            if self._timer is not None:
                return
            delay = max(0.0, self._last + self.interval_s - time.time())
            self._timer = self._started = threading.Timer(delay, self.push)
            self._timer.daemon = True
            self._timer.start()

    def wait(self, timeout: float | None = None) -> None:
        """Until the last scheduled push has run (a timer that already fired returns at once)."""
        if self._started is not None:
            self._started.join(timeout)
