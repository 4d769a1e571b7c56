"""The leaderboard's search with a 500 kB query (40,000 `;`-separated terms), as one attacking request sends it:
the bounded search (`standings.filter_rows`: the first 200 characters, at most 10 terms, one pass over the names)
against the naive way in the same run (every term a pandas `str.contains` over every name, which the search
used before). Prints the figures, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import pandas as pd

from nycc_bench.standings import Filters, filter_rows


def naive(frame: pd.DataFrame, search: str) -> pd.DataFrame:
    """The unbounded search: one `str.contains` per term, all terms."""
    terms = [t.strip().lower() for t in search.split(";") if t.strip()]
    names = frame["name"].str.lower()
    return frame[pd.concat([names.str.contains(t, regex=False) for t in terms], axis=1).any(axis=1)]


def timed(fn: Callable[..., Any], *args: Any) -> float:
    """Seconds one call takes."""
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def main() -> None:
    """Time both on a board of --runs rows."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200, help="rows on the board (default 200)")
    parser.add_argument("--terms", type=int, default=40_000, help="terms in the query (default 40,000: 500 kB)")
    parser.add_argument("--quick", action="store_true", help="CI sizes: 20 rows, 400 terms")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.terms = 20, 400
    frame = pd.DataFrame({"name": [f"org/model-{k}" for k in range(args.runs)], "Type": "open", "size": "small",
                          "Data": "real"})
    search = "; ".join(f"model-{k}" for k in range(args.terms))
    bounded = timed(filter_rows, frame, Filters(search=search))
    unbounded = timed(naive, frame, search)
    print(f"query: {len(search):,} bytes, {args.terms:,} terms; board: {args.runs} rows")
    print(f"bounded search: {bounded * 1000:.1f} ms; naive search: {unbounded * 1000:.1f} ms")
    print(json.dumps({"benchmark": "search_bound", "query_bytes": len(search), "rows": args.runs,
                      "bounded_s": round(bounded, 4), "naive_s": round(unbounded, 3),
                      "speedup": round(unbounded / bounded, 1)}))


if __name__ == "__main__":
    main()
