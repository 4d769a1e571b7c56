"""Zhang et al.'s judge-reliability check (2024, §4.2 and Table 2): can the judge tell the human top 10 from #1000–1009?

The protocol, as the authors' ``ranking/rank.py`` runs it: 100 contests, each judged twice (the top-10 group
as A, then as B), 200 comparisons in all; the score is the share of comparisons that pick the top-10 group
(the paper prints it in percent, ± the binomial standard error over the 200 comparisons). Overall reads
the verdict from the log-probs and recalibrates it; Best Pick shows the cartoon image (vision form).

Contests (the upstream list, ``cartoons_GroupComparison``, is not published), in this order until
``n_contests`` are chosen:

1. every held-out contest (``caption_generation`` validation + test) with both groups and a description
   (and, for vision Best Pick, an image), by ascending contest number;
2. then train contests of Zhang's range (530–890) whose primary rating run has at least 1010 captions
   (``caption_ratings`` train: sorted positions 0–9 and 1000–1009) and that have a description (Hessel's
   annotation from the ``matching`` config, else the contest's ``description`` in ``preference_pairs``) and,
   for vision Best Pick, an image, by ascending contest number.

Descriptions are Hessel's (canny, uncanny) pair where the contest has one, else the one-sentence
description; images are sent as the dataset stores them (upstream's JPEG bytes). The judge's five examples per
contest are the ones scoring gives it, drawn as upstream draws them (``kinds.zhang2024.zhang_judge_shots``:
``sample(n=600, random_state=42)`` over Hessel's ranking train, ``rank.py`` L122); zero-shot, with the reason
recorded in ``settings.shots``, where the data lacks it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .errors import DryRun, NyccBenchError
from .images import image_url, source_images
from .judge.protocols.group_comparison import PROTOCOLS, count_nonletter
from .judge.protocols.zhang_format import Description
from .judging import JudgeSpec, ResolvedJudge, group_judgments, run_judge
from .kinds.instances import DEFAULT_DATASET
from .kinds.zhang2024 import zhang_judge_shots
from .llm.engine import Estimate
from .scoring.win_rate import THRESHOLD, win_rate
from .splits import read_rows

LOW_GROUP = "human_1000"
TRAIN_RANGE = (530, 890)  # Zhang 2024, App. C.3: the contests their train and test splits are drawn from
PAPER_N_CONTESTS = 100
CONTEST_RULE = (
    "held-out contests (caption_generation validation+test) with both groups and a description, ascending; "
    "then train contests 530-890 with >= 1010 rated captions and a description, ascending"
)


@dataclass(frozen=True)
class ReliabilityContest:
    """One contest of the check: its two groups, description and (for vision Best Pick) image."""

    contest_number: int
    source: str  # "validation", "test" or "train"
    top10: tuple[str, ...]
    low: tuple[str, ...]
    description: Description
    image: Any = None  # a PIL image (vision Best Pick only)


class ReliabilityDryRun(DryRun):
    """A dry run of the check: the engine's estimate plus the number of comparisons and the contests."""

    def __init__(self, estimate: Estimate, protocol: str, contests: Sequence[int]) -> None:
        super().__init__(estimate)
        self.protocol = protocol
        self.contests = list(contests)
        self.n_comparisons = 2 * len(self.contests)

    def __str__(self) -> str:
        return (f"reliability ({self.protocol}): {len(self.contests)} contests x 2 orders = {self.n_comparisons} "
                f"comparisons; {self.estimate}")


def _description(row: dict[str, Any]) -> Description | None:
    """Hessel's (canny, uncanny) pair where present, else the one-sentence description, else None."""
    if row.get("image_description"):
        return (row["image_description"], row.get("image_uncanny_description") or "")
    return row.get("description") or None


def _eligible(top10: Sequence[str] | None, low: Sequence[str] | None, description: Any, image: Any,
              need_image: bool) -> bool:
    return bool(top10) and bool(low) and len(top10) == 10 and len(low) == 10 and bool(description) and (
        image is not None or not need_image)


def _held_out(dataset: str, need_image: bool) -> list[ReliabilityContest]:
    """Eligible held-out contests, ascending."""
    found: list[ReliabilityContest] = []
    for split in ("validation", "test"):
        rows = read_rows(dataset, "caption_generation", split)
        images = source_images(rows) if need_image else [None] * len(rows)  # the stored JPEG bytes kept
        rows = rows.remove_columns("image")
        for row, image in zip(rows, images, strict=True):
            description = _description(row)
            if _eligible(row["human_top10"], row[LOW_GROUP], description, image, need_image):
                found.append(ReliabilityContest(int(row["contest_number"]), split, tuple(row["human_top10"]),
                                                tuple(row[LOW_GROUP]), description, image))
    return sorted(found, key=lambda c: c.contest_number)


def _train_groups(dataset: str) -> dict[int, tuple[tuple[str, ...], tuple[str, ...]]]:
    """(top 10, #1000-1009) of each train contest in Zhang's range whose primary run has >= 1010 captions."""
    try:
        rows = read_rows(dataset, "caption_ratings", "train")
    except ValueError:
        return {}
    table: pa.Table = rows.table.select(["contest_number", "is_primary", "rank", "caption"])
    rank = table["rank"]
    wanted = pc.and_(
        pc.and_(table["is_primary"], pc.and_(pc.greater_equal(table["contest_number"], TRAIN_RANGE[0]),
                                              pc.less_equal(table["contest_number"], TRAIN_RANGE[1]))),
        pc.or_(pc.less(rank, 10), pc.and_(pc.greater_equal(rank, 1000), pc.less(rank, 1010))),
    )
    kept = table.filter(wanted).to_pydict()
    by_contest: dict[int, dict[int, str]] = {}
    for contest, position, caption in zip(kept["contest_number"], kept["rank"], kept["caption"], strict=True):
        by_contest.setdefault(int(contest), {})[int(position)] = caption
    groups = {}
    for contest, captions in by_contest.items():
        top, low = range(10), range(1000, 1010)
        if all(i in captions for i in top) and all(i in captions for i in low):
            groups[contest] = (tuple(captions[i] for i in top), tuple(captions[i] for i in low))
    return groups


def _train_annotations(dataset: str, contests: set[int], need_image: bool) -> dict[int, dict[str, Any]]:
    """Per train contest: Hessel's annotation (matching config, every split) else preference_pairs' description."""
    found: dict[int, dict[str, Any]] = {}
    for split in ("train", "validation", "test"):
        try:
            rows = read_rows(dataset, "matching", split)
        except ValueError:
            break
        columns = ["contest_number", "image_description", "image_uncanny_description"] + (
            ["image"] if need_image else [])
        chosen = rows.select_columns(columns)
        images = source_images(chosen) if need_image else [None] * len(chosen)
        for row, image in zip(chosen.remove_columns("image") if need_image else chosen, images, strict=True):
            if int(row["contest_number"]) in contests:
                found.setdefault(int(row["contest_number"]), {**row, **({"image": image} if need_image else {})})
    try:
        pairs = read_rows(dataset, "preference_pairs", "train").table.select(["contest_number", "description"])
    except ValueError:
        return found
    table = pairs.to_pydict()
    for contest, description in zip(table["contest_number"], table["description"], strict=True):
        contest = int(contest)
        if contest in contests and description and not _description(found.get(contest, {})):
            found.setdefault(contest, {})["description"] = description
    return found


def select_contests(dataset: str = DEFAULT_DATASET, protocol: str = "overall", n_contests: int = PAPER_N_CONTESTS,
                    *, vision: bool = True) -> list[ReliabilityContest]:
    """The check's contests by the fixed rule of the module docstring (at most ``n_contests``)."""
    if protocol not in PROTOCOLS:
        raise NyccBenchError(f"protocol: expected one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    if n_contests < 1:
        raise NyccBenchError(f"n_contests: must be at least 1, got {n_contests}")
    need_image = protocol == "best_pick" and vision
    chosen = _held_out(dataset, need_image)[:n_contests]
    if len(chosen) < n_contests:
        groups = _train_groups(dataset)
        notes = _train_annotations(dataset, set(groups), need_image)
        for contest in sorted(groups):
            if len(chosen) == n_contests:
                break
            note = notes.get(contest, {})
            description, image = _description(note), note.get("image")
            top10, low = groups[contest]
            if _eligible(top10, low, description, image, need_image):
                chosen.append(ReliabilityContest(contest, "train", top10, low, description, image))
    if not chosen:
        need = "an image" if need_image else "a description"
        raise NyccBenchError(f"dataset: no contest in {dataset} has a top-10 and a #1000-1009 group and {need}; "
                             "build the configs it needs (`nycc-bench build --source upstream --out DIR "
                             "--configs caption_generation caption_ratings`)")
    return chosen


def reliability(judge: JudgeSpec, dataset: str = DEFAULT_DATASET, protocol: str = "overall",
                n_contests: int = PAPER_N_CONTESTS, *, vision: bool = True, rule: str | None = None,
                threshold: float | None = None, n_shots: int = 5, seed: int = 0, confidence: float = 0.95,
                n_resamples: int = 10_000) -> dict[str, Any]:
    """Run Zhang's reliability check with ``judge`` (an LLM, or the offline reward model).

    Returns ``{"task": "reliability", "judge", "protocol", "reliability" (0-1, the share of comparisons
    picking the top 10), "percent", "stderr" (binomial, the paper's ±), "ci_low", "ci_high" (bootstrap over
    contests), "confidence", "n" (comparisons made: 200 for 100 contests), "n_valid", "n_error",
    "n_nonletter", "n_contests", "contests", "contests_held_out", "contests_train", "settings",
    "deviations", "judgments"}``. A dry-run spec raises :class:`ReliabilityDryRun` before any call.
    """
    threshold = threshold if threshold is not None else judge.threshold if judge.threshold is not None else THRESHOLD
    vision = vision and protocol == "best_pick"
    contests = select_contests(dataset, protocol, n_contests, vision=vision)
    numbers = [c.contest_number for c in contests]
    top = [list(c.top10) for c in contests]
    low = {LOW_GROUP: [list(c.low) for c in contests]}
    descriptions = [c.description for c in contests]
    images = [image_url(c.image) for c in contests] if vision else None
    if judge.is_llm:
        if n_shots not in (0, 5):
            raise NyccBenchError(f"n_shots: 0 (zero-shot) or 5 (upstream's draw, ranking/rank.py L122), got {n_shots}")
        # the shots scoring gives the judge too: upstream's pandas draw per contest, zero-shot (recorded) without data
        shots, shot_record = zhang_judge_shots(dataset, numbers, images=vision) if n_shots else ({}, None)
        resolved = ResolvedJudge.resolve(judge, protocol, rule=rule)  # once: the run and the record read it
        try:
            records = run_judge(protocol, resolved, model_groups=top, human_groups=low, contest_numbers=numbers,
                                descriptions=descriptions, shots=shots or None, images=images, n_shots=n_shots,
                                seed=seed, rule=rule)
        except DryRun as stop:
            raise ReliabilityDryRun(stop.estimate, protocol, numbers) from None
        settings = resolved.settings(vision=vision, threshold=threshold, n_shots=(shot_record or {}).get("n_shots", 0))
        settings = {**settings, "shots": shot_record,
                    "shots_source": shot_record["pool"] if shot_record and shot_record["n_shots"] else None}
    else:
        records = group_judgments(judge, top, low, numbers, descriptions, protocol, images=images)
        settings = {"protocol": protocol, "model": judge.name, "notes": [],
                    "deviations": [f"The judge is {judge.name}, not an LLM: no paper setting applies."]}
    rate = win_rate(records, threshold=threshold, confidence=confidence, n_resamples=n_resamples, seed=seed)
    value = rate["win_rate"]
    n_valid = rate["n_judgments"] - rate["n_error"]
    deviations = list(settings["deviations"])
    if len(contests) < n_contests:
        deviations.append(f"Only {len(contests)} contests qualify, not {n_contests}: "
                          f"{2 * len(contests)} comparisons instead of {2 * n_contests}.")
    if held_out := [c.contest_number for c in contests if c.source != "train"]:
        deviations.append(f"{len(held_out)} of the {len(contests)} contests are held-out (caption_generation) ones; "
                          "upstream's were train contests (rank.py L284 takes each contest's cartoon from Hessel's "
                          "train shard), in an order it does not record.")
    return {
        "task": "reliability",
        "judge": judge.name,
        "protocol": protocol,
        "reliability": value,
        "percent": None if value is None else 100.0 * value,
        "stderr": None if value is None else math.sqrt(value * (1 - value) / n_valid),
        "ci_low": rate["ci_low"],
        "ci_high": rate["ci_high"],
        "confidence": confidence,
        "n": rate["n_judgments"],
        "n_valid": n_valid,
        "n_error": rate["n_error"],
        "n_nonletter": count_nonletter(records),
        "n_contests": len(contests),
        "contests": numbers,
        "contests_held_out": [c.contest_number for c in contests if c.source != "train"],
        "contests_train": [c.contest_number for c in contests if c.source == "train"],
        "settings": {**settings, "n_contests_requested": n_contests, "low_group": LOW_GROUP,
                     "contest_rule": CONTEST_RULE, "seed": seed, "threshold": threshold if protocol == "overall"
                     else None},
        "deviations": deviations,
        "judgments": records,
    }
