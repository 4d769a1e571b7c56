"""The README's printed `reproduce` run is the command's own output: written by `make reproduce-readme` (the
`nycc_bench.reproducing.readme` module), checked against the code here, and against a fresh run wherever
`NYCC_BENCH_UPSTREAM_DIR` names a mirror of the pinned upstream files."""

from __future__ import annotations

import csv
import os
from collections import Counter
from pathlib import Path

import pytest

from nycc_bench.cli import main as cli
from nycc_bench.contests import ZHANG_HELD_OUT
from nycc_bench.reproducing import reproduce
from nycc_bench.reproducing.figures import ABSENT, CHECK, COPIED, DIFFERS, IDENTITY, KINDS, KNOWN, MATCH, SKIPPED
from nycc_bench.reproducing.readme import BEGIN, END, block, main, update
from nycc_bench.reproducing.report import summary_line

README = Path(__file__).resolve().parents[1] / "README.md"
HEAD = ("paper", "table", "row", "quantity", "published", "recomputed", "status")
SUMMARY_KEYS = {MATCH: "match", COPIED: "copied", IDENTITY: "identity", CHECK: "check", DIFFERS: "differs",
                KNOWN: "differs_known", ABSENT: "inputs_not_present", SKIPPED: "skipped"}


def printed_run(text: str) -> tuple[str, list[str]]:
    """The README block's command line and the lines of its ```text output."""
    inner = text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip().splitlines()
    fence = inner.index("```text")
    return inner[0], inner[fence + 1:inner.index("```", fence + 1)]


def table_rows(lines: list[str]) -> list[dict[str, str]]:
    """The figure rows of a printed table, cut at the header's column starts (cells hold spaces)."""
    starts = [lines[0].index(h) for h in HEAD]
    rows = []
    for line in lines[1:lines.index("")]:
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
        rows.append(dict(zip(HEAD, cells, strict=True)))
    return rows


def test_the_block_is_the_commands_output_and_a_drift_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    mirror = tmp_path / "mirror" / "examples" / "generations"
    mirror.mkdir(parents=True)
    with (mirror / "claude.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([[*map(str, range(10)), "contest_num"],
                                 *([f"Caption {j} of {c}" for j in range(10)] + [f"{c}.0"] for c in ZHANG_HELD_OUT)])
    monkeypatch.setenv("NYCC_BENCH_UPSTREAM_DIR", str(tmp_path / "mirror"))
    readme = tmp_path / "README.md"
    readme.write_text(f"# A page\n\nbefore\n\n{BEGIN}\nstale\n{END}\n\nafter\n", encoding="utf-8")

    assert update(readme) is False  # rewritten
    status = cli(["reproduce", "--no-sbert"])
    assert status == 1  # the written Claude row differs
    expected = block(status, capsys.readouterr().out)
    text = readme.read_text(encoding="utf-8")
    assert text == f"# A page\n\nbefore\n\n{expected}\n\nafter\n"
    assert printed_run(text)[0] == "`NYCC_BENCH_UPSTREAM_DIR=MIRROR nycc-bench reproduce --no-sbert` (exit 1):"
    assert update(readme, check=True) is True and main([str(readme), "--check"]) == 0

    readme.write_text(text.replace("Claude-3-Opus ", "Claude-3-Opvs ", 1), encoding="utf-8")
    assert main([str(readme), "--check"]) == 1
    assert "differs from today's output; run `make reproduce-readme" in capsys.readouterr().err
    assert main([str(readme)]) == 0 and readme.read_text(encoding="utf-8") == text

    readme.write_text("no block\n", encoding="utf-8")
    assert main([str(readme)]) == 2
    assert "no reproduce-run block; put the lines" in capsys.readouterr().err
    monkeypatch.delenv("NYCC_BENCH_UPSTREAM_DIR")
    assert main([str(README), "--check"]) == 2


def test_the_readme_run_agrees_with_the_code(tmp_path: Path) -> None:
    """Without a mirror: every printed row is a figure the code defines, in its order and with its printed value;
    a row equal to its printed value has its kind's status (a copied cell never shows as a match); the summary
    counts the printed statuses apart."""
    command, lines = printed_run(README.read_text(encoding="utf-8"))
    assert command.startswith("`NYCC_BENCH_UPSTREAM_DIR=MIRROR nycc-bench reproduce --no-sbert` (exit ")
    assert lines[0].split() == list(HEAD)
    rows = table_rows(lines)
    defined = reproduce(str(tmp_path), sbert=False).figures  # nothing present: the definitions alone
    kinds = {(f.table, f.row, f.quantity): f.kind for f in defined}
    board = [r for r in rows if r["table"].startswith("Leaderboard")]
    assert [tuple(r[k] for k in HEAD[:5]) for r in rows if r not in board] == \
        [(f.paper, f.table, f.row, f.quantity, f.published) for f in defined if not f.table.startswith("Leaderboard")]
    for r in rows:
        kind = kinds.get((r["table"], r["row"], r["quantity"]), "recomputed")
        if r["recomputed"] == r["published"]:
            assert r["status"] == KINDS[kind], r
        assert r["status"] in {*KINDS.values(), "DIFFERS", KNOWN, ABSENT, SKIPPED}, r
        assert r["status"] != SKIPPED or r["quantity"] == "SBERT", r  # --no-sbert skips that column alone
    counts = Counter(DIFFERS if r["status"] == "DIFFERS" else r["status"] for r in rows)
    summary = {"figures": len(rows), **{key: counts[status] for status, key in SUMMARY_KEYS.items()}}
    assert lines[-1] == summary_line(summary)
    assert command.endswith(f"(exit {1 if counts[DIFFERS] else 0}):")


@pytest.mark.skipif(not os.environ.get("NYCC_BENCH_UPSTREAM_DIR"),
                    reason="NYCC_BENCH_UPSTREAM_DIR names no mirror of the pinned upstream files")
def test_the_readme_run_is_todays_output_on_the_mirror() -> None:
    """Where a mirror is at hand, the printed run is exactly what the command prints today."""
    assert update(README, check=True), "README's reproduce run is stale: run `make reproduce-readme UPSTREAM=MIRROR`"
