"""Every kind of bad upstream input stops the build with an error naming the file, the row and the fix."""

from __future__ import annotations

import re
from pathlib import Path

import datasets
import pytest

from nycc_bench.builders import SourceError, build_dataset
from nycc_bench.builders.hessel2023 import features as hessel_features
from nycc_bench.cli import main

API_HEADER = "rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption"
GOOD_API = f"""{API_HEADER}
1,5,3,2,10,2.3,0.2,510,"Quoted, with a comma"
2,2,3,5,10,1.7,0.2,510,Plain caption
"""
NEXTML_HEADER = "caption,mean,precision,votes,not_funny,somewhat_funny,funny"
ANNOTATIONS = "idx,cartoonstock_id,contest_number,description,caption,element\n"


def _write(root: Path, rel: str, text: str) -> Path:
    """Write one upstream-named file below the source root."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _fails(tmp_path: Path, *fragments: str) -> SourceError:
    """Build the tree under tmp_path/src and check the error names every fragment and a fix."""
    with pytest.raises(SourceError) as info:
        build_dataset(tmp_path / "src", tmp_path / "out", progress=False)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert "Fix:" in message
    return info.value


def test_good_minimal_tree_builds(tmp_path: Path) -> None:
    """The minimal files used below build as they are (so each failure comes from its one change)."""
    _write(tmp_path / "src", "summaries/510_summary_LilUCB.csv", GOOD_API)
    report = build_dataset(tmp_path / "src", tmp_path / "out", progress=False)
    assert report.rows["caption_ratings"] == {"train": 2, "validation": 0, "test": 0}


@pytest.mark.parametrize(("text", "fragments"), [
    (GOOD_API.replace(API_HEADER, API_HEADER.replace("precision,", "")),
     ["510_summary_LilUCB.csv", "row 0", "missing column precision"]),
    (GOOD_API.replace(API_HEADER, API_HEADER + ",extra"), ["row 0", "unknown column extra"]),
    (GOOD_API.replace("2.3,", "two,"), ["row 1", "column score holds 'two'"]),
    (GOOD_API.replace("2,2,3,5,10,", "2,2,3,5,11,"), ["row 2", "vote count"]),
    (GOOD_API.replace("0.2,510,Plain", "0.2,511,Plain"), ["row 2", "contest says 511"]),
    (GOOD_API.replace("2.3,", "4.5,"), ["row 1", "outside 1..3"]),
    (GOOD_API.replace(API_HEADER, "target_id," + API_HEADER).replace("\n1,", "\n7,1,").replace("\n2,2", "\n7,2,2"),
     ["row 2", "target_id 7 appears twice"]),
    (API_HEADER + "\n", ["no caption rows"]),
])
def test_bad_summary(tmp_path: Path, text: str, fragments: list[str]) -> None:
    """Header, type, consistency and key errors in a nextml summary."""
    _write(tmp_path / "src", "summaries/510_summary_LilUCB.csv", text)
    _fails(tmp_path, *fragments)


def test_nextml_variant_votes_may_exceed_counts(tmp_path: Path) -> None:
    """The newer repo's votes can exceed the three counts (its mean divides by votes); fewer is an error."""
    _write(tmp_path / "src", "summaries/800.csv", f"{NEXTML_HEADER}\nA caption,2.0,0.1,14,1,1,1\n")
    assert build_dataset(tmp_path / "src", tmp_path / "out", progress=False).rows["caption_ratings"]["train"] == 1
    _write(tmp_path / "src", "summaries/800.csv", f"{NEXTML_HEADER}\nA caption,2.0,0.1,2,1,1,1\n")
    _fails(tmp_path, "800.csv", "row 1", "vote count is below")


def test_bad_nextml_variant_type(tmp_path: Path) -> None:
    """The newer header variant is checked the same way (votes must be whole numbers)."""
    _write(tmp_path / "src", "summaries/800.csv", f"{NEXTML_HEADER}\nA caption,2.0,0.1,3.5,1,1,1\n")
    _fails(tmp_path, "800.csv", "row 1", "column votes holds '3.5', not a whole number")


def test_same_run_twice(tmp_path: Path) -> None:
    """The same summary found twice below --source is refused, naming both copies."""
    _write(tmp_path / "src", "a/summaries/510_summary_LilUCB.csv", GOOD_API)
    _write(tmp_path / "src", "b/summaries/510_summary_LilUCB.csv", GOOD_API)
    _fails(tmp_path, "already read from", "a/summaries/510_summary_LilUCB.csv")


def test_duplicate_description(tmp_path: Path) -> None:
    """A contest described twice in descriptions.txt."""
    _write(tmp_path / "src", "summaries/510_summary_LilUCB.csv", GOOD_API)
    _write(tmp_path / "src", "metadata/descriptions.txt", "contest,description\n510,One.\n510,Two.\n")
    _fails(tmp_path, "descriptions.txt", "row 2", "described twice")


def test_human_groups_wrong_row_count(tmp_path: Path) -> None:
    """Zhang's group files must have one row per held-out contest."""
    body = "0,1,2,3,4,5,6,7,8,9\n" + "a,b,c,d,e,f,g,h,i,j\n" * 90
    for name in ("human_top.csv", "human_200.csv", "human_1000.csv", "human_median.csv"):
        _write(tmp_path / "src", f"generations/{name}", body)
    _fails(tmp_path, "90 rows instead of 91")


def test_human_groups_incomplete_set(tmp_path: Path) -> None:
    """Three of the four group files is an error, not a silently smaller config."""
    _write(tmp_path / "src", "generations/human_top.csv", "0,1,2,3,4,5,6,7,8,9\n")
    _fails(tmp_path, "missing human_200.csv")


@pytest.mark.parametrize(("rows", "fragments"), [
    ('1,,2.0,A desc,A caption,An element\n1,,2.0,A desc,A caption,An element\n',
     ["comprehensive_annotations.csv", "row 2", "repeats row 1"]),
    ("x,,2.0,A desc,A caption,An element\n", ["row 1", "column idx holds 'x'"]),
    ("1,,,A desc,A caption,An element\n", ["row 1", "neither contest_number nor cartoonstock_id"]),
    ("1,,2.0,A desc,,An element\n", ["row 1", "caption is empty"]),
])
def test_bad_humorbench_annotations(tmp_path: Path, rows: str, fragments: list[str]) -> None:
    """Key, type and missing-value errors in HumorBench annotations."""
    _write(tmp_path / "src", "comprehensive_annotations.csv", ANNOTATIONS + rows)
    _fails(tmp_path, *fragments)


def test_humorbench_category_out_of_order(tmp_path: Path) -> None:
    """Category files are joined by row, so their idx must follow the annotations."""
    _write(tmp_path / "src", "comprehensive_annotations.csv",
           ANNOTATIONS + "1,,2.0,D,C1,E1\n2,,2.0,D,C2,E2\n")
    _write(tmp_path / "src", "categorized_output_wordplay.csv",
           "idx,wordplay,prompt_tokens,completion_tokens\n2,True,1,1\n1,False,1,1\n")
    _fails(tmp_path, "categorized_output_wordplay.csv", "row 1", "idx 2 where the annotations have 1")


def _hessel(tmp_path: Path, rows: list[dict], drop: str | None = None) -> None:
    """Write one upstream-named matching shard."""
    feats = datasets.Features.from_dict(hessel_features("matching", from_pixels=False))
    if drop:
        feats = datasets.Features({k: v for k, v in feats.items() if k != drop})
        rows = [{k: v for k, v in r.items() if k != drop} for r in rows]
    path = tmp_path / "src" / "matching" / "newyorker_caption_contest-test.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_list(rows, features=feats).to_parquet(str(path))


def _hessel_row(label: str = "A", instance_id: str = "a" * 32) -> dict:
    """A complete matching instance with a 1x1 image."""
    png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                        "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f9"
                        "e0f50000000049454e44ae426082")
    return {"image": {"bytes": png, "path": None}, "contest_number": 1, "image_location": "a room",
            "image_description": "d", "image_uncanny_description": "u", "entities": [], "questions": [],
            "caption_choices": list("abcde"), "from_description": "scene: a room", "label": label,
            "n_tokens_label": 1, "instance_id": instance_id}


@pytest.mark.parametrize(("rows", "drop", "fragments"), [
    ([_hessel_row("F")], None, ["row 1", "label 'F' is not one of A, B, C, D, E"]),
    ([_hessel_row(), _hessel_row("B")], None, ["row 2", "repeats row 1"]),
    ([_hessel_row()], "questions", ["missing column questions"]),
])
def test_bad_hessel(tmp_path: Path, rows: list[dict], drop: str | None, fragments: list[str]) -> None:
    """Label set, unique instance ids and the upstream columns of a Hessel config."""
    _hessel(tmp_path, rows, drop)
    _fails(tmp_path, "newyorker_caption_contest-test.parquet", *fragments)


def test_empty_and_missing_source(tmp_path: Path) -> None:
    """No upstream file at all, or no folder at all, says so."""
    (tmp_path / "src").mkdir()
    _fails(tmp_path, "no upstream file")
    with pytest.raises(SourceError, match="does not exist"):
        build_dataset(tmp_path / "nowhere", tmp_path / "out", progress=False)


def test_cli_reports_errors_and_near_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI turns bad input into one line on stderr and exit status 2; a typo gets a suggestion."""
    _write(tmp_path / "src", "summaries/510_summary_LilUCB.csv", GOOD_API.replace("2.3,", "two,"))
    assert main(["build", "--source", str(tmp_path / "src"), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert re.search(r"error: .*510_summary_LilUCB.csv, row 1: column score", capsys.readouterr().err)
    assert main(["build", "--out", str(tmp_path / "o"), "--configs", "matchng"]) == 2
    assert "Did you mean 'matching'?" in capsys.readouterr().err
