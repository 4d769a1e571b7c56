"""User-facing text of the leaderboard: title, introduction, how scores are computed, how to submit."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..standings import RANK_RULE, pooled_about, task_judges
from ..tasks import get_task
from ..tasks.scores import family_list, family_metrics, family_tasks_text, task_family

TITLE = "NYCC humor leaderboard"

INTRODUCTION = """\
How well do models understand and write New Yorker cartoon captions? Every score is shown with
its 95% bootstrap interval's own bounds, `37.5 [12.5, 75.0]` (switch on *Details* for the number of items).
On a family tab, runs that cannot be told apart share a rank (Chatbot Arena style: rank = 1 + the number of runs
whose interval lies wholly above); the overview's rule is stated above its table. Every row can be reproduced
with the `nycc-bench` command shown in its detail, and its per-item predictions can be downloaded.
"""

OVERVIEW_SUMMARY = "The headline score of every family."

CELLS_HELP = """\
Cells: `37.5 [12.5, 75.0]` is the score and its 95% interval's low and high ends (a bootstrap interval is
rarely symmetric, so it is never shown as ±; no interval where none is computed, e.g. Average EAD and BLEU); an
empty cell says why: *not run* (the run did not include that task), *n/a* (the system cannot answer it, e.g. a
text-only baseline on a from-pixels task), *no judge* (the task ran but needs a judge the operator has not
configured), *incomplete* (not a whole result: items failed, too few instances scored, mostly unparsed answers
or judge errors beyond the task's share; its number is not shown or ranked). Rates are percentages with one
decimal, BLEU-4 one decimal, Average EAD three. Click a column header to sort by its value.
"""

OFFLINE_NOTE = (
    " Their judged scores (win rates, element accuracy) come from the <b>offline judges</b> (a small reward "
    "model and an embedding grader, `reward:sample` and `embedding:sample`, trained on the invented sample "
    "(offline demo)), not from the papers' LLM judges; the About tab shows how each judge fares on real verdicts."
)
SAMPLE_NOTE = (
    "Rows marked <b>sample</b> are baseline results on the embedded sample dataset: invented cartoons and "
    "captions, a handful of items per task. They show that the pipeline works, not how funny anything is."
    + OFFLINE_NOTE
)
SAMPLE_DATASET_NOTE = (
    "This leaderboard runs on the embedded <b>sample</b> dataset (invented content, a handful of items per task): "
    "its scores say nothing about humor understanding." + OFFLINE_NOTE
)

ABOUT = """\
## What is measured

{measured}

{pooled_columns}

Rates are percentages; intervals are 95% percentile bootstrap intervals (over items, or over contests and
captions where items are grouped). Judged scores appear only where a judge scored the run (the *Judge* column
names it); otherwise the predictions are kept and the cell says *no judge*.

{rows}

## How a submission runs

1. The form checks the model: a public Hub id at a revision (pinned to its commit), safetensors weights,
   a known size under the limit, a license, and no `trust_remote_code`.
2. The job is queued (**PENDING**); one worker runs jobs oldest first (**RUNNING**), writing predictions
   as it goes, then scores them (**FINISHED**, or **FAILED** with the reason).
3. A job whose worker died goes back to the queue, and resumes from its saved predictions.

Duplicates (same model, revision, settings and task) and more than the allowed submissions per user per
day are refused.
"""

SUBMIT_HELP = """\
Enter a public Hugging Face model id (`org/model`) and optionally a branch, tag or commit; choose the tasks.
Text-only models run the *from description* tasks; vision-language models (image-text-to-text) also run
the *from pixels* ones.
"""


def _folds(folds: tuple[int, ...]) -> str:
    """`fold 0` / `folds 0 and 1` / `folds 0, 1 and 2`."""
    if len(folds) == 1:
        return f"fold {folds[0]}"
    return f"folds {', '.join(map(str, folds[:-1]))} and {folds[-1]}"


def rows_facts(results: list[dict[str, Any]]) -> str:
    """What the rows shown hold, read from their records: data, Hessel folds, judges (so the page never guesses)."""
    if not results:
        return "### What the rows hold\n\nNo run has finished yet."
    sample = sum(bool(r.get("dataset", {}).get("sample")) for r in results)
    lines = [f"- **Data**: {sample} of {len(results)} runs are on the embedded *sample* (invented items, a handful "
             f"per task); {len(results) - sample} on the benchmark dataset."]
    folds: Counter[tuple[int, ...]] = Counter()
    for r in results:
        for task, entry in (r.get("tasks") or {}).items():
            got = ((entry.get("config") or {}).get("dataset") or {}).get("folds")
            if task in task_family() and get_task(task).has_folds and got:
                folds[tuple(sorted(int(f) for f in got))] += 1
    if folds:
        parts = [f"{_folds(f)} ({n} task result{'s' if n > 1 else ''})" for f, n in sorted(folds.items())]
        lines.append(f"- **Hessel folds**: scores are the mean over {'; '.join(parts)}. The paper reports the mean "
                     "over all five folds (0-4); a score over fewer folds is not the paper's number.")
    judges: dict[str, set[str]] = {}
    for r in results:
        for task, label in task_judges(r).items():
            if task in (r.get("tasks") or {}):
                judges.setdefault(label, set()).add(task)
    if judges:
        offline = any(label.startswith("offline") for label in judges)
        lines.append("- **Judges**: " + "; ".join(f"{label} for {', '.join(sorted(tasks))}"
                                                  for label, tasks in sorted(judges.items())) + "."
                     + (" The offline judges are not the papers' LLM judges; each says what it was trained on "
                        "(the sample's: the invented sample, for the offline demo; `nycc-bench judges train` trains "
                        "them on the public data, `reward:public` and `embedding:public`)." if offline else ""))
    else:
        lines.append("- **Judges**: no run has a judged score yet.")
    return "### What the rows hold\n\n" + "\n".join(lines)


def about_markdown(results: list[dict[str, Any]], judge_reports: list[dict[str, Any]] | None = None,
                   judges: bool = True) -> str:
    """The About tab: how things are measured, what the rows hold (from their records), the judges scored on real
    verdicts (`judge_reports`; without `judges`, left to the tab's own section, which the leaderboard makes), how
    submissions run."""
    return (ABOUT.replace("{measured}", measured_markdown()).replace("{rows}", rows_facts(results))
            .replace("{pooled_columns}", pooled_about()) + "\n\n"
            + (judges_markdown(judge_reports or []) if judges else "") + citations_markdown())


REPORTS_DIR = Path("judges") / "reports"
"""Where a leaderboard's data folder keeps `nycc-bench judges report --out` files (one JSON per judge)."""


def judge_reports(data_dir: str | Path, configured: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The judges reports in a data folder, those of the configured judges (by name) first; unreadable files are
    skipped with a warning, never shown half."""
    import json
    import logging

    reports = []
    for path in sorted((Path(data_dir) / REPORTS_DIR).glob("*.json")):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(report, dict) and "checks" in report and "judge" in report:
                reports.append(report)
        except (OSError, ValueError) as err:
            logging.getLogger(__name__).warning("judges report %s skipped: %s", path, err)
    wanted = set(configured)
    return sorted(reports, key=lambda r: (r["judge"] not in wanted, str(r["judge"])))


def judges_markdown(reports: list[dict[str, Any]], status: list[str] | None = None, source: str | None = None,
                    started: bool = True) -> str:
    """Each judge scored on real human and published verdicts (`nycc-bench judges report`), as printed there; above
    them, the reports the leaderboard is still making (`status`: one line per judge, its current check or why it
    failed) from `source`, or (not `started`) that opening this tab makes them."""
    from ..judges_report import table_lines

    head = ("## The judges, scored on real verdicts\n\nEach judged column is only as good as its judge. "
            "`nycc-bench judges report --judge SPEC` scores a judge on the crowd's ratings (Zhang et al.'s pairwise "
            "and group checks), HumorBench's human rubric labels and GPT-4o's stored verdicts; every cell has its n "
            "and 95% interval.\n\n")
    if status:
        head += (f"**Being made** (on `{_escape(source or '?')}`; this section updates itself):\n\n"
                 + "\n".join(f"- {_escape(line)}" for line in status) + "\n\n")
    elif not started and source is not None:
        head += "The configured judges' reports are made when this tab is opened.\n\n"
    if not reports:
        return head + ("No judges report is kept here yet (an operator writes them with `nycc-bench judges report "
                       f"--judge SPEC --out DATA_DIR/{REPORTS_DIR.as_posix()}/NAME.json`).\n\n")
    blocks = []
    for report in reports:
        lines = table_lines(report)
        blocks.append(f"### {_escape(lines[0])}\n\n" + "\n".join(_escape(x) for x in lines[2:]))
    return head + "\n\n".join(blocks) + "\n\n"


def _escape(text: str) -> str:
    """A report's text as Markdown that shows it and runs nothing (no HTML, no links)."""
    import html

    return html.escape(str(text), quote=False).replace("[", "\\[").replace("]", "\\]")


def measured_markdown() -> str:
    """One bullet per family (tasks/families.yaml): what it measures and its tasks, from the registry."""
    return "\n".join(f"- **{f.title}**: {f.measures} {family_tasks_text(f)}" for f in family_list())


def rank_rule(family: str | None) -> str:
    """The sentence under a tab saying how its Rank column is computed."""
    if family is None:
        return RANK_RULE
    first = family_metrics(family)[0].label
    return (f"**Rank** on {first}, Arena style: 1 + the number of runs whose 95% interval lies wholly above this "
            "run's; runs that cannot be told apart share a rank.")


def citations_markdown() -> str:
    """The papers' BibTeX, for the About tab."""
    blocks = [f"**{f.heading}** ({f.license}; {f.upstream})\n\n```bibtex\n{f.bibtex}\n```" for f in family_list()]
    return "## Citations\n\n" + "\n\n".join(blocks)
