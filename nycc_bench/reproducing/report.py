"""The report of `reproduce`: which papers, their figures, the table printed and the JSON written."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import NyccBenchError
from . import hessel, humorbench, zhang
from .figures import ABSENT, CHECK, COPIED, DIFFERS, IDENTITY, KNOWN, MATCH, PAPERS, SKIPPED, Figure
from .inputs import Inputs, locate


@dataclass
class Report:
    """The figures of one run, where their inputs came from, and the one verdict: `failed` decides the exit code."""

    figures: list[Figure]
    source: str
    roots: list[str]

    def count(self, status: str) -> int:
        return sum(f.status == status for f in self.figures)

    @property
    def failed(self) -> list[Figure]:
        """Figures that should match and do not (a pinned, explained difference is not among them)."""
        return [f for f in self.figures if f.status == DIFFERS]

    @property
    def absent(self) -> list[Figure]:
        return [f for f in self.figures if f.status == ABSENT]

    def summary(self) -> dict[str, int]:
        """Each status counted apart: only a recomputed figure equal to the printed one is a `match`."""
        return {"figures": len(self.figures), "match": self.count(MATCH), "copied": self.count(COPIED),
                "identity": self.count(IDENTITY), "check": self.count(CHECK), "differs": self.count(DIFFERS),
                "differs_known": self.count(KNOWN), "inputs_not_present": self.count(ABSENT),
                "skipped": self.count(SKIPPED)}

    def to_dict(self) -> dict[str, Any]:
        """The whole report as JSON (`--json`)."""
        return {"source": self.source, "roots": self.roots, "summary": self.summary(),
                "figures": [f.to_dict() for f in self.figures]}

    def text(self) -> str:
        """The table `nycc-bench reproduce` prints: one row per figure, then the absent inputs, then a summary."""
        head = ("paper", "table", "row", "quantity", "published", "recomputed", "status")
        rows = [(f.paper, f.table, f.row, f.quantity, f.published, f.recomputed or "-",
                 "DIFFERS" if f.status == DIFFERS else f.status) for f in self.figures]
        widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
        lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [head, *rows]]
        notes = [f"  {f.table} / {f.row} / {f.quantity}: {f.note}" for f in self.figures
                 if f.note and f.status in (DIFFERS, KNOWN)]
        if notes:
            lines += ["", "differences:", *notes]
        kept = [f for f in self.figures if f.note and f.status in (COPIED, IDENTITY, CHECK)]
        one_note = {t for t in {f.table for f in kept} if len({f.note for f in kept if f.table == t}) == 1}
        kinds = list(dict.fromkeys(f"  {f.table}{'' if f.table in one_note else f' / {f.row}'}: {f.note}"
                                   for f in kept))
        if kinds:
            lines += ["", "not recomputed from raw outputs (never counted as a match):", *kinds]
        needed = list(dict.fromkeys(n for f in self.figures if f.status == ABSENT for n in f.needs))
        if needed:
            lines += ["", "inputs not present (their figures are not a pass):", *(f"  {n}" for n in needed)]
        s = self.summary()
        lines += ["", summary_line(s)]
        return "\n".join(lines)


def summary_line(s: dict[str, int]) -> str:
    """The last line of the table: every status counted apart."""
    return (f"{s['match']} of {s['figures']} figures match (recomputed from upstream's raw outputs); {s['copied']} "
            f"copied from upstream's cells; {s['identity']} identities; {s['check']} checks of upstream's files "
            f"agree; {s['differs']} differ; {s['differs_known']} differ as pinned and explained; "
            f"{s['inputs_not_present']} inputs not present; {s['skipped']} skipped")


def reproduce(source: str = "upstream", only: Iterable[str] | str | None = None, *, sbert: bool = True,
              sbert_model: str | None = None, progress: bool = False) -> Report:
    """Recompute every published figure of the chosen papers from public inputs.

    `source`: "upstream" (the pinned upstream files, fetched into the upstream cache, or the folder
    `NYCC_BENCH_UPSTREAM_DIR` as an offline mirror) or a folder holding upstream files under their upstream names.
    `only`: paper ids among `PAPERS` (default all). `sbert=False` skips Table 6's SBERT column (minutes on a CPU);
    `sbert_model` replaces all-mpnet-base-v2 (tests). A figure whose inputs are absent is "inputs not present".
    """
    papers = _papers(only)
    inputs = locate(source, papers, progress)
    figures: list[Figure] = []
    for paper in papers:
        figures += _figures(paper, inputs, zhang.Options(sbert=sbert, sbert_model=sbert_model))
    return Report(figures, source, [str(r) for r in inputs.roots])


def _papers(only: Iterable[str] | str | None) -> tuple[str, ...]:
    """The chosen paper ids in the table's order; an unknown id is one line naming the known ones."""
    chosen = [only] if isinstance(only, str) else list(only or PAPERS)
    if unknown := [p for p in chosen if p not in PAPERS]:
        raise NyccBenchError(f"only: unknown paper {unknown[0]!r}; choose from {', '.join(PAPERS)}")
    return tuple(p for p in PAPERS if p in chosen)


def _figures(paper: str, inputs: Inputs, options: zhang.Options) -> list[Figure]:
    if paper == zhang.PAPER:
        return zhang.figures(inputs, options)
    if paper == humorbench.PAPER:
        return humorbench.figures(inputs)
    return hessel.figures(inputs)
