"""Hessel et al. 2023 figures: the split sizes of the matching and quality-ranking data, and the Random row as the
expected accuracy of a uniform guess over each test instance's choices.

Both are read from the fold-0 from-pixels configs: one instance per caption set (the from-description configs repeat
train instances once per description annotation), and a tenth of the download."""

from __future__ import annotations

import pyarrow.parquet as pq

from ..builders.csvfile import read_parquet
from ..builders.sources import HESSEL_HF_REVISION
from .figures import HESSEL, Figure
from .inputs import Inputs

PAPER = HESSEL
REPO = "jmhessel/newyorker_caption_contest"
SPLITS = ("train", "validation", "test")
# The "Datasets" slide as printed: train / val / test instances.
SIZES = {"matching_from_pixels": ("Matching", ("1.6K", "538", "538")),
         "ranking_from_pixels": ("Quality ranking", ("1.6K", "523", "523"))}
RESULTS = "Matching and quality ranking results"
# The Random row as printed: (config, column, instances counted: winner source None = all, else which).
RANDOM = (("matching_from_pixels", "Matching Accuracy", "20.0", None),
          ("ranking_from_pixels", "CrowdAcc", "50.0", {"crowd_winner"}),
          ("ranking_from_pixels", "NYAcc", "50.0", {"official_winner"}))


def figures(inputs: Inputs) -> list[Figure]:
    """The split sizes, then the Random row."""
    return [*sizes(inputs), *random_row(inputs)]


def _need(config: str, split: str) -> str:
    return f"{REPO}@{HESSEL_HF_REVISION[:7]} (Hub dataset) {config}/newyorker_caption_contest-{split}*.parquet"


def sizes(inputs: Inputs) -> list[Figure]:
    """Instances per split of each fold-0 from-pixels config, counted from the parquet metadata."""
    out = []
    for config, (row, printed) in SIZES.items():
        shards = inputs.sources.hessel.get(config, {})
        for split, value in zip(SPLITS, printed, strict=True):
            figure = Figure(PAPER, "Datasets", row, f"{split} instances", value)
            if not shards.get(split):
                out.append(figure.absent([inputs.why(_need(config, split), REPO)]))
                continue
            out.append(figure.settle(sum(pq.ParquetFile(p).metadata.num_rows for p in shards[split])))
    return out


def random_row(inputs: Inputs) -> list[Figure]:
    """A uniform guess among each instance's choices, in expectation: 100 / (number of choices), averaged; true by
    construction for five (two) choices, so an `identity`, never a match."""
    out = []
    for config, column, printed, winners in RANDOM:
        figure = Figure(PAPER, RESULTS, "Random", column, printed, kind="identity")
        shards = inputs.sources.hessel.get(config, {}).get("test", [])
        if not shards:
            out.append(figure.absent([inputs.why(_need(config, "test"), REPO)]))
            continue
        columns = ["caption_choices"] + (["winner_source"] if winners else [])
        rows = [r for p in sorted(shards) for r in read_parquet(p, columns).to_pylist()
                if not winners or r["winner_source"] in winners]
        value = sum(100 / len(r["caption_choices"]) for r in rows) / len(rows) if rows else None
        out.append(figure.settle(value, n=len(rows), note="100 / number of choices, averaged over fold 0's test "
                                 "instances: true by construction"))
    return out
