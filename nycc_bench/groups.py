"""Zhang et al.'s four human caption groups of a contest (the one list; the builders hold the rule that fills
them): the top 10, ranks 200-209 and 1000-1009, and the ten around the median."""

from __future__ import annotations

HUMAN_GROUPS = ("human_top10", "human_200", "human_1000", "human_median")
LABELS = {"human_top10": "Top 10", "human_200": "#200-209", "human_1000": "#1000-1009", "human_median": "Median"}
