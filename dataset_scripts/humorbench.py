"""Build the humorbench configs of the nycc-bench dataset repo.

HumorBench (Narad et al. 2025): `humorbench`, `humorbench_hard`.
Reads `comprehensive_annotations.csv`, `categorized_output_*.csv` and the paper's hard list
(`paper_hard_subset/hard_subset_with_categories.csv`, upstream at 6e87dbf).
The logic lives in `nycc_bench.builders.humorbench`; this script is `nycc-bench build` restricted to this family:

    python dataset_scripts/humorbench.py --source {sample,upstream,PATH} --out DIR
"""

import sys

from nycc_bench.cli import family_main

if __name__ == "__main__":
    sys.exit(family_main("humorbench"))
