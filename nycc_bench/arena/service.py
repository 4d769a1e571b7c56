"""The arena itself: serve a battle (two captions of one cartoon by two players, sides at random, an opaque signed
token) and record a vote on it (token checked, minimum time, daily cap, single use, gold probes scored). The Space's
tab, the demo's simulated voters and the tests all go through these two methods.

A visitor is a signed-in account (`user:<name>`) or, when not signed in, its client address (`address:<host>`, as
the server sees it through the trusted-proxy rule), never anything the client chooses; anonymous visitors have their
own daily cap and count only when the operator says so (`rules.py`). Until a visitor has answered `gold_min` probes,
one battle in every `probe_every` is a probe, at a position drawn from a server-side key (so at least one in the
first three, and a visitor cannot tell which)."""

from __future__ import annotations

import hashlib
import hmac
import os
import random
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import ArenaRefused
from .pool import GOLD_DECOY, GOLD_REAL, Caption, Cartoon, Pool
from .rules import ACCOUNT, ANONYMOUS, probe_due
from .settings import ArenaSettings
from .tokens import SECRET_ENV, Battle, TokenRefused, Tokens
from .votes import OverCap, Replayed, Vote, VoteStore

CHOICES = ("left", "right", "tie", "both_bad")
ANONYMOUS_PREFIX = "address:"  # a visitor not signed in: its client address
ADDRESS_KEY_ENV = "NYCC_ARENA_ADDRESS_KEY"


@dataclass(frozen=True)
class Served:
    """A battle as a page shows it: the token to send back, the cartoon and the two captions by side."""

    token: str
    battle: Battle
    cartoon: Cartoon
    left: str
    right: str


@dataclass(frozen=True)
class Receipt:
    """A recorded vote and the reveal: who wrote the left and the right caption."""

    vote: Vote
    left_player: str
    right_player: str
    gold_passed: int
    gold_answered: int


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


class Arena:
    """Battles and votes over one vote store and one pool of captions."""

    def __init__(self, store: VoteStore, pool: Pool, settings: ArenaSettings | None = None,
                 tokens: Tokens | None = None, clock: Callable[[], float] = time.time, seed: int | None = None) -> None:
        self.store, self.settings = store, settings or ArenaSettings()
        self.tokens = tokens or Tokens(max_age_s=self.settings.token_ttl_s)
        self.clock = clock
        self.rng = random.Random(seed)
        # ids: unguessable in a live arena; from their own seeded stream in a simulated one (seed given), so a
        # regenerated seed round is the same file, and drawing ids leaves the battles' random choices as they were
        ids = random.Random(f"ids-{seed}") if seed is not None else None
        self._new_id: Callable[[], str] = (lambda: f"{ids.getrandbits(64):016x}") if ids else (
            lambda: secrets.token_hex(8))
        self._lock = threading.Lock()
        self._seen: dict[str, set[tuple[str, str]]] = {}
        self._served: dict[str, int] = {}  # battles served per visitor (the probe schedule's position)
        self._counts = store.pair_counts()
        self.on_vote: list[Callable[[Vote], Any]] = []  # e.g. the Hub mirror's push
        self.set_pool(pool)

    def set_pool(self, pool: Pool) -> None:
        """Use a new pool (a run published or removed): battles pair only its players; votes naming a caption it
        no longer has are refused as a retired player's."""
        pairs: dict[tuple[str, str], list[int]] = {}
        for contest, by_player in pool.by_contest.items():
            if not pool.cartoons[contest].judgeable:
                continue
            players = sorted(p for p, ids in by_player.items() if ids)
            for i, a in enumerate(players):
                for b in players[i + 1:]:
                    pairs.setdefault((a, b), []).append(contest)
        with self._lock:
            self.pool, self._pairs = pool, pairs

    def voter(self, visitor: str) -> str:
        """The pseudonymous voter id stored with a vote (keyed by the store's salt; the name is never stored)."""
        if not visitor or not isinstance(visitor, str):
            raise ArenaRefused("visitor: no session; reload the page")
        return hmac.new(self.store.salt.encode(), visitor.encode(), hashlib.sha256).hexdigest()[:16]

    def address_hash(self, address: str | None) -> str:
        """The keyed hash of a client address stored with a vote (HMAC-SHA256 keyed by NYCC_ARENA_ADDRESS_KEY, else
        NYCC_ARENA_SECRET, else the store's salt), so an operator can find one address's votes, never read it."""
        if not address:
            return ""
        key = os.environ.get(ADDRESS_KEY_ENV) or os.environ.get(SECRET_ENV) or self.store.salt
        return hmac.new(key.encode(), address.encode(), hashlib.sha256).hexdigest()[:24]

    def _probe_due(self, voter: str, served: int) -> bool:
        """Whether the visitor's next battle is a probe (`rules.probe_due`, keyed by the store's salt)."""
        settings = self.settings
        return probe_due(self.store.salt, voter, served, self.store.gold_record(voter)[1], settings.gold_min,
                         settings.probe_every, settings.gold_share, self.rng.random())

    # -- serving ------------------------------------------------------------------------------------------------
    def next_battle(self, visitor: str) -> Served:
        """The next battle for this visitor: a gold probe with the configured share, else the least-voted pair of
        players with a cartoon and a caption pair this visitor has not seen."""
        voter = self.voter(visitor)
        with self._lock:
            seen = self._seen.get(voter)
            if seen is None:
                seen = self._seen[voter] = self.store.seen(voter)
            served = self._served.get(voter)
            if served is None:
                served = self.store.read_one("SELECT COUNT(*) FROM battles WHERE voter = ?", (voter,))
            self._served[voter] = served + 1
            # the scheduler's pick is made for every battle, a probe or not, so serving a probe takes no less time
            pick = self._pick(seen) or self._pick(set())
            if self.pool.real and len(self.pool.real) > 1 and self._probe_due(voter, served):
                pick = self._gold(seen) or pick
            if pick is None:
                raise ArenaRefused("arena: no cartoon has captions from two players yet; publish a caption_generation "
                                   "run or build the caption_generation config")
            contest, a, b, gold = pick
            battle = Battle(self._new_id(), contest, a.id, b.id, self.rng.choice("ab"), gold, voter)
            seen.add(pair_key(a.id, b.id))
        shown = self.clock()
        self.store.add_battle(battle.battle_id, voter, contest, a.id, b.id, battle.left_side, gold, shown)
        left, right = (a, b) if battle.left_side == "a" else (b, a)
        return Served(self.tokens.issue(battle), battle, self.pool.cartoons[contest], left.text, right.text)

    def _gold(self, seen: set[tuple[str, str]]) -> tuple[int, Caption, Caption, bool] | None:
        """A real caption of a cartoon against a real caption of another cartoon (Hessel's matching)."""
        contests = list(self.pool.real)
        for _ in range(10):
            contest, other = self.rng.sample(contests, 2)
            if not self.pool.cartoons[contest].judgeable:
                continue
            real = self.pool.captions[self.rng.choice(self.pool.real[contest])]
            decoy = self.pool.captions[self.rng.choice(self.pool.real[other])]
            if pair_key(real.id, decoy.id) not in seen and real.text != decoy.text:
                return contest, real, decoy, True
        return None

    def _pick(self, seen: set[tuple[str, str]]) -> tuple[int, Caption, Caption, bool] | None:
        """The least-voted player pair (ties at random) with an unseen caption pair of different texts."""
        order = sorted(self._pairs, key=lambda p: (self._counts.get(p, 0), self.rng.random()))
        for a_player, b_player in order[:200]:
            contests = self._pairs[a_player, b_player]
            for contest in self.rng.sample(contests, min(len(contests), 5)):
                by = self.pool.by_contest[contest]
                for _ in range(4):
                    a = self.pool.captions[self.rng.choice(by[a_player])]
                    b = self.pool.captions[self.rng.choice(by[b_player])]
                    if a.text != b.text and pair_key(a.id, b.id) not in seen:
                        return contest, a, b, False
        return None

    # -- voting -------------------------------------------------------------------------------------------------
    def vote(self, token: Any, choice: str, visitor: str, flag_left: bool = False, flag_right: bool = False,
             simulated: bool = False, address: str | None = None) -> Receipt:
        """Record a vote on a served battle, or refuse it with the reason (`ArenaRefused`). `address` is the client
        address (its keyed hash is stored); a visitor `address:<host>` is anonymous."""
        if choice not in CHOICES:
            raise ArenaRefused(f"choice: expected one of {', '.join(CHOICES)}, got {choice!r}")
        voter = self.voter(visitor)
        battle_id, _ = self.tokens.check(token, voter)
        now = self.clock()
        row = self.store.rows("SELECT voter, contest, caption_a, caption_b, left_side, gold, shown_at FROM battles "
                              "WHERE battle_id = ?", (battle_id,))
        if not row or row[0][0] != voter:
            raise TokenRefused("token: this arena has no record of serving the battle; load a new battle")
        battle = Battle(battle_id, int(row[0][1]), row[0][2], row[0][3], row[0][4], bool(row[0][5]), voter)
        shown = float(row[0][6])
        anonymous = visitor.startswith(ANONYMOUS_PREFIX)
        if now - shown < self.settings.min_seconds:
            raise ArenaRefused(f"vote: cast {now - shown:.1f} s after the battle was shown; read both captions "
                               f"(at least {self.settings.min_seconds:g} s) and vote again")
        if battle.contest not in self.pool.cartoons:
            raise ArenaRefused(f"contest: {battle.contest} is not a cartoon of this arena any more; load a new battle")
        a, b = self.pool.captions.get(battle.caption_a), self.pool.captions.get(battle.caption_b)
        for field, caption in (("caption_a", a), ("caption_b", b)):
            if caption is None:
                raise ArenaRefused(f"{field}: written by a retired player (its run was removed); load a new battle")
        assert a is not None and b is not None
        winner = choice if choice in ("tie", "both_bad") else (
            battle.left_side if choice == "left" else ("b" if battle.left_side == "a" else "a"))
        flags = (flag_left, flag_right) if battle.left_side == "a" else (flag_right, flag_left)
        player_a, player_b = (GOLD_REAL, GOLD_DECOY) if battle.gold else (a.player, b.player)
        vote = Vote(self._new_id(), battle.battle_id, voter, battle.contest, a.id, b.id, player_a, player_b,
                    a.text, b.text, self.pool.cartoons[battle.contest].description, battle.left_side, winner,
                    bool(flags[0]), bool(flags[1]), shown, now, battle.gold, (winner == "a") if battle.gold else None,
                    simulated, ANONYMOUS if anonymous else ACCOUNT, self.address_hash(address))
        cap = self.settings.anonymous_cap if anonymous else self.settings.daily_cap
        try:
            self.store.add_vote(vote, cap)
        except Replayed:
            raise TokenRefused("token: this battle already has its vote (a replayed token); load a new "
                               "battle") from None
        except OverCap:
            raise ArenaRefused(f"vote: the daily cap of {cap} votes{' per address' if anonymous else ''} is "
                               "reached; come back tomorrow") from None
        if not battle.gold:
            with self._lock:
                key = pair_key(a.player, b.player)
                self._counts[key] = self._counts.get(key, 0) + 1
        for hook in self.on_vote:
            hook(vote)
        passed, answered = self.store.gold_record(voter)
        left, right = (player_a, player_b) if battle.left_side == "a" else (player_b, player_a)
        return Receipt(vote, self.pool.name(left), self.pool.name(right), passed, answered)
