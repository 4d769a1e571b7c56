"""Issue 41's smaller differences from Zhang et al.'s code, each where it is testable: the judge's description is
read as upstream read it (`ranking`'s first row), empty captions are a computed deviation, the shots' inferred
order and the missing-output rule are said for what they are. Fixtures are original, in upstream's layout."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nycc_bench.builders.sources import discover
from nycc_bench.builders.zhang2024 import read_hessel_annotations, read_judge_descriptions, with_judge_descriptions
from nycc_bench.judge.protocols import best_pick
from nycc_bench.judge.protocols.zhang_shots import draw
from nycc_bench.kinds import zhang2024
from nycc_bench.kinds.registry import Instance
from nycc_bench.tasks.registry import get_task


def _shard(folder: Path, config: str, name: str, rows: list[tuple[int, str]]) -> None:
    """A Hessel parquet shard with the annotation columns, one row per (contest, description)."""
    (folder / config).mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({
        "image": pa.array([None] * len(rows), pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
        "contest_number": pa.array([c for c, _ in rows], pa.int32()),
        "image_location": [f"a room ({d})" for _, d in rows],
        "image_description": [f"scene {d}" for _, d in rows],
        "image_uncanny_description": [f"odd {d}" for _, d in rows],
        "entities": [[f"https://en.wikipedia.org/wiki/{d}"] for _, d in rows],
    }), folder / config / f"newyorker_caption_contest-{name}.parquet")


def test_the_judge_reads_the_description_of_rankings_first_row(tmp_path: Path) -> None:
    """Upstream's judge took each contest's first row of `ranking`'s train shard 0, then validation, then test
    (rank_more.py L14-17, L82-83); the generation prompt's other annotations stay `matching`'s."""
    _shard(tmp_path, "ranking", "train-00000-of-00002", [(536, "r0")])
    _shard(tmp_path, "ranking", "train-00001-of-00002", [(537, "r1"), (536, "r1b")])  # not read by upstream
    _shard(tmp_path, "ranking", "validation", [(537, "rv")])
    _shard(tmp_path, "ranking", "test", [(539, "rt")])
    _shard(tmp_path, "matching", "train", [(536, "m6"), (537, "m7"), (538, "m8")])
    sources = discover(tmp_path)
    judge = read_judge_descriptions(sources)
    assert {c: d["image_description"] for c, d in judge.items()} == {536: "scene r0", 537: "scene rv",
                                                                      539: "scene rt"}
    merged = with_judge_descriptions(read_hessel_annotations(sources), judge)
    assert (merged[536]["image_description"], merged[536]["image_uncanny_description"],
            merged[536]["image_location"]) == ("scene r0", "odd r0", "a room (m6)")
    assert merged[538]["image_description"] == "scene m8"  # not in ranking: matching's
    assert merged[539] == {"image_description": "scene rt", "image_uncanny_description": "odd rt"}


def _instance(contest: int) -> Instance:
    groups = {g: [f"{g} {contest} {j}" for j in range(10)] for g in ("human_top10", "human_200", "human_1000",
                                                                        "human_median")}
    return Instance(str(contest), "write", reference={"contest_number": contest, **groups})


def test_empty_captions_are_a_computed_deviation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Upstream's CSV round trip read an empty caption as NaN and scored and judged it as "nan"; here it stays
    empty text, and the record says so, with the count."""
    monkeypatch.setattr(zhang2024, "sbert_available", lambda options, groups=(): ({}, []))
    task = get_task("caption_generation")
    full = [f"Caption {j}" for j in range(10)]
    scores = zhang2024.score_caption_groups(task, [_instance(536), _instance(537)],
                                            [[*full[:9], ""], ["", "", *full[2:]]], [0, 0], None, {})
    assert scores["deviations"] == [
        "3 empty captions (in 2 contests) were scored and judged as empty text; upstream saved its generations to "
        "CSV and read them back, so an empty caption became NaN and was scored and shown to the judge as \"nan\" "
        "(Table 6's SFT row: SBERT 0.58047 as empty text, 0.58060 as \"nan\")."]
    clean = zhang2024.score_caption_groups(task, [_instance(536)], [full], [0], None, {})
    assert "deviations" not in clean


def test_what_upstream_did_not_publish_or_do_is_said_so() -> None:
    record = draw([536], 600, "a pool").describe()
    assert "The ascending order is inferred: upstream's contest_num_for_eval is an unpublished pickle" in \
        record["draw"]
    missing = get_task("caption_generation").paper_settings["missing"]
    assert "§4" not in missing.source and missing.source.startswith("this project's rule: the paper states none")
    assert "the paper counts" not in missing.deviation
    assert "the whole reply, unstripped, must be" in (best_pick.__doc__ or "")


def test_a_shot_pool_built_from_two_upstream_shards_is_a_deviation(tmp_path: Path) -> None:
    """The build records the upstream files each Hessel split was read from (the card); the judge's pool read from
    more than one shard (the Hub's ranking train has two; upstream read the first) is a computed deviation."""
    from nycc_bench.cli import main
    from nycc_bench.paths import SAMPLE_DIR

    source = tmp_path / "up" / "ranking"
    source.mkdir(parents=True)
    sample = SAMPLE_DIR / "newyorker_caption_contest" / "ranking"
    train = pq.read_table(sample / "newyorker_caption_contest-train.parquet")
    half = train.num_rows // 2
    pq.write_table(train.slice(0, half), source / "newyorker_caption_contest-train-00000-of-00002.parquet")
    pq.write_table(train.slice(half), source / "newyorker_caption_contest-train-00001-of-00002.parquet")
    for split in ("validation", "test"):
        (source / f"newyorker_caption_contest-{split}.parquet").write_bytes(
            (sample / f"newyorker_caption_contest-{split}.parquet").read_bytes())
    out = tmp_path / "nycc"
    assert main(["build", "--source", str(tmp_path / "up"), "--out", str(out), "--configs", "ranking",
                 "--quiet"]) == 0
    files = ["newyorker_caption_contest-train-00000-of-00002.parquet",
             "newyorker_caption_contest-train-00001-of-00002.parquet"]
    assert zhang2024.pool_files(str(out)) == files
    assert zhang2024.pool_files(str(tmp_path / "no-card")) is None
    _, record = zhang2024.zhang_judge_shots(str(out), [536])
    assert record["pool_files"] == files and files[1] in record["pool"]
    assert zhang2024.shot_pool_deviations(record) == []  # fewer than 600 rows: zero-shot, no shots to differ
    drawn = {**record, "n_shots": 5}
    assert zhang2024.shot_pool_deviations(drawn) == [
        f"The judge's examples were drawn from Hessel's ranking train split built from 2 upstream shards "
        f"({', '.join(files)}); upstream drew them from the first shard alone (rank_more.py L14), so the sampled "
        "rows differ from upstream's."]
    assert zhang2024.shot_pool_deviations({**drawn, "pool_files": files[:1]}) == []
