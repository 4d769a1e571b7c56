"""Hessel's leaderboard: the label-free configs from upstream's zip layout, writing and checking submissions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from leaderboard_fixture import write_leaderboard

from nycc_bench.builders import SourceError, build_dataset
from nycc_bench.cli import main
from nycc_bench.submission import check, from_responses, read_responses

HESSEL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "hessel_caption_contest_corpus"
shared = pytest.mark.skipif(not HESSEL.is_dir(), reason="../shared/data is not beside this checkout")


@pytest.fixture
def board(tmp_path: Path) -> tuple[Path, dict[str, list[str]]]:
    """Both leaderboard sets unzipped below a folder and built; their instance ids per task."""
    ids = {task: write_leaderboard(tmp_path / "src", task, n) for task, n in (("matching", 4), ("ranking", 3))}
    build_dataset(tmp_path / "src", tmp_path / "ds", ["matching_leaderboard", "ranking_leaderboard"], progress=False)
    return tmp_path / "ds", ids


@shared
@pytest.mark.parametrize("entry", sorted((HESSEL / "clip" / "leaderboard_entries").glob("*.json")),
                         ids=lambda p: p.stem)
def test_upstream_clip_entries_pass_check(entry: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The four CLIP submissions upstream made pass, with upstream's instance counts."""
    task = entry.name.split("_")[0]
    assert main(["submission", "check", str(entry), "--task", task]) == 0
    assert f"ok, {830 if task == 'matching' else 664} {task} predictions" in capsys.readouterr().out


@shared
def test_gpt4v_responses_give_830_letters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """GPT-4V's raw replies become a complete matching submission with Hessel's parser (README example: D)."""
    out = tmp_path / "gpt4v.json"
    path = HESSEL / "gpt4v_leaderboard" / "gpt4v_matching_leaderboard_responses.jsonl"
    assert main(["submission", "from-responses", str(path), "--out", str(out), "--parser", "gpt4v"]) == 0
    assert "830 letters read by the gpt4v reader; 0 replies without" in capsys.readouterr().out
    made = json.loads(out.read_text())
    litellm = tmp_path / "litellm.json"  # lite_llm_leaderboard's reader: 170 replies get its default E
    assert main(["submission", "from-responses", str(path), "--out", str(litellm)]) == 0
    assert "830 letters read by the litellm reader; 170 replies without" in capsys.readouterr().out
    other = json.loads(litellm.read_text())
    assert sum(other[k] != made[k] for k in made) == 119  # the difference README names
    assert len(made) == 830 and made["5dc4f6a5648682c5beabba053e7a112c"] == "D"
    assert main(["submission", "check", str(out), "--task", "matching"]) == 0
    zero_shot = json.loads((HESSEL / "clip" / "leaderboard_entries" / "matching_zeroshot_clip_vitl14_336.json")
                           .read_text())
    assert made.keys() == zero_shot.keys()  # the same hidden-label instances


def test_from_responses_falls_back_like_upstream(tmp_path: Path) -> None:
    """An unreadable reply gets the seeded random letter and is listed; a repeated id or bad line is refused."""
    made = from_responses([{"instance_id": "a", "response": "Answer: A or Answer: B"},
                           {"instance_id": "b", "response": "Answer: B"}], "ranking", "gpt4v")
    assert made.unparsed == ["a"] and made.submission["b"] == "B" and made.submission["a"] in "AB"
    assert made.submission == from_responses([{"instance_id": "a", "response": None},
                                              {"instance_id": "b", "response": "Answer: B"}], "ranking",
                                             "gpt4v").submission
    lite = from_responses([{"instance_id": "a", "response": "Hmm.\n\nAnswer: A, maybe"},
                           {"instance_id": "b", "response": "Final Answer: A. Answer: B"}], "ranking")
    assert lite.unparsed == ["a"] and lite.submission == {"a": "B", "b": "A"}  # its default letter, then its rule
    with pytest.raises(ValueError, match="unknown answer reader 'claude'"):
        from_responses([], "ranking", "claude")
    with pytest.raises(ValueError, match="repeats instance a"):
        from_responses([{"instance_id": "a", "response": ""}] * 2)
    bad = tmp_path / "r.jsonl"
    bad.write_text('{"instance_id": "a", "response": "x"}\nnot json\n')
    with pytest.raises(ValueError, match=r"line 2 of .* is not JSON"):
        read_responses(bad)


def test_doctests() -> None:
    """The examples in the module's docstrings hold."""
    import doctest

    import nycc_bench.submission

    result = doctest.testmod(nycc_bench.submission)
    assert result.attempted >= 3 and result.failed == 0


def test_leaderboard_configs_have_no_labels(board: tuple[Path, dict[str, list[str]]]) -> None:
    """Images and captions in upstream's order, the instance ids; no label column."""
    import datasets

    ds, ids = board
    rows = datasets.load_dataset(str(ds), "matching_leaderboard")["test"]
    assert rows.column_names == ["image", "caption_choices", "instance_id"]
    assert list(rows["instance_id"]) == ids["matching"]
    assert rows[0]["caption_choices"] == [f"matching caption 0{x}" for x in "ABCDE"]


def test_check_against_the_built_ids(board: tuple[Path, dict[str, list[str]]], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A complete submission passes; a missing id, an unknown id and a bad letter are one line each."""
    ds, ids = board
    good = tmp_path / "good.json"
    good.write_text(json.dumps(dict.fromkeys(ids["ranking"], "B")))
    assert main(["submission", "check", str(good), "--task", "ranking", "--dataset", str(ds)]) == 0
    assert "checked against the 3 ids" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({ids["ranking"][0]: "C", ids["ranking"][1]: "A", "stray": "A"}))
    assert main(["submission", "check", str(bad), "--task", "ranking", "--dataset", str(ds)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert "'C' is not one of A, B" in lines[0] and "1 of 3 instances lack a prediction" in lines[1]
    assert "1 ids are not in ranking_leaderboard (stray)" in lines[2]
    assert check([1, 2], "matching") == ["submission: a JSON object {instance_id: letter} is expected, not a list"]
    (tmp_path / "broken.json").write_text("{")
    assert main(["submission", "check", str(tmp_path / "broken.json")]) == 2
    assert "is not JSON" in capsys.readouterr().err


def test_evaluate_on_the_leaderboard_writes_submissions(board: tuple[Path, dict[str, list[str]]], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`--split leaderboard`: predictions become submissions/<task>.json; the record says they are not scored."""
    ds, ids = board
    out = tmp_path / "run"
    assert main(["evaluate", "--system", "random", "--tasks", "matching_from_pixels,ranking_from_pixels",
                 "--split", "leaderboard", "--dataset", str(ds), "--out", str(out), "--quiet"]) == 0
    record = json.loads((out / "results.json").read_text())
    for task, key in (("matching_from_pixels", "matching"), ("ranking_from_pixels", "ranking")):
        made = json.loads((out / "submissions" / f"{task}.json").read_text())
        assert list(made) == ids[key]
        assert record["skipped"][task].startswith("labels hidden, not scored")
        assert main(["submission", "check", str(out / "submissions" / f"{task}.json"), "--task", key,
                     "--dataset", str(ds)]) == 0
    assert main(["evaluate", "--system", "random", "--tasks", "matching", "--split", "leaderboard",
                 "--dataset", str(ds), "--out", str(tmp_path / "r2"), "--quiet"]) == 2
    assert "run matching_from_pixels instead of matching" in capsys.readouterr().err


def test_leaderboard_image_must_be_beside_instances(tmp_path: Path) -> None:
    """An instance whose JPEG is not in the unzipped folder names the file, row and fix."""
    write_leaderboard(tmp_path, "ranking", 2)
    folder = tmp_path / "ranking_test_set_public"
    (folder / json.loads((folder / "instances.json").read_text())[0]["image"]).unlink()
    with pytest.raises(SourceError, match=r"instances\.json.*row 1.*is not beside instances\.json.*unzip"):
        build_dataset(tmp_path, tmp_path / "out", ["ranking_leaderboard"], progress=False)


def test_a_duplicate_instance_id_is_refused_naming_it(board: tuple[Path, dict[str, list[str]]], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """JSON keeps the last of two answers silently; the checker refuses the file and names the repeated id."""
    dataset, ids = board
    first, *rest = ids["matching"]
    text = "{" + ", ".join([f'"{first}": "A"', *(f'"{i}": "B"' for i in rest), f'"{first}": "C"']) + "}"
    path = tmp_path / "twice.json"
    path.write_text(text)
    assert main(["submission", "check", str(path), "--task", "matching", "--dataset", str(dataset)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith(f"submission: {path} answers instance {first!r} twice; keep one answer per instance")
