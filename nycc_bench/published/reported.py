"""Figures the authors reported where no per-item outputs are published: Hessel et al. 2023's matching and
quality-ranking table, and HumorBench's whole-benchmark figures (read from each imported run's record). They are
shown as reported rows (source, table, row), apart from the runs this toolkit scored, never ranked with them,
and with no interval (none was printed)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

HESSEL_SOURCE = "Hessel et al. 2023 (ACL)"
HESSEL_TABLE = "Table 2"  # matching and quality ranking, test sets, the 5 folds averaged
HESSEL_COLUMNS = ("Matching accuracy (%)", "CrowdAcc (%)", "NYAcc (%)")
# (setting, row, matching accuracy, CrowdAcc, NYAcc), as printed
HESSEL_TABLE2 = (
    ("-", "Random", "20.0", "50.0", "50.0"),
    ("caption only", "Caption Only (T5-11B)", "19.4", "59.4", "64.5"),
    ("from pixels", "CLIP ViT-L/14@336px (finetuned)", "62.3", "57.0", "66.9"),
    ("from pixels", "CLIP ViT-L/14@336px zero-shot", "56.6", "55.8", "56.8"),
    ("from pixels", "OFA-Huge → T5-Large", "45.2", "59.1", "64.3"),
    ("from pixels", "OFA-Huge → T5-11B", "51.8", "60.3", "65.0"),
    ("from description", "T5-Large", "59.6", "61.8", "64.8"),
    ("from description", "T5-11B", "70.8", "62.3", "65.6"),
    ("from description", "GPT3-175B (finetuned)", "75.1", "64.8", "69.8"),
    ("from description", "GPT3-175B 5-shot", "57.2", "55.1", "54.8"),
    ("from description", "GPT3-175B zero-shot", "51.6", "56.2", "55.6"),
    ("from description", "GPT 3.5 (5-shot)", "63.8", "55.6", "55.2"),
    ("from description", "GPT 3.5 zero-shot+CoT", "50.4", "52.8", "55.4"),
    ("from description", "GPT-4 (5-shot)", "84.5", "73.3", "68.2"),
    ("from description", "GPT-4 zero-shot+CoT", "81.9", "66.2", "64.3"),
    ("-", "Human estimate", "94.0", "83.7", "64.6"),
)
HUMORBENCH_SOURCE = "HumorBench leaderboard (docs/data.json @ cc99276)"
# Why Hessel's hidden-label leaderboard entries are not among the reported rows (checked against the authors'
# repository jmhessel/caption_contest_corpus at d5f68b6: README.md's "Leaderboard setting", clip/, gpt4v_leaderboard/,
# lite_llm_leaderboard/, and its merged pull requests #6 and #8, which add entries without printing their scores).
HESSEL_LEADERBOARD_NOTE = (
    "Hessel's hidden-label leaderboard entries (matching: leaderboard.allenai.org/nycc-matching, ranking: "
    "leaderboard.allenai.org/nycc-ranking) are not shown: their scores are published only on those AI2 pages, not in "
    "the paper or the authors' repository (jmhessel/caption_contest_corpus holds the submissions' code and CLIP's "
    "submission files, no scores), and the test labels are hidden, so nycc-bench can neither copy nor recompute them. "
    "`--split leaderboard` writes a submission file for those pages.")


def hessel_rows() -> list[dict[str, str]]:
    """Hessel's Table 2 as reported rows: source, table, row, setting and each column as printed."""
    return [{"Source": HESSEL_SOURCE, "Table": HESSEL_TABLE, "Row": row, "Setting": setting,
             **dict(zip(HESSEL_COLUMNS, values, strict=True))} for setting, row, *values in HESSEL_TABLE2]


def humorbench_rows(results: Iterable[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Each imported HumorBench run's reported whole-benchmark figures (element accuracy over the rows the
    authors graded), as printed, beside the run's own name."""
    out = []
    for record in results:
        published = (record.get("extra") or {}).get("published") or {}
        figures = {f["figure"]: f for f in published.get("reported") or []}
        whole = figures.get("pass_rate_per_row")
        if whole is None:
            continue
        out.append({"Source": HUMORBENCH_SOURCE, "Table": "docs/data.json", "Row": str(record["model"]["name"]),
                    "Element accuracy (reported)": f"{float(whole['value']):.4f}",
                    "Rows graded (reported)": str(whole.get("n") or ""),
                    "Toxic or shocking (reported)": (f"{float(t['value']):.4f}" if (
                        t := figures.get("toxic_or_shocking_pass_rate_per_row")) else "")})
    return sorted(out, key=lambda r: r["Row"].lower())


def reported_note(family: str | None, results: Iterable[Mapping[str, Any]]) -> str | None:
    """What a tab's reported rows leave out and why, shown under them (the Hessel tab: the hidden-label leaderboard's
    entries); None where nothing is left out or the board holds no published runs."""
    if family == "hessel2023" and any((r.get("model") or {}).get("source") == "published" for r in results):
        return HESSEL_LEADERBOARD_NOTE
    return None


def reported_rows(family: str | None, results: Iterable[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The reported rows a leaderboard tab shows beside its scored runs (none unless the board holds published
    runs: the sample demo shows none)."""
    results = list(results)
    if not any((r.get("model") or {}).get("source") == "published" for r in results):
        return []
    if family == "hessel2023":
        return hessel_rows()
    from .runs import published_task

    if family == published_task("elements").family:  # the family of the task graded element by element
        return humorbench_rows(r for r in results if (r.get("model") or {}).get("source") == "published")
    return []
