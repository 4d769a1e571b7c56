"""Time `caption_ratings` from every nextml summary below --source against a plain pandas.read_csv loop.

The builder reads, validates, stable-sorts and writes parquet; the pandas loop only reads; a third figure is
pandas doing the builder's work naively (read, sort, concat, to_parquet). Both run in one
process, each timed over --repeat runs (best of), so the ratio compares like with like on this machine.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import pandas as pd

from nycc_bench.builders import build_dataset
from nycc_bench.builders.sources import discover


def best_of(repeat: int, fn) -> float:
    """Fastest wall time of `repeat` calls, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Run both, print the figures, then one JSON line."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--source", default="../shared/data", help="folder with the nextml summaries")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    files = [s.path for s in discover(Path(args.source)).summaries]
    size_mb = sum(p.stat().st_size for p in files) / 2**20
    with tempfile.TemporaryDirectory() as out:
        rows = 0

        def builder() -> None:
            nonlocal rows
            report = build_dataset(Path(args.source), Path(out), ["caption_ratings"], progress=False)
            rows = sum(report.rows["caption_ratings"].values())

        def pandas_loop() -> None:
            for path in files:
                pd.read_csv(path)

        def pandas_build() -> None:
            frames = [pd.read_csv(p).sort_values("score" if "score" in pd.read_csv(p, nrows=0) else "mean",
                                                 ascending=False, kind="stable") for p in files]
            pd.concat(frames).to_parquet(Path(out) / "naive.parquet")

        t_builder = best_of(args.repeat, builder)
        t_pandas = best_of(args.repeat, pandas_loop)
        t_naive = best_of(args.repeat, pandas_build)
    print(f"{len(files)} files, {size_mb:.1f} MiB, {rows:,} caption rows")
    print(f"nycc-bench build caption_ratings (read+validate+sort+write parquet): {t_builder:.2f} s")
    print(f"plain pandas.read_csv loop (read only):                            {t_pandas:.2f} s")
    print(f"pandas doing the same work (read+sort+concat+to_parquet):          {t_naive:.2f} s")
    print(f"ratio pandas read loop / builder: {t_pandas / t_builder:.2f}x; naive pandas build / builder: "
          f"{t_naive / t_builder:.2f}x")
    print(json.dumps({"files": len(files), "rows": rows, "mib": round(size_mb, 1),
                      "builder_s": round(t_builder, 3), "pandas_loop_s": round(t_pandas, 3),
                      "pandas_build_s": round(t_naive, 3),
                      "speedup_vs_pandas": round(t_pandas / t_builder, 2)}))


if __name__ == "__main__":
    main()
