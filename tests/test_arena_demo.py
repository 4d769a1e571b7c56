"""`make demo`'s arena round: simulated voters vote in the seeded leaderboard's arena through the tab's own path,
the demo prints the ratings and the offline reward model's agreement, and saves the report where the About tab
reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nycc_bench.arena import VoteStore
from nycc_bench.demo import arena_round, seed_leaderboard


def test_the_demo_arena_round(tmp_path: Path, sample_dataset: str, sample_judges: dict,
                              capsys: pytest.CaptureFixture[str]) -> None:
    data = seed_leaderboard(tmp_path / "leaderboard", Path(sample_dataset))
    out = arena_round(data, Path(sample_dataset), sample_judges, n_votes=300)
    printed = capsys.readouterr().out
    assert "Human #200-209" in printed and "95% interval" in printed and "| Judge |" in printed
    assert out["ratings"]["anchor"] == "human:human_200" and out["ratings"]["n_votes"] > 150
    agreement = out["agreement"]
    assert agreement["judge"].startswith("reward:") and 0 <= agreement["agreement"]["value"] <= 1
    assert agreement["crowd"]["value"] is not None  # Zhang's crowd check on the sample, beside the arena
    store = VoteStore(data / "arena")
    assert store.count() == store.count(simulated=True) == 300  # every vote labelled simulated
    saved = json.loads((data / "arena" / "judges" / "reward.json").read_text())
    assert saved["agreement"] == agreement["agreement"]
