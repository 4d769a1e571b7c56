"""Preference pairs: upstream's draw reproduced exactly, its train-contest rule, and the distinct variant."""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from nycc_bench.builders import BuildOptions, build_dataset
from nycc_bench.builders.nextml import read_summary, stable_rank
from nycc_bench.builders.pairs import draw_pairs_distinct, draw_pairs_upstream, in_pair_train
from nycc_bench.builders.sources import discover
from nycc_bench.errors import NyccBenchError
from nycc_bench.paths import SAMPLE_DIR

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
NEXTML = SHARED / "nextml_caption_contest_data_api"

# Upstream's own `preprocess_dpo` (yguooo/cartoon-caption-generation @ 91231db, finetuning/preprocess.py), run
# outside this repository with `random.seed(2024)` on contest 530 of ../shared/data (ranking file: the summary
# stable-sorted by mean descending), printed these (chosen, rejected) positions: 1000 pairs, 998 distinct.
UPSTREAM_530_FIRST = [(1302, 3344), (422, 3246), (284, 3409), (862, 3376), (347, 3149), (8, 626), (490, 3337),
                      (944, 3409), (360, 2471), (1185, 3414)]
UPSTREAM_530_LAST = [(19, 578), (110, 2136), (79, 1935), (151, 3015), (305, 2729)]
UPSTREAM_530_SHA256 = "9ce39b960eb9fa7780d56ce0c643ef357e0ce651aa46af34ea429fc3d2b85f86"


@pytest.mark.skipif(not NEXTML.is_dir(), reason="../shared/data is not beside this checkout")
def test_upstream_draw_reproduced_on_a_real_contest() -> None:
    """Same pairs, same order as upstream's script on contest 530, seed 2024."""
    summary = next(s for s in discover(NEXTML).summaries if s.path.name == "530_summary_LilUCB.csv")
    table = read_summary(summary)
    table = table.take(stable_rank(table["mean"].to_numpy()))
    chosen, rejected = draw_pairs_upstream(table["mean"].to_numpy(), table["precision"].to_numpy(),
                                           random.Random(2024))
    pairs = list(zip(chosen.tolist(), rejected.tolist(), strict=True))
    assert len(pairs) == 1000 and len(set(pairs)) == 998  # drawn with replacement: repeats kept
    assert pairs[:10] == UPSTREAM_530_FIRST and pairs[-5:] == UPSTREAM_530_LAST
    assert hashlib.sha256(";".join(f"{c},{r}" for c, r in pairs).encode()).hexdigest() == UPSTREAM_530_SHA256
    assert draw_pairs_upstream(table["mean"].to_numpy(), table["precision"].to_numpy())[0].tolist() == chosen.tolist()


def test_upstream_draw_small_contests() -> None:
    """Fewer than 3 captions give no pairs (upstream raises); the draw cap stops a contest with no valid pair."""
    assert len(draw_pairs_upstream(np.array([3.0, 1.0]), np.array([0.0, 0.0]))[0]) == 0
    c, r = draw_pairs_upstream(np.array([3.0, 2.0, 1.0]), np.zeros(3), max_pairs=50)
    assert len(c) == 50 and len(set(zip(c.tolist(), r.tolist(), strict=True))) <= 3  # repeats of 3 possible pairs
    assert (c <= 1).all() and (r > c).all()
    assert len(draw_pairs_upstream(np.full(5, 2.0), np.ones(5), max_draws=1000)[0]) == 0
    c, r = draw_pairs_distinct(np.array([3.0, 2.0, 1.0]), np.zeros(3), contest=1)
    assert len(set(zip(c.tolist(), r.tolist(), strict=True))) == len(c) <= 3


def test_train_contest_rule() -> None:
    """Upstream trains on contests 530..889 (and only the description files' train contests when known)."""
    assert not in_pair_train(510) and in_pair_train(530) and in_pair_train(889) and not in_pair_train(890)
    assert not in_pair_train(600, known_train=frozenset({601})) and in_pair_train(510, "distinct")


def _pairs(out: Path, split: str) -> list[dict]:
    """All pair rows of one split."""
    return [r for p in sorted((out / "data" / "preference_pairs").glob(f"{split}-*.parquet"))
            for r in pq.read_table(p).to_pylist()]


def test_sample_build_both_rules(tmp_path: Path) -> None:
    """Default: upstream's rule (train 530..889, repeats possible); `distinct`: unique pairs, every train contest."""
    build_dataset(SAMPLE_DIR, tmp_path / "up", ["preference_pairs"], progress=False)
    train = _pairs(tmp_path / "up", "train")
    assert {r["contest_number"] for r in train} == {530, 560, 800}
    for r in train:
        assert r["chosen_mean"] - r["rejected_mean"] > 3 * math.sqrt(r["chosen_precision"] ** 2
                                                                     + r["rejected_precision"] ** 2)
    assert "`upstream` rule" in (tmp_path / "up" / "README.md").read_text()
    build_dataset(SAMPLE_DIR, tmp_path / "d", ["preference_pairs"], progress=False,
                  options=BuildOptions(pair_rule="distinct"))
    distinct = _pairs(tmp_path / "d", "train")
    assert {508, 510} & {r["contest_number"] for r in distinct}
    keys = Counter((r["contest_number"], r["chosen_rank"], r["rejected_rank"]) for r in distinct)
    assert max(keys.values()) == 1
    with pytest.raises(NyccBenchError, match="use one of upstream, distinct"):
        BuildOptions(pair_rule="unique")
