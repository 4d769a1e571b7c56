"""Build the hessel2023 configs of the nycc-bench dataset repo.

Hessel et al. 2023: `matching`, `ranking`, `explanation`, each `_from_pixels`, folds `_1`..`_4`, and the label-free
leaderboard sets `matching_leaderboard`, `ranking_leaderboard`. Reads the upstream HF parquet
(`<config>/newyorker_caption_contest-<split>.parquet`) and copies it, validated, and the unzipped leaderboard
sets (`<task>_test_set_public/instances.json` with its JPEGs).
The logic lives in `nycc_bench.builders.hessel2023`; this script is `nycc-bench build` restricted to this family:

    python dataset_scripts/hessel2023.py --source {sample,upstream,PATH} --out DIR
"""

import sys

from nycc_bench.cli import family_main

if __name__ == "__main__":
    sys.exit(family_main("hessel2023"))
