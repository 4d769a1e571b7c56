"""User-facing text of the leaderboard: title, introduction, how scores are computed, how to submit."""

from __future__ import annotations

from ..citations import FAMILIES
from .benchmarks import family_metrics

TITLE = "NYCC humor leaderboard"

INTRODUCTION = """\
How well do models understand and write New Yorker cartoon captions? Every score is shown as
`value ± half its 95% bootstrap interval` (switch on *Details* for the interval and the number of items);
runs that cannot be told apart share a rank (Chatbot Arena style: rank = 1 + the number of runs whose interval
lies wholly above). Every row can be reproduced with the `nycc-bench` command shown in its detail, and its
per-item predictions can be downloaded.
"""

OVERVIEW_SUMMARY = "The headline score of every family."

CELLS_HELP = """\
Cells: `62.5 ± 7.3` is the score and half the width of its 95% interval (no ± where no interval is computed,
e.g. Average EAD and BLEU); *n/a*: the system cannot answer that task (e.g. a text-only baseline on a
from-pixels task); *no judge*: the task ran but needs a judge the operator has not configured. Rates are
percentages. Click a column header to sort by its value.
"""

OFFLINE_NOTE = (
    " Their judged scores (win rates, element accuracy) come from the <b>offline judges</b> (a small reward "
    "model and an embedding grader trained on the sample), not from the papers' LLM judges."
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

- **Hessel et al. 2023**: matching (5-way), ranking (2-way) and explanation, from the description or from
  pixels. Accuracy; CrowdAcc / NYAcc; BLEU-4 and ROUGE-L against the human explanation.
- **Zhang et al. 2024**: ten captions for each held-out cartoon. Win rate against four human caption groups
  (top 10, #200, #1000, median; a judge compares the groups in both orders) and Average EAD diversity.
- **HumorBench**: explain the joke of a caption. The share of rubric elements the autograder finds
  (PASS / (PASS + FAIL)).

Rates are percentages; intervals are 95% percentile bootstrap intervals (over items, or over contests and
captions where items are grouped). Hessel scores are on fold 0 unless the operator runs more folds (then the
fold mean, as in the paper). Judged scores appear only where a judge scored the run (the *Judge* column names
it); otherwise the predictions are kept and the cell says *no judge*. The seeded sample rows are judged by the
offline judges trained on the sample (`nycc-bench reward train`, `train-grader`), so every family shows numbers
from the first visit.

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


def rank_rule(family: str | None) -> str:
    """The sentence under a tab saying how its Rank column is computed."""
    if family is None:
        return ("**Rank**: by each run's mean rank over the headline columns it has (each column ranked Arena "
                "style); 1 + the number of runs with a lower mean rank.")
    first = family_metrics(family)[0].label
    return (f"**Rank** on {first}, Arena style: 1 + the number of runs whose 95% interval lies wholly above this "
            "run's; runs that cannot be told apart share a rank.")


def citations_markdown() -> str:
    """The three papers' BibTeX, for the About tab."""
    blocks = [f"**{f.title}** ({f.license}; {f.upstream})\n\n```bibtex\n{f.bibtex}\n```" for f in FAMILIES.values()]
    return "## Citations\n\n" + "\n\n".join(blocks)
