"""One published figure beside its recomputation: the value rendered at the printed digits, and its status."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

ZHANG, HUMORBENCH, HESSEL = "zhang2024", "humorbench", "hessel2023"  # paper ids (`--only`), the families' keys
PAPERS = (ZHANG, HUMORBENCH, HESSEL)
MATCH, DIFFERS, KNOWN, ABSENT, SKIPPED = "match", "differs", "differs (known)", "inputs not present", "skipped"
COPIED, IDENTITY, CHECK = "copied", "identity", "check"  # equal, but not a recomputation: never counted as a match
STATUSES = (MATCH, COPIED, IDENTITY, CHECK, DIFFERS, KNOWN, ABSENT, SKIPPED)
# What a row's value is, and the status it gets when it equals the printed one: `recomputed` from upstream's raw
# outputs (a match), `copied` from a cell of the very file the printed figure was made from, `identity` (true by
# construction), `check` (the project's own expectation about upstream's files, not a figure the paper prints).
KINDS = {"recomputed": MATCH, "copied": COPIED, "identity": IDENTITY, "check": CHECK}
_PRINTED = re.compile(r"^(?P<sign>[-+]?)(?P<number>\d{1,3}(?:,\d{3})+|\d*\.?\d+)(?P<unit>%|K)?$")


def render_like(published: str, value: float) -> str:
    """`value` written as `published` is printed: the same decimals, thousands separators, `%` or `K` suffix.

    `value` is in the printed unit (24.45 for "24.4%"; 1681 for "1.6K", which prints thousands).

    >>> render_like("0.9456", 0.945584), render_like("24.4%", 24.449), render_like("1.6K", 1681)
    ('0.9456', '24.4%', '1.7K')
    >>> render_like("284,183,913", 284183913.0), render_like("17", 16.67)
    ('284,183,913', '17')
    """
    m = _PRINTED.match(published.strip())
    if m is None:
        raise ValueError(f"published value {published!r} is not a number as printed (digits, optional , . % K)")
    number, unit = m["number"], m["unit"] or ""
    decimals = len(number.split(".")[1]) if "." in number else 0
    scaled = value / 1000 if unit == "K" else value
    text = f"{scaled:,.{decimals}f}" if "," in number else f"{scaled:.{decimals}f}"
    return text + unit


@dataclass
class Figure:
    """One published number and what the public inputs give for it.

    `published` is the value exactly as the paper (or upstream's published file) prints it; `recomputed` the
    recomputed value rendered at those digits (None when it could not be computed); `needs` the input files
    that were absent; `known` a pinned, explained difference: when the recomputed value is exactly
    `known["recomputed"]` the figure is `differs (known)` instead of `differs`, and any other value still fails;
    `kind` what the value is (`KINDS`): only a `recomputed` value equal to the printed one is a `match`.
    """

    paper: str
    table: str
    row: str
    quantity: str
    published: str
    recomputed: str | None = None
    status: str = ABSENT
    needs: list[str] = field(default_factory=list)
    note: str = ""
    n: int | None = None
    known: dict[str, str] | None = None
    kind: str = "recomputed"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r} is not one of {', '.join(KINDS)}")

    def settle(self, value: float | str | None, *, n: int | None = None, note: str = "") -> Figure:
        """Record the recomputed value (a number is rendered like `published`) and decide the status once."""
        self.n, self.note = n, note or self.note
        if value is None:
            self.status = ABSENT
            return self
        self.recomputed = value if isinstance(value, str) else render_like(self.published, float(value))
        if self.recomputed == self.published:
            self.status = KINDS[self.kind]
        elif self.known and self.recomputed == self.known["recomputed"]:
            self.status, self.note = KNOWN, self.known["reason"]
        else:
            self.status = DIFFERS
        return self

    def absent(self, needs: list[str]) -> Figure:
        """Inputs not present: never a pass; `needs` names each missing file (repository, commit, path)."""
        self.status, self.needs, self.recomputed = ABSENT, list(needs), None
        return self

    def skip(self, reason: str) -> Figure:
        """Not computed on request (e.g. `--no-sbert`); never a pass."""
        self.status, self.note, self.recomputed = SKIPPED, reason, None
        return self

    def to_dict(self) -> dict[str, Any]:
        """The figure as JSON (`--json`)."""
        out = {k: getattr(self, k) for k in ("paper", "table", "row", "quantity", "published", "recomputed",
                                            "status", "kind", "n", "needs", "note")}
        out["match"] = self.status == MATCH
        return out
