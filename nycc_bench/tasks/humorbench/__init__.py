"""HumorBench tasks: the YAML files and prompts here, their kinds in `nycc_bench/kinds/humorbench.py`."""
