"""`nycc-bench import published`: the papers' published per-item outputs (Zhang et al. 2024's stored generations,
HumorBench's stored explanations with their GPT-4o verdicts) as run folders scored by this toolkit's metrics, and
the figures the authors only reported (Hessel 2023's tables, HumorBench's whole-benchmark figures) as reported
rows, never ranked with scored runs."""
