"""Rule `one_vote_precision_inf`: upstream writes precision `inf` for a caption rated once (contests 509-517 of the
pinned nextml-api files); the build keeps it as published, as upstream's pandas readers do, and refuses it elsewhere.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from nycc_bench.builders import SourceError, build_dataset
from nycc_bench.builders.nextml import ONE_VOTE_PRECISION_RULE, read_summary
from nycc_bench.builders.pairs import draw_pairs_upstream
from nycc_bench.builders.sources import SummaryFile

SHARED_SUMMARIES = (Path(__file__).resolve().parents[1].parent / "shared" / "data"
                    / "nextml_caption_contest_data_api" / "contests" / "summaries")
API_HEADER = "rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption"
API = f"""{API_HEADER}
1,5,3,2,10,2.3,0.2,512,Two pianos and no bench
2,2,3,5,10,1.7,0.2,512,He tunes by ear
3,0,0,1,1,1.0,inf,512,Rated once and never again
"""
NEXTML = ("rank,caption,mean,precision,votes,not_funny,somewhat_funny,funny\n"
          "0,First one,2.0,0.1,3,1,1,1\n1,Only one vote,3.0,inf,1,0,0,1\n")


def _write(root: Path, name: str, text: str) -> None:
    """One upstream-named summary below root/src/summaries."""
    path = root / "src" / "summaries" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _ratings(root: Path) -> list[dict]:
    """caption_ratings' train rows, in rank order."""
    return pq.read_table(next((root / "out" / "data" / "caption_ratings").glob("train-*.parquet"))).to_pylist()


@pytest.mark.parametrize(("name", "text", "caption"), [
    ("512_summary_LilUCB.csv", API, "Rated once and never again"),
    ("800.csv", NEXTML, "Only one vote"),
])
def test_one_vote_inf_precision_is_kept_as_published(tmp_path: Path, name: str, text: str, caption: str) -> None:
    """A one-vote row's `inf` builds (it failed before) and stays +inf beside its caption, every row kept."""
    _write(tmp_path, name, text)
    build_dataset(tmp_path / "src", tmp_path / "out", ["caption_ratings"], progress=False)
    rows = _ratings(tmp_path)
    assert len(rows) == text.count("\n") - 1
    one = next(r for r in rows if r["caption"] == caption)
    assert one["votes"] == 1 and one["precision"] == math.inf
    assert all(math.isfinite(r["precision"]) for r in rows if r is not one)
    assert ONE_VOTE_PRECISION_RULE == "one_vote_precision_inf"


@pytest.mark.parametrize(("data", "fragments"), [
    (API.replace("3,0,0,1,1,1.0,inf,", "3,0,1,1,2,1.5,inf,"),
     ["row 3", "precision inf", "only on a caption with one vote"]),
    (API.replace("1.0,inf,", "1.0,-inf,"), ["row 3", "precision -inf"]),
    (API.replace("1.0,inf,", "1.0,nan,"), ["row 3", "precision nan"]),
    (API.replace("1,5,3,2,10,2.3,0.2,", "1,5,3,2,10,2.3,inf,"), ["row 1", "precision inf"]),
])
def test_inf_precision_elsewhere_is_refused(tmp_path: Path, data: str, fragments: list[str]) -> None:
    """`inf` on a row with more than one vote, `-inf` and NaN are still one-line errors naming the row."""
    _write(tmp_path, "512_summary_LilUCB.csv", data)
    with pytest.raises(SourceError) as info:
        build_dataset(tmp_path / "src", tmp_path / "out", progress=False)
    message = str(info.value)
    assert all(f in message for f in ["512_summary_LilUCB.csv", *fragments]), message
    assert "Fix:" in message and "\n" not in message


def test_one_vote_caption_never_passes_the_pairs_test() -> None:
    """As in upstream's preprocess_dpo: mean_c - mean_r > 3 * sqrt(inf) is false, so an inf row is never paired."""
    mean = np.array([3.0, 2.9, 1.0, 1.0])
    precision = np.array([0.01, math.inf, 0.01, math.inf])
    chosen, rejected = draw_pairs_upstream(mean, precision)
    assert len(chosen) > 0
    assert not ({1, 3} & set(chosen.tolist()) or {1, 3} & set(rejected.tolist()))


@pytest.mark.skipif(not SHARED_SUMMARIES.is_dir(), reason="../shared/data is not beside this checkout")
def test_real_summary_with_a_one_vote_row(tmp_path: Path) -> None:
    """A real shared summary whose last row is made the kind of row 509-517 hold (one vote, `inf`): read whole."""
    source = SHARED_SUMMARIES / "510_summary_LilUCB.csv"
    rows = list(csv.reader(io.StringIO(source.read_text(encoding="utf-8"), newline="")))
    header, last = rows[0], rows[-1]
    for column, value in zip(["funny", "somewhat_funny", "unfunny", "count", "score", "precision"],
                             ["0", "0", "1", "1", "1.0", "inf"], strict=True):
        last[header.index(column)] = value
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows(rows)
    path = tmp_path / source.name
    path.write_text(out.getvalue(), encoding="utf-8")
    table = read_summary(SummaryFile(path, 510, 1, "LilUCB", "caption-contest-data-api"))
    precision = table["precision"].to_numpy()
    assert table.num_rows == len(rows) - 1
    assert precision[-1] == math.inf and np.isfinite(precision[:-1]).all()
    assert table["caption"][-1].as_py() == last[header.index("caption")]
