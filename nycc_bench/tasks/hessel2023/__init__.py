"""Hessel et al. 2023 tasks: the YAML files and prompts here, their kinds in `kinds.py`."""
