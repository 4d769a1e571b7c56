"""Regenerate the baseline results records and every model card (a thin caller of `nycc-bench cards`).

    python model_cards/make_cards.py                      # the embedded sample: sample-data figures, labelled so
    python model_cards/make_cards.py --source upstream    # the real data (downloads it): benchmark figures
"""

import sys
from pathlib import Path

from nycc_bench.cli import main
from nycc_bench.systems import BASELINES

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    sys.exit(main(["cards", "--results", str(HERE / "results"), "--out", str(HERE), "--systems", *BASELINES,
                   *sys.argv[1:]]))
