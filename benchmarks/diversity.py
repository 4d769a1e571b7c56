"""Time Average EAD (vectorised vs a plain Python loop) on 100,000 groups of 10 captions, and SBERT throughput."""

import argparse
import json
import platform
import time

import numpy as np

from nycc_bench.scoring.ead import average_ead
from nycc_bench.scoring.sbert import TEST_MODEL, sbert_diversity


def make_groups(n_groups: int, group_size: int, seed: int = 0) -> list[list[str]]:
    """Seeded caption-like text: Zipf-distributed words, 1–20 per caption, some periods and newlines."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{i}" for i in range(20_000)])
    weights = 1 / np.arange(1, len(vocabulary) + 1)
    lengths = np.minimum(rng.poisson(9, size=n_groups * group_size) + 1, 20)
    words = rng.choice(vocabulary, size=int(lengths.sum()), p=weights / weights.sum()).tolist()
    ends = rng.choice([".", "", "?", ".\n"], size=len(lengths)).tolist()
    captions, start = [], 0
    for length, end in zip(lengths.tolist(), ends, strict=True):
        captions.append(" ".join(words[start : start + length]) + end)
        start += length
    return [captions[i : i + group_size] for i in range(0, len(captions), group_size)]


def loop_average_ead(groups: list[list[str]], vocab_size: int = 32000, max_n: int = 5) -> float:
    """The definition as a straightforward loop: tuples of tokens, one set per order and contest."""
    total = 0.0
    for group in groups:
        tokens = [[t for t in c.replace(".", "").replace("\n", "").split(" ") if t] for c in group]
        score = 0.0
        for n in range(1, max_n + 1):
            grams = [tuple(t[i : i + n]) for t in tokens for i in range(len(t) - n + 1)]
            if grams:
                score += len(set(grams)) / (vocab_size * (1 - ((vocab_size - 1) / vocab_size) ** len(grams)))
        total += score / max_n
    return total / len(groups)


def timed(function, *args, **kwargs) -> tuple[float, float]:
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--groups", type=int, default=100_000)
    parser.add_argument("--sbert-captions", type=int, default=2_000)
    parser.add_argument("--quick", action="store_true", help="CI sizes: 2,000 groups, 20 SBERT captions")
    args = parser.parse_args()
    if args.quick:
        args.groups, args.sbert_captions = 2_000, 20

    groups = make_groups(args.groups, 10)
    n_captions = sum(len(g) for g in groups)
    vectorised, t_vectorised = timed(average_ead, groups)
    looped, t_loop = timed(loop_average_ead, groups)
    assert abs(vectorised - looped) < 1e-12, (vectorised, looped)
    print(f"Average EAD over {len(groups):,} groups ({n_captions:,} captions): {vectorised:.15f}")
    print(f"  vectorised (nycc_bench.scoring.ead): {t_vectorised:.2f} s")
    print(f"  plain Python loop:                   {t_loop:.2f} s")
    print(f"  speed-up: {t_loop / t_vectorised:.1f}x (|difference| = {abs(vectorised - looped):.1e})")

    import torch

    sbert_groups = groups[: max(1, args.sbert_captions // 10)]
    sbert_n = sum(len(g) for g in sbert_groups)
    sbert_diversity(sbert_groups[:1], TEST_MODEL, device="cpu")  # load the model and warm up outside the timing
    diversity, t_sbert = timed(sbert_diversity, sbert_groups, TEST_MODEL, device="cpu")
    print(f"SBERT diversity, all-MiniLM-L6-v2 on CPU ({torch.get_num_threads()} threads), {sbert_n:,} captions:")
    print(f"  {diversity:.6f} in {t_sbert:.2f} s = {sbert_n / t_sbert:,.0f} captions/s")
    print(
        json.dumps(
            {
                "groups": len(groups),
                "captions": n_captions,
                "average_ead": vectorised,
                "ead_vectorised_s": round(t_vectorised, 3),
                "ead_loop_s": round(t_loop, 3),
                "ead_speedup": round(t_loop / t_vectorised, 2),
                "sbert_model": TEST_MODEL,
                "sbert_captions": sbert_n,
                "sbert_captions_per_s": round(sbert_n / t_sbert, 1),
                "cpu_threads": torch.get_num_threads(),
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    main()
