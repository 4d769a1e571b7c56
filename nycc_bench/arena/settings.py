"""The arena's operator settings, read from the environment (a Space's variables; the token secret is a secret)."""

from __future__ import annotations

import os
from dataclasses import dataclass

ENV_HELP = {
    "NYCC_ARENA_SECRET": "key that signs battle tokens (a Space secret); unset: a random key per process",
    "NYCC_ARENA_DAILY_CAP": "votes per visitor per 24 hours (default 200)",
    "NYCC_ARENA_MIN_SECONDS": "shortest time between showing a battle and a vote on it (default 3)",
    "NYCC_ARENA_TOKEN_TTL_S": "seconds a battle stays open for a vote (default 1800)",
    "NYCC_ARENA_GOLD_SHARE": "share of battles that are gold probes (default 0.1)",
    "NYCC_ARENA_GOLD_THRESHOLD": "gold accuracy below which a visitor's votes are left out (default 0.8)",
    "NYCC_ARENA_GOLD_MIN": "gold probes a visitor answers before any of their votes count (default 5)",
    "NYCC_ARENA_PROBE_EVERY": "until then, one battle in this many is a probe (default 3: one in the first three)",
    "NYCC_ARENA_COUNT_ANONYMOUS": "1: count votes of visitors who are not signed in, keyed on their client address "
                                  "(default 0: recorded, not counted)",
    "NYCC_ARENA_ANONYMOUS_CAP": "votes per client address per 24 hours when not signed in (default 50)",
    "NYCC_ARENA_ADDRESS_KEY": "key of the client-address hash stored with each vote (a Space secret); unset: "
                              "NYCC_ARENA_SECRET, else the store's own random salt",
    "NYCC_ARENA_MIRROR_S": "on a Space, seconds between copies of new votes to the results repo (default 60)",
}


@dataclass(frozen=True)
class ArenaSettings:
    """Caps, timings and the gold-probe rule (the defaults are the documented ones)."""

    daily_cap: int = 200
    min_seconds: float = 3.0
    token_ttl_s: float = 1800.0
    gold_share: float = 0.1
    gold_threshold: float = 0.8  # with gold_min: chosen by benchmarks/arena.py's simulation of the rule
    gold_min: int = 5
    probe_every: int = 3
    count_anonymous: bool = False
    anonymous_cap: int = 50
    mirror_s: float = 60.0

    @classmethod
    def from_env(cls, **overrides: object) -> ArenaSettings:
        """Settings from NYCC_ARENA_* (explicit arguments win); a malformed value is one line naming it."""
        values: dict[str, object] = {}
        for name, key, kind in (("NYCC_ARENA_DAILY_CAP", "daily_cap", int),
                                ("NYCC_ARENA_MIN_SECONDS", "min_seconds", float),
                                ("NYCC_ARENA_TOKEN_TTL_S", "token_ttl_s", float),
                                ("NYCC_ARENA_GOLD_SHARE", "gold_share", float),
                                ("NYCC_ARENA_GOLD_THRESHOLD", "gold_threshold", float),
                                ("NYCC_ARENA_GOLD_MIN", "gold_min", int),
                                ("NYCC_ARENA_PROBE_EVERY", "probe_every", int),
                                ("NYCC_ARENA_COUNT_ANONYMOUS", "count_anonymous", _flag),
                                ("NYCC_ARENA_ANONYMOUS_CAP", "anonymous_cap", int),
                                ("NYCC_ARENA_MIRROR_S", "mirror_s", float)):
            text = os.environ.get(name, "").strip()
            if text:
                try:
                    values[key] = kind(text)
                except ValueError:
                    expected = "0 or 1" if kind is _flag else f"a {kind.__name__}"
                    raise ValueError(f"{name}: expected {expected}, got {text!r}") from None
        values.update(overrides)
        settings = cls(**values)  # type: ignore[arg-type]
        if settings.probe_every < 1:
            raise ValueError(f"NYCC_ARENA_PROBE_EVERY: at least 1, got {settings.probe_every}")
        if not 0 <= settings.gold_share < 1:
            raise ValueError(f"NYCC_ARENA_GOLD_SHARE: a share in [0, 1), got {settings.gold_share}")
        return settings


def _flag(text: str) -> bool:
    """1/true/yes or 0/false/no (a malformed value is a ValueError the caller names)."""
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)
