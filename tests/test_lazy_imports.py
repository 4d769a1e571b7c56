"""What a baseline run's scoring does not import: datasketch (the novelty index's parameters are kept once
computed), pandas (a score line), torch (embeddings cached: test_scoring_sbert.py), nltk (ROUGE-L:
test_scoring_overlap.py), and for the whole `evaluate --system random --tasks all` on a built dataset neither
`datasets` (its parquet files are read with pyarrow) nor torch (the random captions' embeddings are cached)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _run(code: str, **env: str) -> object:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, **env})
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_novelty_parameters_are_datasketch_s_and_read_back_without_it(tmp_path: Path) -> None:
    pytest.importorskip("datasketch")
    from datasketch import MinHash, MinHashLSH

    code = ("import json, sys; from nycc_bench.novelty.lsh import SCHEME, SEED, _permutations, lsh_params; "
            "a, b = _permutations(64); print(json.dumps([a.tolist(), b.tolist(), lsh_params(0.6, 64, (0.5, 0.5)), "
            "'datasketch' in sys.modules]))")
    first = _run(code, NYCC_BENCH_CACHE=str(tmp_path))
    second = _run(code, NYCC_BENCH_CACHE=str(tmp_path))
    assert first[:3] == second[:3] and first[3] is True and second[3] is False  # computed once, then read
    a, b = MinHash(num_perm=64, seed=1, scheme="affine32").permutations
    lsh = MinHashLSH(threshold=0.6, num_perm=64, weights=(0.5, 0.5))
    assert first[0] == a.astype("uint32").tolist() and first[1] == b.astype("uint32").tolist()
    assert first[2] == [lsh.b, lsh.r]


def test_a_score_line_imports_no_pandas() -> None:
    code = ("import json, sys; from nycc_bench.standings import score_text; "
            "print(json.dumps([score_text(0.375, 0.125, 0.75, 8, True), score_text(None, None, None, None, False, "
            "'no judge'), 'pandas' in sys.modules]))")
    assert _run(code) == ["0.4 [0.1, 0.8] n=8", "no judge", False]


def test_missing_is_pandas_isna_on_one_cell() -> None:
    pd = pytest.importorskip("pandas")
    from nycc_bench.standings import missing

    for value in (None, math.nan, pd.NA, pd.NaT, 0.0, 3, "x", float("inf")):
        assert missing(value) == bool(pd.isna(value)), value


HEAVY = ("torch", "datasets", "sentence_transformers", "transformers", "nltk", "evaluate", "scipy")


def test_a_random_run_on_a_built_dataset_imports_neither_datasets_nor_torch(judged_random_run: object,
                                                                           sample_dataset: str,
                                                                           tmp_path: Path) -> None:
    """`nycc-bench evaluate --system random --tasks all` as the console script runs it, on the cache the judged
    random run filled (the captions' embeddings are there, as on any second run): the heavy libraries it imported."""
    code = ("import json, sys; from nycc_bench.cli import main; code = main(sys.argv[1:]); "
            f"print(json.dumps([code, sorted(m for m in {HEAVY!r} if m in sys.modules)]))")
    done = subprocess.run([sys.executable, "-c", code, "evaluate", "--system", "random", "--tasks", "all",
                           "--dataset", sample_dataset, "--out", str(tmp_path / "run"), "--quiet"],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [0, []]
    assert (tmp_path / "run" / "results.json").is_file()


def test_a_text_task_run_decodes_no_image_and_imports_no_pandas(sample_dataset: str, tmp_path: Path) -> None:
    """`evaluate` of a from-description task (built, answered and scored) reads its split's rows without the
    cartoons: PIL, pandas, datasets and torch stay out of the process."""
    code = ("import json, sys; from nycc_bench.cli import main; code = main(sys.argv[1:]); "
            "print(json.dumps([code, sorted(m for m in ('PIL', 'pandas', 'datasets', 'torch') if m in sys.modules)]))")
    done = subprocess.run([sys.executable, "-c", code, "evaluate", "--system", "random", "--tasks", "matching",
                           "--dataset", sample_dataset, "--out", str(tmp_path / "run"), "--quiet"],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [0, []]
