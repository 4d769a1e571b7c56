"""The HTML report opens with a summary table (not JSON), uses the leaderboard's precision, and shares plot axes."""

from __future__ import annotations

import re

from nycc_bench.leaderboard import SEED_DIR
from nycc_bench.report import render_report
from nycc_bench.results import read_results


def test_report_opens_with_a_summary_table_and_no_raw_json() -> None:
    records = [read_results(p) for p in sorted((SEED_DIR / "results").glob("*.json"))]
    page = render_report(records)
    body = page.split("</h1>", 1)[1]
    assert body.lstrip().startswith("<h2>Summary</h2><table class='summary'>")
    assert "{&quot;" not in page and '{"' not in body  # no dict dumped as text
    summary = body.split("</table>", 1)[0]
    for name in ("random", "length", "sbert:all-MiniLM-L6-v2"):
        assert f"<td>{name}</td>" in summary
    assert "<td>not run</td>" in summary or "<td>n/a</td>" in summary
    assert "Ranked on the columns every system has: Matching, Ranking." in body
    assert re.search(r"<h2>Judges</h2><table>.*offline reward model", body)
    bleu = re.findall(r"<td>(\d+\.\d+)(?: \[[\d., ]+\])? n=\d+</td>", body)
    assert bleu and all(len(v.split(".")[1]) in (1, 3) for v in bleu)  # percent/BLEU 1 decimal, EAD 3
