"""Model cards (README.md with Hub front matter) for saved reward models and embedding graders."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .folder import fmt_rate

_FRONT = """---
library_name: nycc-bench
license: apache-2.0
language: en
tags:
{tags}
---
"""


def _front(*tags: str) -> str:
    return _FRONT.format(tags="\n".join(f"- {t}" for t in tags))


def _metric_lines(metrics: Mapping[str, Any]) -> list[str]:
    lines = []
    for name, m in metrics.items():
        if not isinstance(m, Mapping) or "accuracy" not in m:
            continue
        n = m.get("n_contests", m.get("n"))
        lines.append(f"| {name} | {fmt_rate(m['accuracy'], m.get('ci_low'), m.get('ci_high'))} | {n} |")
    return lines


DATA_SOURCES = {
    "sample": "the invented sample (offline demo): the embedded sample's invented captions and labels, made for the "
              "offline demo and the tests. Its figures say nothing about real humor; train on the public data with "
              "`nycc-bench judges train`.",
    "public": "the public upstream data (NEXT crowd rating summaries; HumorBench's human rubric labels).",
}
"""What a judge's `data_source` means, said at the top of its card (the sample's in the words every other place
uses: `sample_judges.TRAINED_ON`)."""


def _source_line(config: Mapping[str, Any]) -> str:
    source = config.get("data_source")
    return f"**Trained on {DATA_SOURCES.get(source, source)}**\n" if source else ""


_CHECK_LINE = ("- Text that is not a caption or an explanation at all (random letters, byte garbage, a copy of the "
               "prompt or the description, one word repeated, empty, far too long, another language) is caught "
               "before scoring (`nycc_bench.textcheck`) and loses / FAILs, its reason recorded; fluent text that is "
               "no caption (a news sentence) is left to the score.")


def reward_card(config: Mapping[str, Any]) -> str:
    """The reward model's card: what it is, how it was trained, its held-out numbers, its limits."""
    training = config.get("training", {})
    metrics = config.get("metrics", {})
    rows = _metric_lines(metrics)
    table = (
        "| evaluation | accuracy [95% bootstrap CI over contests] | contests |\n|---|---|---|\n" + "\n".join(rows)
        if rows else "No evaluation was run when this model was saved (`nycc_bench.reward.evaluate` computes it)."
    )
    if rows and training.get("eval_max_contests"):
        table += (f"\n\nEach check ran on a seeded sample of at most {training['eval_max_contests']} of its held-out "
                  "contests (`eval_max_contests`), not on all of them; preference pairs: at most "
                  f"{training.get('eval_pairs_per_contest')} a contest (`eval_pairs_per_contest`).")
    contests = training.get("contests", [])
    ngrams = config.get("ngrams")
    ngram_text = (
        f" plus a ridge over hashed {ngrams['analyzer']} n-grams ({ngrams['ngram_range'][0]}-"
        f"{ngrams['ngram_range'][1]}, {ngrams['n_features']:,} buckets)" if ngrams else ""
    )
    ngram_head = (
        f"; a second ridge (alpha {config.get('ngram_alpha')}) over L2-normalized hashed n-gram counts "
        "(scikit-learn `HashingVectorizer`, no vocabulary stored), as `ngram_coef`/`ngram_intercept`, trained on "
        "every rated caption of the training contests" if ngrams else ""
    )
    return _front("nycc", "humor", "reward-model", "sentence-transformers") + f"""
# NYCC humor reward model (`{config.get('fingerprint', '?')}`)

{_source_line(config)}
A free, local, deterministic judge of New Yorker cartoon captions: a linear head over frozen
`{config['embedding_model']}` sentence embeddings{ngram_text} predicts how funny the crowd of the
New Yorker Cartoon Caption Contest (nextml ratings: unfunny 1, somewhat funny 2, funny 3) found a caption.
Scores are comparable between captions of the same cartoon. Built with `nycc_bench.reward` (nycc-bench).

```python
from nycc_bench.reward import RewardModel
model = RewardModel.load("path/or/owner-name")
model.score(["caption one", "caption two"])            # higher = funnier
model.compare_groups(group_a, group_b, protocol="overall")   # "A" or "B"
model.rerank(candidates, k=1)                          # Best-of-N
```

## Training
- Features: {', '.join(config['features'])}.
- Target: `{config['target']}` ({config.get('target_description', '')}).
- Head: `{config['head']}` (alpha {config.get('alpha')}) over the embedding features, stored as `coef`/`intercept`
  in `head.safetensors`{ngram_head}.
- Branch weights (1 / spread of each branch's predictions on its training captions): {config.get('weights')}.
- Data: dataset config `caption_ratings`, primary rating run of each contest, splits
  {', '.join(training.get('splits', []))}: {training.get('n_captions', '?')} captions of {len(contests)}
  contests ({training.get('sampling', 'all captions')}).
- Contests trained on: {', '.join(map(str, contests))}.
- Training time: {training.get('seconds', '?')} s.

## Evaluation (contests never trained on)
{table}

- *group (overall / best_pick)*: Zhang et al. (2024) judge-reliability protocol, human top-10 captions vs
  captions #1000–1009 of each held-out contest, both orders; share of judgments picking the top group
  (GPT-4 judges: 63–77.5% in their Table 2).
- *top_vs_mid*: per contest, the crowd's best caption vs the one ranked n//2.
- *preference_pairs*: chosen vs rejected of the `preference_pairs` config.

## Limitations
- It knows the crowd's taste in the contests it saw, from text only: it never sees the cartoon, and the
  description features (if any) are one sentence.
- A frozen small encoder plus a linear head captures topical and stylistic cues, not the joke itself; it is a
  pre-screen and a reranker, not a replacement for human or strong-LLM judgment.
- Scores of captions of different cartoons are not comparable; contests differ in average rating.
- Do not evaluate it on the contests it was trained on (listed above): `nycc_bench.reward.evaluate` skips them.
{_CHECK_LINE}

## Config
```json
{json.dumps({k: v for k, v in config.items() if k not in ('metrics', 'training')}, indent=2)}
```
"""


_SCORE_TEXT = {
    "max_sentence": "the highest similarity of the element to one sentence of the explanation",
    "top2_mean": "the mean of the two highest sentence similarities",
    "whole": "the similarity to the whole explanation",
}


def grader_card(config: Mapping[str, Any]) -> str:
    """The embedding element grader's card."""
    cv = config.get("cross_validation", {})
    return _front("nycc", "humorbench", "autograder", "sentence-transformers") + f"""
# HumorBench embedding element grader (`{config.get('fingerprint', '?')}`)

{_source_line(config)}
Grades a joke explanation against one HumorBench "element" without an LLM: the `{config['embedding_model']}`
cosine similarity between the element and the explanation (`{config['score']}`: {_SCORE_TEXT[config['score']]}),
PASS iff it is at least {config['threshold']:.4f} (threshold fitted to maximize {config.get('objective', 'accuracy')}
on {config.get('n_train', '?')} human-labelled rows).

## Validation against human labels ({cv.get('n_folds', '?')}-fold cross-validation, grouped by element)
- accuracy {fmt_rate(cv.get('accuracy'), cv.get('ci_low'), cv.get('ci_high'))} (95% bootstrap CI over captions),
  FPR {fmt_rate(cv.get('fpr'))}, FNR {fmt_rate(cv.get('fnr'))}, n = {cv.get('n', '?')}.
- Always answering the majority label would score {fmt_rate(cv.get('majority_accuracy'))} on the same rows.
- The GPT-4o autograder of the HumorBench paper agrees with humans 87–92% of the time.

## Limitations
- Similarity is not entailment: an explanation that names the element's words but contradicts it passes,
  a correct paraphrase in other words can fail. No offline cross-encoder (NLI) model was available to do better.
- Use it as a cheap pre-screen; report LLM-autograder numbers for anything published.
{_CHECK_LINE}

## Config
```json
{json.dumps({k: v for k, v in config.items() if k not in ('cross_validation', 'trained_rows')}, indent=2)}
```
"""
