"""Build the zhang2024 configs of the nycc-bench dataset repo.

Zhang et al. 2024: `caption_ratings`, `caption_generation`, `preference_pairs`, `cartoons`.
Reads the nextml rating summaries (both repos, both header variants), `descriptions.txt`, Zhang's `human_*.csv`
and, from Zhang's Hub dataset, `gpt4o_description/*.jsonl` and `cartoons/<n>.jpg`.
The logic lives in `nycc_bench.builders.zhang2024`; this script is `nycc-bench build` restricted to this family:

    python dataset_scripts/zhang2024.py --source {sample,upstream,PATH} --out DIR
"""

import sys

from nycc_bench.cli import family_main

if __name__ == "__main__":
    sys.exit(family_main("zhang2024"))
