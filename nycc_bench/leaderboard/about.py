"""User-facing text of the leaderboard: title, introduction, how scores are computed, how to submit."""

from __future__ import annotations

from ..citations import FAMILIES

TITLE = "NYCC humor leaderboard"

INTRODUCTION = """\
How well do models understand and write New Yorker cartoon captions? Every score comes with its 95%
bootstrap interval and the number of items behind it; runs whose intervals overlap share a rank
(Chatbot Arena style: rank = 1 + the number of runs that are surely better). Every row can be reproduced with
the `nycc-bench` command shown in its detail, and its per-item predictions can be downloaded.
"""

SAMPLE_NOTE = (
    "Rows marked <b>sample</b> are baseline results on the embedded sample dataset: invented cartoons and "
    "captions, a handful of items per task. They show that the pipeline works, not how funny anything is."
)
SAMPLE_DATASET_NOTE = (
    "This leaderboard runs on the embedded <b>sample</b> dataset (invented content, a handful of items per task): "
    "its scores say nothing about humor understanding."
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
fold mean, as in the paper). Judged scores appear only where the operator has configured a judge; otherwise
the predictions are kept and the cell stays empty.

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


def citations_markdown() -> str:
    """The three papers' BibTeX, for the About tab."""
    blocks = [f"**{f.title}** ({f.license}; {f.upstream})\n\n```bibtex\n{f.bibtex}\n```" for f in FAMILIES.values()]
    return "## Citations\n\n" + "\n\n".join(blocks)
