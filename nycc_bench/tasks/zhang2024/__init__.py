"""Zhang et al. 2024 tasks: the YAML files and prompts here, their kinds in `nycc_bench/kinds/zhang2024.py`."""
