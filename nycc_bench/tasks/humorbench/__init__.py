"""HumorBench tasks: the YAML files and prompts here, their kinds in `kinds.py`."""
