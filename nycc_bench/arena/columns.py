"""The votes export's columns: its Arrow schema and what each column means (the `arena_votes` dataset config's
features and card text), apart from `export.py` so that `nycc-bench build` reads them without pandas."""

from __future__ import annotations

import pyarrow as pa

SCHEMA = pa.schema([
    ("vote_id", pa.string()), ("battle_id", pa.string()), ("contest_number", pa.int64()),
    ("caption_a_id", pa.string()), ("caption_b_id", pa.string()), ("player_a", pa.string()),
    ("player_b", pa.string()), ("caption_a", pa.string()), ("caption_b", pa.string()),
    ("description", pa.string()), ("left_side", pa.string()), ("winner", pa.string()), ("flag_a", pa.bool_()),
    ("flag_b", pa.bool_()), ("voter", pa.string()), ("shown_at", pa.timestamp("ms", tz="UTC")),
    ("voted_at", pa.timestamp("ms", tz="UTC")), ("gold", pa.bool_()), ("gold_correct", pa.bool_()),
    ("counted", pa.bool_()), ("excluded_reason", pa.string()), ("simulated", pa.bool_()),
    ("voter_kind", pa.string()), ("address_hash", pa.string()),
])
DESCRIPTIONS = {
    "vote_id": "the vote's id", "battle_id": "the battle (token) it answers; one vote per battle",
    "contest_number": "the cartoon (New Yorker contest number)",
    "caption_a_id": "caption A's id (a hash of player, cartoon and displayed text)", "caption_b_id": "caption B's id",
    "player_a": "who wrote caption A: human:<group>, run:<run id>, or gold:real / gold:decoy for a probe",
    "player_b": "who wrote caption B", "caption_a": "caption A as shown", "caption_b": "caption B as shown",
    "description": "the cartoon's description", "left_side": "which caption was on the left (a or b)",
    "winner": "a, b, tie or both_bad", "flag_a": "caption A flagged as offensive",
    "flag_b": "caption B flagged as offensive",
    "voter": "pseudonymous visitor id (a keyed hash of the signed-in account, or of the client address when not "
             "signed in)",
    "shown_at": "when the battle was shown (UTC)", "voted_at": "when the vote was cast (UTC)",
    "gold": "a gold probe: the cartoon's real caption (A) against one written for another cartoon (B)",
    "gold_correct": "a probe's outcome (the real caption picked); null for other battles",
    "counted": "enters the ratings (decided by the arena's rules from the probes and sides, recomputed whenever the "
               "file is read: not a probe, a person's vote, enough probes answered and passed, not side-biased, "
               "signed in or anonymous votes counted by the operator)",
    "excluded_reason": "why a vote does not count", "simulated": "cast by a simulated voter (the demo's seed)",
    "voter_kind": "account (signed in with Hugging Face) or anonymous (keyed on the client address)",
    "address_hash": "keyed hash (HMAC-SHA256, server secret) of the client address, so an operator can drop or cap "
                    "one address's votes (`arena export --drop-address/--cap-address`); empty for simulated votes",
}
