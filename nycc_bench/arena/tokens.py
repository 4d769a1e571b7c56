"""Battle tokens: an opaque handle on a battle the server issued, signed and timestamped by `itsdangerous`
(HMAC-SHA1 over the payload, the key derived from NYCC_ARENA_SECRET), so a vote can only name a battle the server
served, unchanged and in time. The payload is only the battle's random id and the visitor's pseudonym: what the
battle is (its captions, sides, and whether it is a gold probe) stays in the server's `battles` table, so nothing a
client reads says which battles are probes. Single use is the vote table's UNIQUE battle id, not the token."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from .errors import ArenaRefused

SECRET_ENV = "NYCC_ARENA_SECRET"
SALT = "nycc-bench-arena-battle"


class TokenRefused(ArenaRefused):
    """A vote whose token is missing, forged, altered, expired or for someone else; the message says which."""


@dataclass(frozen=True)
class Battle:
    """What a token names: the battle, the cartoon, both captions, which one is on the left, whether it is a gold
    probe, and the visitor it was served to."""

    battle_id: str
    contest: int
    caption_a: str
    caption_b: str
    left_side: str  # "a" | "b"
    gold: bool
    voter: str

    def payload(self) -> list[Any]:
        """What the token carries: the random battle id and the visitor's pseudonym, nothing else."""
        return [self.battle_id, self.voter]


class Tokens:
    """Sign and check battle tokens. The secret comes from the environment; without it, a random one lives in this
    process only (tokens then die with a restart: the visitor is served a new battle). It is never written."""

    def __init__(self, secret: str | None = None, max_age_s: float = 1800.0) -> None:
        key = secret or os.environ.get(SECRET_ENV) or secrets.token_hex(32)
        self._serializer = URLSafeTimedSerializer(key, salt=SALT)
        self.max_age_s = max_age_s

    def issue(self, battle: Battle) -> str:
        return self._serializer.dumps(battle.payload())

    def check(self, token: Any, voter: str) -> tuple[str, float]:
        """The id of the battle a token names and when it was issued; `TokenRefused` with the reason otherwise."""
        if not isinstance(token, str) or not token:
            raise TokenRefused("token: no battle was served to this page; load a new battle")
        try:
            payload, issued = self._serializer.loads(token, max_age=self.max_age_s, return_timestamp=True)
        except SignatureExpired:
            raise TokenRefused(f"token: expired (battles are open for {self.max_age_s:g} s); load a new "
                               "battle") from None
        except BadSignature:
            raise TokenRefused("token: not issued by this arena (forged or altered); load a new battle") from None
        if not (isinstance(payload, list) and len(payload) == 2 and all(isinstance(x, str) for x in payload)):
            raise TokenRefused("token: malformed payload; load a new battle")
        if payload[1] != voter:
            raise TokenRefused("token: served to another visitor; load a new battle")
        return payload[0], issued.timestamp()
