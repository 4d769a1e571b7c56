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
    "NYCC_ARENA_GOLD_THRESHOLD": "gold accuracy below which a visitor's votes are left out (default 0.75)",
    "NYCC_ARENA_GOLD_MIN": "gold probes a visitor answers before the threshold applies (default 2)",
    "NYCC_ARENA_MIRROR_S": "on a Space, seconds between copies of new votes to the results repo (default 60)",
}


@dataclass(frozen=True)
class ArenaSettings:
    """Caps, timings and the gold-probe rule (the defaults are the documented ones)."""

    daily_cap: int = 200
    min_seconds: float = 3.0
    token_ttl_s: float = 1800.0
    gold_share: float = 0.1
    gold_threshold: float = 0.75
    gold_min: int = 2
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
                                ("NYCC_ARENA_MIRROR_S", "mirror_s", float)):
            text = os.environ.get(name, "").strip()
            if text:
                try:
                    values[key] = kind(text)
                except ValueError:
                    raise ValueError(f"{name}: expected a {kind.__name__}, got {text!r}") from None
        values.update(overrides)
        settings = cls(**values)  # type: ignore[arg-type]
        if not 0 <= settings.gold_share < 1:
            raise ValueError(f"NYCC_ARENA_GOLD_SHARE: a share in [0, 1), got {settings.gold_share}")
        return settings
