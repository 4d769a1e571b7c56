"""Zhang et al. 2024 tasks: the YAML files and prompts here, their kinds in `kinds.py`."""
