"""Zhang et al.'s group comparison with the reward model as judge, in the LLM judge's judgment format.

Mirrors ``nycc_bench.judge.protocols.group_comparison.judge_groups``: one record per human group, contest,
model as A then as B, so ``nycc_bench.scoring.win_rate`` (and the ``group_win_rate`` metric) aggregate
either judge's records::

    {"contest_number": int, "model_position": "A"|"B", "verdict": "A"|"B", "delta_logprob": None,
     "human_group": str, "protocol": "overall"|"best_pick", "raw": str, "prompt_version": str, "error": None}

``raw`` is JSON with both groups' statistics (``score_a``, ``score_b``: mean or max predicted score);
``prompt_version`` names the judge (``reward:<fingerprint>``). A model caption that is not a caption at all
(``nycc_bench.textcheck``: random letters, garbage, a copy of the description, ...) scores ``FLAGGED_SCORE``, so
its group loses; the contest's records then carry ``flagged``: ``[{"caption", "reason", "detail"}]``. Overall
picks the higher mean predicted score, Best Pick the higher best score; an exact tie answers "A" (one win, one
loss over both orders).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from nycc_bench.scoring.checks import check_strings, is_missing
from nycc_bench.textcheck import Flag, check_texts

from .model import PROTOCOL_STATISTICS, RewardModel

Description = str | Sequence[str] | None
FLAGGED_SCORE = -1e6
"""The score of a model caption that is not a caption: below any prediction (the heads' z-scores stay within tens)."""


def description_text(description: Description) -> str | None:
    """One text from a description as the LLM judges take it: a string, or (canny, uncanny): the first.

    >>> description_text(("A man in a bathtub.", "The tub is in a boardroom.")), description_text(None)
    ('A man in a bathtub.', None)
    """
    if description is None or is_missing(description):
        return None
    if isinstance(description, str):
        return description
    parts = [p for p in description if not is_missing(p) and str(p).strip()]
    return str(parts[0]) if parts else None


def description_parts(description: Description) -> list[str]:
    """Every text of a description (both of Hessel's pair): what a caption must not copy."""
    if description is None or is_missing(description):
        return []
    items = [description] if isinstance(description, str) else list(description)
    return [str(p) for p in items if not is_missing(p) and str(p).strip()]


def caption_flags(model: RewardModel, captions: Sequence[str], references: Sequence[str] = ()) -> list[Flag | None]:
    """Why each caption is not a caption (`nycc_bench.textcheck`), or None: read with the model's own tokenizer."""
    return check_texts(list(captions), "caption", [list(references)] * len(captions),
                       tokenizer=model.embedder.tokenizer)


def judge_groups_reward(
    model: RewardModel,
    model_groups: Sequence[Sequence[str]],
    human_groups: Mapping[str, Sequence[Sequence[str]]] | Sequence[Sequence[str]],
    contest_numbers: Sequence[int],
    descriptions: Sequence[Description] | None = None,
    protocol: str = "overall",
    *,
    progress: bool | None = None,
) -> list[dict[str, Any]]:
    """Judge every contest's model group against every human group, both orders (module docstring).

    `human_groups` maps a group name to per-contest groups (a bare list is named "human"); every caption is
    scored once, in one batch.
    """
    if protocol not in PROTOCOL_STATISTICS:
        raise ValueError(f"protocol must be one of {tuple(PROTOCOL_STATISTICS)}, got {protocol!r}")
    named = dict(human_groups) if isinstance(human_groups, Mapping) else {"human": human_groups}
    n = len(contest_numbers)
    if n == 0:
        raise ValueError("contest_numbers is empty; expected at least one contest")
    if len(model_groups) != n or any(len(groups) != n for groups in named.values()):
        raise ValueError("model_groups and every human group list need one entry per contest")
    if descriptions is not None and len(descriptions) != n:
        raise ValueError("descriptions need one entry per contest")
    texts = [None] * n if descriptions is None else [description_text(d) for d in descriptions]

    blocks: list[tuple[str, int, list[str]]] = []  # (group name or "" for the model, contest index, captions)
    for i in range(n):
        blocks.append(("", i, check_strings(model_groups[i], f"model_groups[{i}]")))
        for name, groups in named.items():
            blocks.append((name, i, check_strings(groups[i], f"human_groups[{name!r}][{i}]")))
    captions = [c for _, _, group in blocks for c in group]
    caption_descriptions = [texts[i] for _, i, group in blocks for _ in group]
    scores = model.score(captions, caption_descriptions, progress=progress)
    # the model's captions that are not captions at all (textcheck) take the lowest score: nonsense never wins
    flags: dict[int, list[dict[str, str]]] = {}
    start = 0
    for name, i, group in blocks:
        if name == "":
            found = caption_flags(model, group, description_parts(descriptions[i]) if descriptions else [])
            for j, (caption, flag) in enumerate(zip(group, found, strict=True)):
                if flag is not None:
                    scores[start + j] = FLAGGED_SCORE
                    flags.setdefault(i, []).append({"caption": caption, **flag.to_dict()})
        start += len(group)
    reduce = np.mean if protocol == "overall" else np.max
    stats: dict[tuple[str, int], float] = {}
    start = 0
    for name, i, group in blocks:
        stats[name, i] = float(reduce(scores[start : start + len(group)]))
        start += len(group)

    version = f"reward:{model.fingerprint}"
    records = []
    for name in named:
        for i, contest in enumerate(contest_numbers):
            ours, theirs = stats["", i], stats[name, i]
            for position, (a, b) in (("A", (ours, theirs)), ("B", (theirs, ours))):
                records.append({
                    "contest_number": int(contest),
                    "model_position": position,
                    "verdict": "A" if a >= b else "B",
                    "delta_logprob": None,
                    "human_group": name,
                    "protocol": protocol,
                    "raw": json.dumps({"statistic": PROTOCOL_STATISTICS[protocol], "score_a": a, "score_b": b,
                                       "n_flagged": len(flags.get(i, []))}),
                    "prompt_version": version,
                    "error": None,
                    **({"flagged": flags[i]} if i in flags else {}),
                })
    return records
