"""Hessel et al. 2023 tasks: the YAML files and prompts here, their kinds in `nycc_bench/kinds/hessel2023.py`."""
