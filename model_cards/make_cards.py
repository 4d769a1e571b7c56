"""Render every baseline's model card (a thin caller of `nycc-bench cards`).

    python model_cards/make_cards.py                                 # from the leaderboard seed (`nycc-bench seed`):
                                                                     # sample-data figures, labelled so
    python model_cards/make_cards.py --source upstream --work DIR    # evaluate on the real data (downloads it)
                                                                     # into DIR/results first: benchmark figures
"""

import argparse
import sys
from pathlib import Path

from nycc_bench.cli import main
from nycc_bench.paths import SEED_DIR
from nycc_bench.systems import BASELINES

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", help="evaluate the baselines on this data first (upstream or a folder)")
    parser.add_argument("--work", help="with --source: keep the dataset, runs and results records here")
    args = parser.parse_args()
    if args.source is None:
        sys.exit(main(["cards", "--results", str(SEED_DIR / "results"), "--out", str(HERE)]))
    if args.work is None:
        parser.error("--source needs --work DIR (the results records the cards are rendered from go in DIR/results)")
    sys.exit(main(["cards", "--results", str(Path(args.work) / "results"), "--out", str(HERE), "--systems",
                   *BASELINES, "--source", args.source, "--work", args.work]))
