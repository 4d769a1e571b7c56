#!/usr/bin/env python
"""Publish nycc-bench on the Hugging Face Hub: the dataset, the metric Spaces, the leaderboard and the model cards.

    python upload.py --dry-run --out out/publish --source sample --allow-sample   # stage and check, no token
    python upload.py --dataset-dir out/dataset                                    # push (token: HF_TOKEN / login)
    python upload.py --only metrics --only spaces                                 # just the Spaces

`python upload.py --help` lists every option; the logic lives in `nycc_bench.publish`.
"""

import sys

from nycc_bench.publish.cli import main

if __name__ == "__main__":
    sys.exit(main())
