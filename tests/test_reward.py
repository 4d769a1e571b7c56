"""The offline judges on the embedded sample: reward model training, reload, judging; the embedding grader."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nycc_bench.builders import build_dataset
from nycc_bench.paths import SAMPLE_DIR
from nycc_bench.reward import (
    EmbeddingGrader,
    RewardModel,
    evaluate,
    grade_elements_embedding,
    judge_groups_reward,
    load_reward_data,
    train_grader,
    train_reward_model,
)
from nycc_bench.scoring.win_rate import win_rate

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
RUBRIC = SAMPLE_DIR / "humorbench_reubennarad" / "rubric" / "gpt_4o_rubric.csv"
JUDGMENT_KEYS = {"contest_number", "model_position", "verdict", "delta_logprob", "human_group", "protocol", "raw"}
CAPTIONS = ["I told you not to feed it after midnight.", "Sex.", "The vending machine is on call tonight."]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's Zhang configs, built once."""
    out = tmp_path_factory.mktemp("reward_sample")
    build_dataset(SAMPLE_DIR, out, ["caption_ratings", "caption_generation", "preference_pairs"], progress=False)
    return out


@pytest.fixture(scope="module")
def trained(built: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[RewardModel, Path]:
    """A small reward model trained on the sample's train contests and saved."""
    out = tmp_path_factory.mktemp("reward_model") / "model"
    model = train_reward_model(
        built, MODEL, out, max_per_contest=40, top_per_contest=10, evaluate=False, progress=False
    )
    return model, out


def test_trained_on_train_contests_only(trained: tuple[RewardModel, Path], built: Path) -> None:
    """Training reads primary runs of the train split only and records the contests in config.json."""
    _, out = trained
    data = load_reward_data(built)
    train_contests = sorted(set(data.ratings[data.ratings.split == "train"].contest_number))
    config = json.loads((out / "config.json").read_text())
    assert config["training"]["contests"] == train_contests
    assert config["embedding_model"] == MODEL and config["target"] == "zscore"
    assert {p.name for p in out.iterdir()} == {"config.json", "head.safetensors", "README.md"}
    assert "Limitations" in (out / "README.md").read_text()


def test_reload_gives_identical_scores(trained: tuple[RewardModel, Path]) -> None:
    """A saved model reloads to bit-identical predictions and the same fingerprint."""
    model, out = trained
    reloaded = RewardModel.load(out)
    assert reloaded.fingerprint == model.fingerprint
    scores = model.score(CAPTIONS)
    assert scores.shape == (3,) and scores.dtype == np.float64
    assert np.array_equal(scores, reloaded.score(CAPTIONS))
    assert np.array_equal(scores, reloaded.score(list(reversed(CAPTIONS)))[::-1])


def test_hub_id_goes_through_snapshot_download(trained: tuple[RewardModel, Path], monkeypatch) -> None:
    """A path that does not exist but reads as owner/name is downloaded (here: redirected to a local folder)."""
    import huggingface_hub

    _, out = trained
    asked = []
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda repo_id: asked.append(repo_id) or str(out))
    assert RewardModel.load("someone/nycc-reward").score(CAPTIONS[:1]).shape == (1,)
    assert asked == ["someone/nycc-reward"]


def test_compare_rerank_agree_with_scores(trained: tuple[RewardModel, Path]) -> None:
    """compare_pair, compare_groups (both protocols, both orders) and rerank follow the scores."""
    model, _ = trained
    scores = model.score(CAPTIONS)
    best = int(np.argmax(scores))
    assert model.rerank(CAPTIONS, k=2)[0] == CAPTIONS[best]
    assert len(model.rerank(CAPTIONS, k=10)) == 3
    assert model.compare_pair(CAPTIONS[0], CAPTIONS[1]) == ("A" if scores[0] >= scores[1] else "B")
    a, b = CAPTIONS[:2], CAPTIONS[1:]
    for protocol in ("overall", "best_pick"):
        forward, backward = model.compare_groups(a, b, protocol=protocol), model.compare_groups(b, a, protocol=protocol)
        assert forward in "AB" and backward in "AB" and forward != backward
    assert model.compare_groups(a, a) == "A"


def test_judge_groups_reward_records(trained: tuple[RewardModel, Path], built: Path) -> None:
    """One record per contest and order, in the LLM judge's format, aggregated by win_rate."""
    model, _ = trained
    data = load_reward_data(built)
    rows = data.groups.head(4)
    contests = rows.contest_number.tolist()
    top, low = [list(g) for g in rows.human_top10], [list(g) for g in rows.human_1000]
    for protocol in ("overall", "best_pick"):
        records = judge_groups_reward(model, top, {"#1000-1009": low}, contests, [None] * 4, protocol)
        assert len(records) == 8
        assert [r["model_position"] for r in records] == ["A", "B"] * 4
        for record in records:
            assert set(record) >= JUDGMENT_KEYS
            assert record["verdict"] in ("A", "B") and record["delta_logprob"] is None
            assert record["protocol"] == protocol and record["human_group"] == "#1000-1009"
            assert set(json.loads(record["raw"])) == {"statistic", "score_a", "score_b", "n_flagged"}
        for first, second in zip(records[::2], records[1::2], strict=True):
            assert (first["verdict"] == "A") == (second["verdict"] == "B")  # same pick in both orders
        rate = win_rate(records, n_resamples=100)
        assert 0 <= rate["win_rate"] <= 1 and rate["n_contests"] == 4


def test_evaluate_skips_trained_contests(trained: tuple[RewardModel, Path], built: Path) -> None:
    """evaluate() returns rates in [0, 1] with intervals, and never scores a contest the model trained on."""
    model, out = trained
    result = evaluate(out, built, contests=[536, 543], max_pairs_per_contest=5, n_resamples=100)
    for name in ("group_overall", "group_best_pick", "top_vs_mid", "preference_pairs"):
        metric = result[name]
        assert 0 <= metric["ci_low"] <= metric["accuracy"] <= metric["ci_high"] <= 1, name
    assert result["group_overall"]["n"] == 4 and result["contests_skipped_trained"] == 0
    trained_on = model.config["training"]["contests"]
    result = evaluate(model, built, splits=("train",), contests=trained_on, n_resamples=100)
    assert result["contests_skipped_trained"] == len(trained_on)
    assert result["top_vs_mid"]["n"] == 0 and result["group_overall"]["accuracy"] is None


def test_grader_trains_grades_and_reloads(tmp_path: Path) -> None:
    """The embedding grader: cross-validated metrics in [0, 1], PASS/FAIL records, identical after reload."""
    summary = train_grader(RUBRIC, tmp_path / "grader", MODEL)
    cv = summary["cross_validation"]
    for key in ("accuracy", "fpr", "fnr", "ci_low", "ci_high", "majority_accuracy"):
        assert cv[key] is None or 0 <= cv[key] <= 1, key
    assert cv["n"] == 20 and cv["tp"] + cv["fp"] + cv["tn"] + cv["fn"] == 20
    grader = EmbeddingGrader.load(tmp_path / "grader")
    assert grader.threshold == summary["threshold"]
    elements = ["Weaning is the medical process of slowly reducing a drug", "B4 is a vending machine code"]
    explanations = ["The doctor weans him off pretzels. Snacks are medicine here.", "It is about cats."]
    records = grade_elements_embedding(["d", "d"], ["c", "c"], elements, explanations, tmp_path / "grader")
    assert [r["index"] for r in records] == [0, 1]
    assert all(r["verdict"] in ("PASS", "FAIL") and r["error"] is None for r in records)
    assert {"reasoning", "graded_explanation", "raw", "prompt_version"} <= set(records[0])
    short = grade_elements_embedding(["d"], ["c"], elements[:1], explanations[:1], grader, last_k_tokens=4)
    assert short[0]["graded_explanation"] == "Snacks are medicine here."
    assert grader.similarity(elements, explanations).tolist() == EmbeddingGrader.load(
        tmp_path / "grader").similarity(elements, explanations).tolist()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m, g: m.score([]), "captions is empty"),
        (lambda m, g: m.score(["a", "b"], ["only one"]), "one per caption"),
        (lambda m, g: m.compare_groups([], ["a"]), "group_a is empty"),
        (lambda m, g: m.compare_groups(["a"], ["b"], protocol="vibes"), "protocol must be"),
        (lambda m, g: m.rerank(["a"], k=0), "k must be"),
        (lambda m, g: judge_groups_reward(m, [["a"]], [["b"], ["c"]], [1]), "one entry per contest"),
        (lambda m, g: RewardModel.load(g / "missing" / "model"), "no folder"),
        (lambda m, g: RewardModel.load(g), "lacks config.json"),
        (lambda m, g: EmbeddingGrader.load(g / "nope"), "no folder"),
        (lambda m, g: grade_elements_embedding(["d"], ["c"], ["e", "f"], ["x"], g), "differ in length"),
    ],
)
def test_bad_inputs_raise_clear_errors(trained: tuple[RewardModel, Path], tmp_path: Path, call, message: str) -> None:
    """Empty lists, mismatched lengths, unknown options and missing folders are ValueErrors saying what is wrong."""
    model, _ = trained
    with pytest.raises(ValueError, match=message):
        call(model, tmp_path)


def test_train_rejects_bad_options(built: Path, tmp_path: Path) -> None:
    """Unknown targets and features, or nothing to train on, fail before any embedding."""
    with pytest.raises(ValueError, match="target must be"):
        train_reward_model(built, MODEL, target="laughs")
    with pytest.raises(ValueError, match="unknown feature"):
        train_reward_model(built, MODEL, features=["caption", "vibes"])
    with pytest.raises(ValueError, match="no primary rated captions"):
        train_reward_model(built, MODEL, splits=("nonexistent",))
    with pytest.raises(ValueError, match="cannot load config"):
        train_reward_model(tmp_path, MODEL)


def test_description_features(built: Path) -> None:
    """With description features the cartoon description changes the scores; without one they still work."""
    model = train_reward_model(
        built, MODEL, features=["caption", "description_cosine", "description_product"], ngrams=None,
        max_per_contest=20, top_per_contest=5, evaluate=False, progress=False,
    )
    assert model.uses_descriptions and model.tensor_names() == ["coef", "intercept"]
    plain = model.score(CAPTIONS)
    described = model.score(CAPTIONS, "A patient's IV line runs into a snack vending machine.")
    assert plain.shape == described.shape and not np.array_equal(plain, described)
    assert np.array_equal(plain, model.score(CAPTIONS, [None, None, None]))


def test_local_folder_read_without_datasets_gives_the_frames_datasets_gives(sample_dataset: str) -> None:
    """A built folder is read by pyarrow alone (no `datasets` import): the same frames, dtypes and order as
    `datasets.load_dataset` gives for every config and column the reward model reads."""
    from datasets import load_dataset

    from nycc_bench.contests import SPLITS
    from nycc_bench.reward import data as reward_data

    wanted = {"caption_ratings": ["contest_number", "is_primary", "rank", "caption", "mean", "precision", "votes"],
              "caption_generation": ["contest_number", "description", "image_description", "human_top10",
                                     "human_1000"],
              "preference_pairs": ["contest_number", "description", "chosen", "rejected"],
              **{config: [column] for config, columns in reward_data.PROSE_COLUMNS.items() for column in columns}}
    for config, columns in wanted.items():
        parts = load_dataset(sample_dataset, config)
        expected = pd.concat([parts[s].select_columns(columns).to_pandas().assign(split=s)
                              for s in SPLITS if s in parts], ignore_index=True)
        got = reward_data._load(sample_dataset, config, columns, required=True)
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert reward_data._load(sample_dataset, "no_such_config", ["a"], required=False).empty
    with pytest.raises(ValueError, match="no_such_config"):
        reward_data._load(sample_dataset, "no_such_config", ["a"], required=True)


def test_reading_a_built_folder_imports_no_datasets(sample_dataset: str) -> None:
    """Training and evaluating on a built folder read it through pyarrow: `datasets` (seconds of imports) stays out."""
    import subprocess
    import sys

    code = ("import sys; from nycc_bench.reward.data import load_reward_data; data = load_reward_data(sys.argv[1]); "
            "print(len(data.ratings), len(data.prose), 'datasets' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, sample_dataset], capture_output=True, text=True, check=True)
    n_ratings, n_prose, imported = out.stdout.split()
    assert int(n_ratings) > 0 and int(n_prose) > 0
    assert imported == "False"


def test_the_same_scoring_call_again_is_answered_without_embedding(trained: tuple[RewardModel, Path],
                                                                   monkeypatch) -> None:
    """Overall and Best Pick score the same groups: the second call reuses the first's scores (a copy, equal to
    scoring again), so an evaluation embeds each group once; a bounded number of calls is remembered."""
    from nycc_bench.reward import model as reward_model

    model, folder = trained
    calls = []
    embed = model.embedder.embed
    monkeypatch.setattr(model.embedder, "embed", lambda texts, **kw: calls.append(len(texts)) or embed(texts, **kw))
    first = model.score(CAPTIONS, "A cat at a desk.")
    first[0] = -99.0  # callers may change what they get (flagged captions); the remembered scores stay
    again = model.score(CAPTIONS, "A cat at a desk.")
    assert len(calls) == 1 and again[0] != -99.0
    np.testing.assert_array_equal(again, RewardModel.load(folder).score(CAPTIONS, "A cat at a desk."))
    for i in range(reward_model.RECENT_CALLS):
        model.score([f"{c} {i}" for c in CAPTIONS])
    model.score(CAPTIONS, "A cat at a desk.")
    assert len(calls) == 2 + reward_model.RECENT_CALLS  # pushed out by newer calls: embedded again


def test_eval_max_contests_samples_each_check_and_says_so(built: Path, tmp_path: Path) -> None:
    """The sample's judges check themselves on 20 held-out contests each (embedding every held-out group was most
    of a fresh demo): the sample is seeded, each check keeps its own contests, and config and card record it."""
    data = load_reward_data(built)
    once, again = data.sampled(3, seed=0), data.sampled(3, seed=0)
    assert once.groups.contest_number.nunique() == 3 and once.groups.equals(again.groups)
    for frame, full in ((once.ratings, data.ratings), (once.groups, data.groups), (once.pairs, data.pairs)):
        contests = set(frame.contest_number)  # each check its own sample of its own contests
        assert contests <= set(full.contest_number) and len(contests) == min(3, full.contest_number.nunique())
    model = train_reward_model(built, MODEL, tmp_path / "m", max_per_contest=20, top_per_contest=5,
                               eval_max_contests=3, progress=False)
    training = model.config["training"]
    assert training["eval_max_contests"] == 3 and training["eval_pairs_per_contest"] == 50
    assert model.config["metrics"]["group_overall"]["n_contests"] == 3
    assert "at most 3 of its held-out contests (`eval_max_contests`)" in (tmp_path / "m" / "README.md").read_text()
    with pytest.raises(ValueError, match="max_contests must be at least 1"):
        data.sampled(0)
