"""`nycc-bench judges train`: both offline judges trained on the public upstream files below a source folder (here
the sample's, laid out as upstream's), each card saying what it was trained on and its held-out figures, and
reachable as `reward:public` / `embedding:public`; the sample-trained judges' cards say they are the sample's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nycc_bench.cli import main
from nycc_bench.paths import SAMPLE_DIR


def test_train_public_judges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    from nycc_bench.sample_judges import judge_folder

    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    with pytest.raises(Exception, match="judges train"):
        judge_folder("reward", "public")
    assert main(["judges", "train", "--source", str(SAMPLE_DIR)]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(summary) == {"reward", "embedding"}
    assert summary["embedding"]["held_out"]["n"] > 0 and "accuracy" in summary["embedding"]["held_out"]
    for backend in ("reward", "embedding"):
        folder = Path(judge_folder(backend, "public"))
        card = (folder / "README.md").read_text(encoding="utf-8")
        assert "Trained on the public upstream data" in card
        assert json.loads((folder / "config.json").read_text())["data_source"] == "public"


def test_sample_judges_say_they_are_the_sample(sample_judges: dict) -> None:
    from nycc_bench.sample_judges import judge_folder

    for backend in ("reward", "embedding"):
        card = (Path(judge_folder(backend, "sample")) / "README.md").read_text(encoding="utf-8")
        assert "Trained on the embedded sample" in card and "nycc-bench judges train" in card
