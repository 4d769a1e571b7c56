"""The offline judges as one set: the humor reward model (caption groups) and the embedding element grader
(HumorBench), trained on a dataset and its HumorBench rubric. The demo, the leaderboard seed and the model cards
use this one set, so their judged numbers agree."""

from __future__ import annotations

from pathlib import Path

from .judging import JudgeSpec

MINILM = "all-MiniLM-L6-v2"


def train_offline_judges(dataset: str | Path, out: Path, rubric: Path) -> dict[str, JudgeSpec]:
    """Train both judges into `out` (deterministic); returns the judge of each judged task."""
    from .reward import train_grader, train_reward_model

    reward_dir, grader_dir = out / "reward_model", out / "element_grader"
    train_reward_model(str(dataset), MINILM, reward_dir)
    # balanced: the sample rubric is mostly PASS, so plain accuracy would fit a threshold that passes everything
    train_grader(rubric, grader_dir, MINILM, objective="balanced")
    return offline_judges(out)


def offline_judges(folder: Path) -> dict[str, JudgeSpec]:
    """The judge of each judged task from a folder `train_offline_judges` wrote."""
    return {"caption_generation": JudgeSpec("reward", str(folder / "reward_model")),
            "humorbench": JudgeSpec("embedding", str(folder / "element_grader"))}
