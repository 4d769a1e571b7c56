"""Reading the built dataset for the reward model: rated captions, held-out groups, pairs and descriptions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nycc_bench.contests import SPLITS
from nycc_bench.scoring.checks import is_missing


@dataclass
class RewardData:
    """What training and evaluation read from one built dataset (plain pandas frames, one row per item).

    - `ratings`: primary-run captions: contest_number, split, rank, caption, mean, precision, votes.
    - `groups`: `caption_generation` rows: contest_number, split, human_top10, human_1000 (lists or None).
    - `pairs`: `preference_pairs` rows: contest_number, split, chosen, rejected.
    - `descriptions`: contest -> one-sentence cartoon description, where the dataset has one.
    - `prose`: sentences of the dataset that are not captions (cartoon descriptions, explanations, HumorBench
      elements): the reward model's negatives, so fluent text that is no caption scores below every caption.
    """

    ratings: pd.DataFrame
    groups: pd.DataFrame
    pairs: pd.DataFrame
    descriptions: dict[int, str] = field(default_factory=dict)
    prose: list[str] = field(default_factory=list)

    def only(self, contests: Iterable[int]) -> RewardData:
        """The same data restricted to `contests`."""
        keep = {int(c) for c in contests}
        return RewardData(
            self.ratings[self.ratings.contest_number.isin(keep)],
            self.groups[self.groups.contest_number.isin(keep)],
            self.pairs[self.pairs.contest_number.isin(keep)],
            {c: d for c, d in self.descriptions.items() if c in keep},
            self.prose,
        )

    def sampled(self, max_contests: int, seed: int = 0) -> RewardData:
        """Each of ratings, groups and pairs restricted to a seeded sample of at most `max_contests` of its own
        contests (a check on fewer contests embeds fewer captions: the sample's judges are evaluated so)."""
        if max_contests < 1:
            raise ValueError(f"max_contests must be at least 1 (or None for every contest), got {max_contests}")

        def keep(frame: pd.DataFrame) -> pd.DataFrame:
            contests = sorted({int(c) for c in frame.contest_number})
            if len(contests) <= max_contests:
                return frame
            picked = np.random.default_rng([seed, len(contests)]).choice(len(contests), max_contests, replace=False)
            return frame[frame.contest_number.isin([contests[i] for i in picked])]

        return RewardData(keep(self.ratings), keep(self.groups), keep(self.pairs), self.descriptions, self.prose)

    def description_list(self, contests: Sequence[int]) -> list[str | None]:
        """One description (or None) per contest number."""
        return [self.descriptions.get(int(c)) for c in contests]


def _load(dataset: str | Path, config: str, columns: list[str], required: bool) -> pd.DataFrame:
    """`columns` of every split of `config` (SPLITS order) plus a `split` column: a local folder built by
    `nycc-bench build` through pyarrow alone (its parquet files as `config_data_files` lists them, the frame
    `datasets` gives for them), a Hub repo through `load_dataset`; an empty frame where the config is absent and
    not `required`."""
    if Path(dataset).is_dir() and (Path(dataset) / "data").is_dir():
        return _load_local(Path(dataset), config, columns, required)
    from datasets import load_dataset

    try:
        parts = load_dataset(str(dataset), config)
    except Exception as err:  # datasets raises several types for "no such config / folder"
        if required:
            raise ValueError(f"cannot load config {config!r} of dataset {str(dataset)!r}: {err}") from err
        return pd.DataFrame(columns=[*columns, "split"])
    frames = [
        parts[split].select_columns(columns).to_pandas().assign(split=split) for split in SPLITS if split in parts
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*columns, "split"])


def _load_local(dataset: Path, config: str, columns: list[str], required: bool) -> pd.DataFrame:
    """`_load` of a local dataset folder: its parquet files read by pyarrow (no `datasets` import, no cache)."""
    import pyarrow.parquet as pq

    from nycc_bench.splits import config_data_files

    try:
        files = config_data_files(dataset, config)
    except FileNotFoundError as err:
        if required:
            raise ValueError(f"cannot load config {config!r} of dataset {str(dataset)!r}: {err}") from err
        return pd.DataFrame(columns=[*columns, "split"])
    frames = []
    for split in (s for s in SPLITS if s in files):
        for file in files[split]:
            parquet = pq.ParquetFile(file)  # its footer read once: the column check and the read
            if missing := [c for c in columns if c not in parquet.schema_arrow.names]:
                raise KeyError(f"config {config!r} of {str(dataset)!r} has no column {missing[0]!r}")
            frames.append(parquet.read(columns=columns).to_pandas().assign(split=split))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*columns, "split"])


def load_reward_data(dataset: str | Path) -> RewardData:
    """Read a dataset folder built by `nycc-bench build` (or a Hub dataset repo id).

    `caption_ratings` is required (primary runs are kept); `caption_generation` and `preference_pairs` are
    read when present. Descriptions come from `caption_generation` (`description`, else
    `image_description`) and `preference_pairs.description`.
    """
    ratings = _load(
        dataset, "caption_ratings",
        ["contest_number", "is_primary", "rank", "caption", "mean", "precision", "votes"], required=True,
    )
    ratings = ratings[ratings.is_primary].drop(columns="is_primary").reset_index(drop=True)
    if ratings.empty:
        raise ValueError(f"dataset {str(dataset)!r}: caption_ratings has no primary rating run")
    groups = _load(
        dataset, "caption_generation",
        ["contest_number", "description", "image_description", "human_top10", "human_1000"], required=False,
    )
    pairs = _load(dataset, "preference_pairs", ["contest_number", "description", "chosen", "rejected"], False)
    descriptions: dict[int, str] = {}
    for frame, columns in ((pairs, ["description"]), (groups, ["image_description", "description"])):
        for row in frame[["contest_number", *columns]].itertuples(index=False):
            for text in row[1:]:
                if not is_missing(text) and str(text).strip():
                    descriptions[int(row[0])] = str(text)
    return RewardData(
        ratings,
        groups.drop(columns=["description", "image_description"]),
        pairs.drop(columns="description"),
        descriptions,
        prose_sentences(dataset, descriptions.values()),
    )


PROSE_COLUMNS = {"explanation": ["label", "image_description", "image_uncanny_description"],
                 "humorbench": ["description", "elements"]}
"""The configs and columns whose text is prose about cartoons and jokes, never a caption."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def prose_sentences(dataset: str | Path, extra: Iterable[str] = ()) -> list[str]:
    """Every distinct sentence of five or more words in the dataset's prose columns (`PROSE_COLUMNS`) and
    `extra`, sorted (so training is deterministic)."""
    texts = list(extra)
    for config, columns in PROSE_COLUMNS.items():
        for column in columns:
            try:
                frame = _load(dataset, config, [column], required=False)
            except (ValueError, KeyError):  # a dataset whose config lacks the column: no prose from it
                continue
            for value in frame.get(column, []):
                items = list(value) if isinstance(value, list | np.ndarray) else [value]
                texts += [str(v) for v in items if isinstance(v, str)]
    return sorted({s.strip() for t in texts for s in _SENTENCE.split(t) if len(s.split()) >= 5})


def contest_targets(ratings: pd.DataFrame, target: str) -> np.ndarray:
    """Per caption, the training target computed within its contest (all its rated captions).

    - `zscore`: (mean − contest mean) / contest std (0 where the std is 0);
    - `percentile`: average-rank percentile of the mean within the contest, 0 (worst) .. 1 (best);
    - `mean`: the raw mean rating (contests differ in average rating: usually worse).
    """
    if target == "mean":
        return ratings["mean"].to_numpy(dtype=np.float64)
    grouped = ratings.groupby("contest_number")["mean"]
    if target == "zscore":
        std = grouped.transform(lambda s: s.std(ddof=0)).to_numpy()
        centred = (ratings["mean"] - grouped.transform("mean")).to_numpy()
        return np.divide(centred, std, out=np.zeros_like(centred), where=std > 0)
    if target == "percentile":
        ranks = grouped.rank(method="average").to_numpy()
        n = grouped.transform("size").to_numpy()
        return np.divide(ranks - 1, n - 1, out=np.full_like(ranks, 0.5), where=n > 1)
    raise ValueError(f"target must be one of {tuple(TARGETS)}, got {target!r}")


TARGETS: dict[str, str] = {
    "zscore": "within-contest z-score of the mean rating",
    "percentile": "within-contest rank percentile of the mean rating",
    "mean": "raw mean rating (1-3)",
}


def subsample(ratings: pd.DataFrame, max_per_contest: int | None, top_per_contest: int, seed: int) -> pd.DataFrame:
    """Per contest the `top_per_contest` best-ranked captions plus a seeded uniform sample of the rest, up to
    `max_per_contest` in all (None: every caption)."""
    if max_per_contest is None:
        return ratings
    if top_per_contest > max_per_contest:
        raise ValueError("top_per_contest cannot exceed max_per_contest")
    keep: list[Any] = []
    for contest, rows in ratings.groupby("contest_number", sort=True):
        rows = rows.sort_values("rank", kind="stable")
        top, rest = rows.iloc[:top_per_contest], rows.iloc[top_per_contest:]
        take = min(len(rest), max_per_contest - len(top))
        rng = np.random.default_rng([seed, int(contest)])
        keep.extend(top.index)
        keep.extend(rest.index[np.sort(rng.choice(len(rest), size=take, replace=False))])
    return ratings.loc[keep]
