"""Which votes count: one recorded rule, applied to the stored votes (the tab), to an export read back (`arena
ratings`, the `arena_votes` builder) and to the benchmark's simulation, never read from a `counted` column.

A visitor's non-probe votes count when all of these hold, else every one of them is kept with the reason:
- the vote was cast by a signed-in account, or anonymously while the operator counts anonymous votes
  (`NYCC_ARENA_COUNT_ANONYMOUS`; anonymous visitors are keyed on their client address);
- the visitor answered at least `gold_min` gold probes (before that the rule means nothing: a random clicker passes
  one probe in two) and passed at least `gold_threshold` of them;
- the visitor does not nearly always pick one side (`SIDE_SHARE` of at least `SIDE_MIN_VOTES` decisive votes);
- the vote is a person's, or simulated votes were asked for (`--include-simulated`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

SIDE_MIN_VOTES = 12  # decisive votes before a visitor's side preference is judged
SIDE_SHARE = 0.9  # "nearly always one side"
ANONYMOUS = "anonymous"
ACCOUNT = "account"


@dataclass
class VoterRecord:
    """What the rule reads of one visitor: probes answered and passed, decisive votes and those for the left."""

    kind: str = ACCOUNT
    answered: int = 0
    passed: int = 0
    decisive: int = 0
    left: int = 0

    def add(self, gold: bool, gold_correct: bool, winner: str, left_side: str) -> None:
        if gold:
            self.answered += 1
            self.passed += bool(gold_correct)
        elif winner in ("a", "b"):
            self.decisive += 1
            self.left += winner == left_side


def voter_reason(record: VoterRecord, gold_min: int, gold_threshold: float, count_anonymous: bool) -> str | None:
    """Why a visitor's votes do not count, or None when they do."""
    if record.kind == ANONYMOUS and not count_anonymous:
        return "anonymous vote (counted only when the operator sets NYCC_ARENA_COUNT_ANONYMOUS=1); sign in to count"
    if record.answered < gold_min:
        return f"{record.answered} of the {gold_min} gold probes needed answered so far"
    if record.answered and record.passed / record.answered < gold_threshold:
        return f"gold accuracy {record.passed}/{record.answered} below {gold_threshold:.0%}"
    if record.decisive >= SIDE_MIN_VOTES:
        share = max(record.left, record.decisive - record.left) / record.decisive
        if share >= SIDE_SHARE:
            return f"side-biased: {share:.0%} of {record.decisive} decisive votes on one side"
    return None


def probe_due(key: str, voter: str, served: int, answered: int, gold_min: int, probe_every: int,
              gold_share: float, draw: float) -> bool:
    """Whether a visitor's next battle (its `served`-th, 0-based) is a gold probe: until it has answered `gold_min`
    probes, the battle at a keyed position of each block of `probe_every` (at least one in the first three, never
    at a place a visitor can know), and `gold_share` of the rest (`draw` a uniform number); never with probes off
    (`gold_share` 0)."""
    if gold_share <= 0:
        return False
    if answered < gold_min:
        block, k = divmod(served, probe_every)
        digest = hmac.new(key.encode(), f"probe\x1f{voter}\x1f{block}".encode(), hashlib.sha256).digest()
        if k == int.from_bytes(digest[:4], "big") % probe_every:
            return True
    return draw < gold_share


def records(rows: Iterable[tuple[Hashable, str, bool, bool, str, str]]) -> dict[Hashable, VoterRecord]:
    """Per visitor, from (voter, voter_kind, gold, gold_correct, winner, left_side) rows (an account and an address
    are never one voter: the voter id hashes `user:` or `address:` with the name)."""
    out: dict[Hashable, VoterRecord] = {}
    for voter, kind, gold, correct, winner, left_side in rows:
        record = out.setdefault(voter, VoterRecord(kind or ACCOUNT))
        record.add(bool(gold), bool(correct), winner, left_side)
    return out
