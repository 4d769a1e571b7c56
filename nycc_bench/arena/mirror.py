"""Votes copied to the store's Hub dataset repo, as results are: new votes go up as one append-only JSONL shard
(`arena/votes/<time>-<first vote id>.jsonl`) per push; a push that fails leaves them marked unmirrored, retried on
the next one, and the error is shown meanwhile. At start the shards the snapshot brought down are read back into
SQLite, so a Space that lost its disk loses no vote that reached the Hub, and one that kept it loses none at all."""

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


def read_shards(folder: Path) -> list[Vote]:
    """Every vote in the JSONL shards of a folder, oldest shard first (a malformed line is skipped and logged)."""
    out = []
    for path in sorted(Path(folder).glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                out.append(Vote(**json.loads(line)))
            except (TypeError, ValueError) as err:
                log.warning("arena: %s line %d left out: %s", path.name, n, err)
    return out


def shard_text(votes: list[Vote]) -> str:
    return "".join(json.dumps(asdict(v), ensure_ascii=False, sort_keys=True) + "\n" for v in votes)


class VoteMirror:
    """Pushes unmirrored votes to `repo_id` (a Hub dataset; `api` is an `HfApi`-like object), at most every
    `interval_s` seconds, in a background thread."""

    def __init__(self, store: VoteStore, api: Any, repo_id: str, interval_s: float = 60.0) -> None:
        self.store, self.api, self.repo_id, self.interval_s = store, api, repo_id, interval_s
        self.error: str | None = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._started: threading.Timer | None = None  # the last timer started, kept after it fires (for `wait`)
        self._last = 0.0

    def restore(self, snapshot_root: Path) -> int:
        """Votes of the shards under a snapshot of the repo, into the store (already mirrored by definition)."""
        return self.store.add_many(read_shards(Path(snapshot_root) / SHARDS), mirrored=True)

    def push(self) -> int:
        """Upload the votes not yet mirrored as one shard; returns how many (0 on failure, kept for later)."""
        with self._lock:
            self._timer = None
            votes = self.store.unmirrored()
            if not votes:
                return 0
            path = f"{SHARDS}/{int(time.time() * 1000)}-{votes[0].vote_id}.jsonl"
            try:
                self.api.upload_file(path_or_fileobj=shard_text(votes).encode(), path_in_repo=path,
                                     repo_id=self.repo_id, repo_type="dataset",
                                     commit_message=f"arena: {len(votes)} vote(s)")
            except Exception as err:  # kept unmirrored and retried; the tab says so meanwhile
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
