"""`nycc-bench judges train`: both offline judges trained on the public upstream files below a source folder (here
the sample's, laid out as upstream's), each card saying what it was trained on and its held-out figures, and
reachable as `reward:public` / `embedding:public`; the sample-trained judges' cards say they are the sample's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nycc_bench.cli import main
from nycc_bench.paths import SAMPLE_DIR


def test_train_public_judges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                             sample_judges: dict) -> None:
    from nycc_bench.sample_judges import judge_folder

    sample_reward = judge_folder("reward", "sample")  # in the shared cache, before this test's own
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    with pytest.raises(Exception, match="judges train"):
        judge_folder("reward", "public")
    assert main(["judges", "train", "--source", str(SAMPLE_DIR), "--max-per-contest", "100"]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(printed[-1])
    assert any(line.startswith("embedding: held out: human rubric labels, 5-fold cross-validated: ")
               for line in printed)  # the card's held-out figures, printed
    assert set(summary) == {"reward", "embedding"}
    assert summary["embedding"]["held_out"]["n"] > 0 and "accuracy" in summary["embedding"]["held_out"]
    assert summary["reward"]["training"]["max_per_contest"] == 100  # the bounded subset, recorded
    for backend in ("reward", "embedding"):
        folder = Path(judge_folder(backend, "public"))
        card = (folder / "README.md").read_text(encoding="utf-8")
        assert "Trained on the public upstream data" in card
        assert json.loads((folder / "config.json").read_text())["data_source"] == "public"
    assert "at most 100 per contest" in json.loads((Path(judge_folder("reward", "public")) / "config.json")
                                                   .read_text())["training"]["sampling"]
    assert judge_folder("reward", "default") == judge_folder("reward", "public")  # trained here: the default
    # `judges report` never scores a judge trained on the public data on the contests it was fitted on
    source = tmp_path / "ratings" / "contests" / "summaries"
    source.mkdir(parents=True)
    for contest in (510, 543):  # 510: one of its training contests (the sample's 510 here); 543: held out
        lines = ["target_id,rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption"]
        lines += [f"{i},{i + 1},{60 - i // 20},20,{10 + i // 20},90,{2.5 - i / 1000:.4f},0.05,{contest},"
                  f"Caption number {i} says the boss took the stairs." for i in range(1010)]
        (source / f"{contest}_summary_KLUCB.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    from nycc_bench.judges_report import report
    from nycc_bench.judging import JudgeSpec

    assert 510 in json.loads((Path(judge_folder("reward", "public")) / "config.json").read_text())["training"][
        "contests"]
    result = report(JudgeSpec("reward", "public"), tmp_path / "ratings")
    assert result["checks"]["crowd"]["n_contests"] == 1 and result["checks"]["crowd"]["pairwise"]["n"] == 2
    assert "510" in result["absent"]["crowd on trained contests"]
    sample = report(JudgeSpec("reward", sample_reward), tmp_path / "ratings")  # invented ratings: none held out
    assert sample["checks"]["crowd"]["n_contests"] == 2 and "crowd on trained contests" not in sample["absent"]


def test_embeddings_kept_on_disk_are_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`judges train` keeps every embedding in the disk cache, so a rerun embeds only new text."""
    import numpy as np

    from nycc_bench.reward import Embedder
    from nycc_bench.sample_judges import MINILM

    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    texts = ["I said the quiet part loud.", "The meeting could have been an email."]
    first = Embedder(MINILM, store=True).embed(texts)
    again = Embedder(MINILM, store=True)
    assert again.n_stored_hits == 0
    second = again.embed([*texts, "A third one."])
    assert again.n_stored_hits == 2 and second.shape == (3, first.shape[1])
    np.testing.assert_allclose(second[:2], first, atol=1e-6)  # the stored float32 rows themselves


def test_sample_judges_say_they_are_the_sample(sample_judges: dict) -> None:
    from nycc_bench.sample_judges import judge_folder

    for backend in ("reward", "embedding"):
        card = (Path(judge_folder(backend, "sample")) / "README.md").read_text(encoding="utf-8")
        assert "trained on the invented sample (offline demo)" in card.lower() and "nycc-bench judges train" in card


def test_the_default_offline_judge_is_chosen_in_one_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`reward:default` / `embedding:default`, a board on the real data and the real data's cards read one rule: the
    judges trained on the public data where they are here, else the sample's, the record saying which and why."""
    from nycc_bench.judging import JudgeSpec
    from nycc_bench.leaderboard import with_default_judges
    from nycc_bench.leaderboard.settings import Settings
    from nycc_bench.offline_judges import default_judges
    from nycc_bench.sample_judges import FOLDERS, TRAINED_ON, default_offline_model, public_judges_dir

    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    assert default_offline_model()[0] == "sample"
    fallback = JudgeSpec.parse("reward:default")
    record = fallback.describe()
    assert fallback.name == "reward:sample" and record["trained_on"] == TRAINED_ON["sample"]
    assert "fell back" in record["chosen_because"] and "nycc-bench judges train" in record["chosen_because"]
    judges, why = default_judges()
    assert {j.name for j in judges.values()} == {"reward:sample", "embedding:sample"} and "fell back" in why
    real_board = Settings(data_dir=tmp_path / "board", published="upstream")
    assert set(with_default_judges(real_board).judges.values()) == {"reward:sample", "embedding:sample"}
    configured = Settings(data_dir=tmp_path / "board", published="upstream", judges={"humorbench": "openai:gpt-4o"})
    assert with_default_judges(configured).judges == {"humorbench": "openai:gpt-4o"}
    assert with_default_judges(Settings(data_dir=tmp_path / "demo")).judges == {}  # the offline demo's board
    for name in FOLDERS.values():  # what `judges train` leaves (its run is test_train_public_judges)
        (public_judges_dir() / name).mkdir(parents=True)
        (public_judges_dir() / name / "config.json").write_text("{}", encoding="utf-8")
    chosen = JudgeSpec.parse("embedding:default").describe()
    assert chosen["name"] == "embedding:public" and chosen["trained_on"] == TRAINED_ON["public"]
    assert "fell back" not in chosen["chosen_because"]
    assert set(with_default_judges(real_board).judges.values()) == {"reward:public", "embedding:public"}


def test_the_leaderboard_says_what_each_offline_judge_was_trained_on() -> None:
    from nycc_bench.standings import task_judges

    def record(**judge: str) -> dict:
        return {"judge": {"name": f"{judge['backend']}:{judge['model']}", **judge}}

    sample = task_judges(record(backend="reward", model="sample"))  # a record made before `trained_on` was kept
    assert set(sample.values()) == {"offline reward model, trained on the invented sample (offline demo)"}
    public = task_judges(record(backend="embedding", model="public", trained_on="trained on the public data (x)"))
    assert set(public.values()) == {"offline embedding grader, trained on the public data (x)"}
    assert set(task_judges(record(backend="reward", model="/m")).values()) == {"offline reward model"}


def test_train_refuses_a_source_without_the_rubric_and_a_bound_below_the_kept_best(tmp_path: Path) -> None:
    from nycc_bench.errors import NyccBenchError
    from nycc_bench.sample_judges import train_public_judges

    with pytest.raises(NyccBenchError, match=r"^source: no HumorBench rubric"):
        train_public_judges(tmp_path, out=tmp_path / "out")
    with pytest.raises(NyccBenchError, match=r"^source: .*missing is not a folder"):
        train_public_judges([SAMPLE_DIR, tmp_path / "missing"], out=tmp_path / "out")
    with pytest.raises(NyccBenchError, match=r"^max_per_contest: 50 is fewer than the 100"):
        train_public_judges(SAMPLE_DIR, out=tmp_path / "out", max_per_contest=50)
    assert not (tmp_path / "out").exists()


def test_train_finds_the_rubric_through_a_mirror_of_symlinked_folders(tmp_path: Path) -> None:
    """An upstream mirror is often symlinked folders (`NYCC_BENCH_UPSTREAM_DIR`, the README's test): the rubric
    below one is found (the next check, the bound, is what stops here)."""
    from nycc_bench.errors import NyccBenchError
    from nycc_bench.sample_judges import train_public_judges

    rubric = tmp_path / "real" / "humorbench_reubennarad" / "rubric"
    rubric.mkdir(parents=True)
    (rubric / "gpt4o_rubric.csv").write_text("idx,explanation,label\n", encoding="utf-8")
    (tmp_path / "mirror").mkdir()
    (tmp_path / "mirror" / "humorbench_reubennarad").symlink_to(rubric.parent)
    with pytest.raises(NyccBenchError, match=r"^max_per_contest: 50 is fewer than the 100"):
        train_public_judges(tmp_path / "mirror", out=tmp_path / "out", max_per_contest=50)
