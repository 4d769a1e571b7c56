"""No repeated work: what a run has worked out once is not worked out again. Each test counts the calls of the
costly step (words of a reference text, encoder passes), never times them."""

from __future__ import annotations

from pathlib import Path

import pytest

from nycc_bench import textcheck


def test_text_checks_read_each_reference_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prompt files are references of every text checked: their words and trigrams are read once per process,
    not once per text (a judged run checks thousands of captions against about seventy prompt files)."""
    calls: list[str] = []
    words = textcheck.words

    def counted(text: str) -> list[str]:
        calls.append(text)
        return words(text)

    monkeypatch.setattr(textcheck, "words", counted)
    textcheck._reference.cache_clear()
    references = textcheck.prompt_references()
    texts = [f"The cat {i} says the dog is out of office hours again today" for i in range(40)]
    flags = textcheck.check_texts(texts, "caption")
    assert flags == [None] * len(texts)
    per_reference = {r: calls.count(r) for r in references}
    assert max(per_reference.values()) == 1, "a prompt file's words were read again for another text"
    assert len(calls) <= len(texts) + len(set(references))
    copied = " ".join(words(references[0])[:40])  # a reply that copies a prompt file is still caught
    assert textcheck.check_text(copied, "explanation") is not None


def test_the_sbert_baseline_encodes_each_text_once(sample_dataset: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The sbert baseline encodes a call's texts in one pass (not one per instance) and reads texts embedded
    before (another fold, another run) from the embedding cache: the encoder is not called for them again."""
    from nycc_bench.kinds.instances import build_instances
    from nycc_bench.scoring import sbert
    from nycc_bench.systems import make_system
    from nycc_bench.tasks import get_task

    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    encoded: list[int] = []
    encoder = sbert.load_encoder("all-MiniLM-L6-v2", "cpu")
    real = encoder.encode

    def counted(texts, *args, **kwargs):  # type: ignore[no-untyped-def]
        encoded.append(len(texts))
        return real(texts, *args, **kwargs)

    monkeypatch.setattr(encoder, "encode", counted)
    task = get_task("ranking")
    instances = build_instances(task, sample_dataset, fold=0)
    first = make_system("sbert:all-MiniLM-L6-v2", sample_dataset).choose(task, instances)
    assert len(encoded) == 2, encoded  # the descriptions in one pass, every choice in another
    again = make_system("sbert:all-MiniLM-L6-v2", sample_dataset).choose(task, instances)
    assert len(encoded) == 2, encoded  # all read back from the embedding cache
    assert [o.letter for o in again] == [o.letter for o in first]
    for a, b in zip(first, again, strict=True):
        assert a.raw["similarities"] == pytest.approx(b.raw["similarities"], abs=1e-6)


def test_tasks_check_builds_the_sample_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`tasks check` reads the sample built once into the cache; a second check builds nothing."""
    from nycc_bench import builders
    from nycc_bench.cli import main

    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    builds: list[str] = []
    real = builders.build_dataset

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        builds.append(str(args[1]))
        return real(*args, **kwargs)

    monkeypatch.setattr(builders, "build_dataset", counted)
    assert main(["tasks", "check", "matching"]) == 0
    assert main(["tasks", "check", "ranking"]) == 0
    assert len(builds) == 1, builds
    (built,) = (tmp_path / "cache" / "datasets").glob("sample-*.built")
    assert (built.parent / built.name.removesuffix(".built") / "README.md").is_file()


def test_the_demo_closing_note_gives_its_time_and_each_stage() -> None:
    """`nycc-bench demo` ends with its time (wall and CPU) and each stage's, from the clocks at each stage's start."""
    from nycc_bench.demo import stage_times

    stages = [("1/7 build the dataset", 100.0, 10.0), ("2/7 the offline judges", 105.0, 14.0),
              ("6/7 an arena round", 140.0, 40.0)]
    assert stage_times(stages, (150.4, 52.0)) == ("Done in 50 s (42 CPU s of this process); stages: build 5 s, "
                                                  "offline 35 s, arena 10 s")
    assert stage_times([], (1.0, 1.0)) == ""
