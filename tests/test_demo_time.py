"""What cut the fresh demo's time, each checked by what it does (never timed): a one-shot command settles its heap,
one encoder per model and device, the sample judges' encodings shared with the sbert baseline through the disk
cache, and the demo's dataset-only stages in a second process."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from nycc_bench import heap

PROBE = ("import gc, sys; from nycc_bench import cli; sys.argv = ['nycc-bench', *sys.argv[1:]]\n"
         "try:\n    code = cli.main()\nexcept SystemExit as stop:\n    code = stop.code\n"
         "print(gc.get_freeze_count() > 0, code)")


def _frozen_after(*args: str) -> tuple[bool, str]:
    """Run the console script's entry (`main()` with sys.argv) in a child; whether it froze its heap, its code."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True)
    frozen, code = done.stdout.strip().splitlines()[-1].split()
    return frozen == "True", code


def test_the_console_script_settles_its_heap_and_a_server_or_caller_does_not() -> None:
    assert _frozen_after("tasks", "list") == (True, "0")  # one command, then exit
    assert _frozen_after("leaderboard", "--help") == (False, "0")  # a server keeps its collector
    done = subprocess.run([sys.executable, "-c", "import gc; from nycc_bench.cli import main; "
                           "code = main(['tasks', 'list']); print(gc.get_freeze_count(), code)"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "0 0"  # a caller passing argv (a script, a test) too


def test_settling_is_nothing_outside_a_one_shot_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_one_shot", False)
    calls: list[str] = []
    monkeypatch.setattr(heap.gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(heap.gc, "collect", lambda: calls.append("collect"))
    heap.settle()
    heap.before_exit()
    assert calls == [] and not heap.is_one_shot()


def test_loading_an_encoder_settles_a_one_shot_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    """After torch, transformers and the model are in: free today's garbage, then freeze what lives until exit."""
    from nycc_bench.sample_judges import MINILM
    from nycc_bench.scoring import sbert

    calls: list[str] = []
    monkeypatch.setattr(heap, "_one_shot", True)
    monkeypatch.setattr(heap.gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(heap.gc, "collect", lambda: calls.append("collect"))
    sbert._load.__wrapped__(str(sbert.resolve_model_path(MINILM)), "cpu")
    assert calls == ["collect", "freeze"]
    assert gc.isenabled()


def test_one_encoder_for_no_device_and_the_default_device() -> None:
    """`device=None` is the device sentence-transformers would pick: one loaded model, not two."""
    from nycc_bench.sample_judges import MINILM
    from nycc_bench.scoring.sbert import _default_device, load_encoder

    assert load_encoder(MINILM) is load_encoder(MINILM, _default_device())


def test_a_sharing_embedder_writes_the_disk_cache_and_never_reads_it(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The sample judges' rows stay a function of their texts (always encoded fresh); what they encode is kept for
    the sbert baseline and diversity, which read the same model's rows."""
    import numpy as np

    from nycc_bench.reward import Embedder
    from nycc_bench.sample_judges import MINILM
    from nycc_bench.scoring.sbert import cached, embed

    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    texts = ["The fish asked for a window seat.", "He brought a ladder to the meeting."]
    first = Embedder(MINILM, share=True).embed(texts)
    assert cached(texts, MINILM)  # written for the other readers
    again = Embedder(MINILM, share=True)
    again.embed([*texts, "A third caption."])
    assert again.n_stored_hits == 0  # never read back by a sharing embedder
    np.testing.assert_array_equal(embed(texts, MINILM), first)  # the reader gets the sharer's rows


def test_the_sample_judges_share_what_they_encode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  sample_dataset: str) -> None:
    from nycc_bench import sample_judges
    from nycc_bench.sample_judges import FOLDERS

    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    seen: dict = {}

    def trained(built: Path, out: Path, rubric: Path, embedder: object = None, **evaluation: int) -> None:
        seen.update(embedder=embedder, built=built, evaluation=evaluation)
        for name in FOLDERS.values():
            (out / name).mkdir(parents=True)
            (out / name / "config.json").write_text("{}")

    monkeypatch.setattr(sample_judges, "train_judge_folders", trained)
    sample_judges.sample_judges_dir(Path(sample_dataset))
    embedder = seen["embedder"]
    assert embedder.share and not embedder.store and seen["built"] == Path(sample_dataset)
    assert seen["evaluation"] == sample_judges.SAMPLE_EVAL


def test_the_demo_stages_beside_the_judges(tmp_path: Path, sample_dataset: str) -> None:
    """The seed, the simulated votes and the staged upload in a second process (spawned), their lines kept apart
    for the demo to print at their stages; later work queued behind them; an error raised whole in the demo."""
    from nycc_bench.arena import VoteStore
    from nycc_bench.demo import _Beside

    with _Beside(tmp_path, Path(sample_dataset)) as beside:
        later = beside.submit(json.dumps, {"queued": True})
        done = beside.result()
        assert later.result() == '{"queued": true}'
    assert "counted votes" not in done["votes"]  # the ratings are the demo's own stage, with the judge
    assert "dry run: 11 repos staged" in done["staged"] and Path(done["staged_dir"]).is_dir()
    store = VoteStore(Path(done["leaderboard"]) / "arena")
    assert store.count(simulated=True) == 600
    with _Beside(tmp_path / "bad", tmp_path / "no-dataset") as beside, pytest.raises(Exception) as err:
        beside.result()
    assert "no-dataset" in str(err.value)


def test_the_arena_pool_reads_its_split_without_datasets(sample_dataset: str) -> None:
    """The pool's split through pyarrow (`read_rows`): `datasets` is not imported and no Arrow cache is written for
    it; which cartoons have an image is read from the stored structs, as `datasets` gives them undecoded."""
    import datasets

    from nycc_bench.arena.seed import _with_image
    from nycc_bench.kinds.instances import load_split
    from nycc_bench.splits import read_rows

    for split in ("validation", "test"):
        rows = load_split(sample_dataset, "caption_generation", split).select_columns(["contest_number", "image"])
        stored = rows.cast_column("image", datasets.Image(decode=False))
        expected = {int(r["contest_number"]) for r in stored
                    if r["image"] and (r["image"].get("bytes") or r["image"].get("path"))}
        assert _with_image(read_rows(sample_dataset, "caption_generation", split).table) == expected
    code = ("import sys; from nycc_bench.arena.seed import dataset_pool; "
            f"pool = dataset_pool({sample_dataset!r}, [], lambda p: p); "
            "print('datasets' in sys.modules, len(pool.cartoons))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported, cartoons = done.stdout.split()
    assert imported == "False" and int(cartoons) > 0
