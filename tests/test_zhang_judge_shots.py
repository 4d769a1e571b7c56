"""Zhang's group judge gets the five examples upstream gave it: pandas' sample(n=600, random_state=42) over
Hessel's ranking train data, rows 6i..6i+4 for the i-th of the 91 held-out contests in ascending order, whichever
contests are scored (ranking/rank_more.py L113, L165-181, L200-237)."""

from __future__ import annotations

from pathlib import Path

import datasets
import pandas as pd
import pytest

from nycc_bench.builders import build_dataset
from nycc_bench.builders.hessel2023 import features
from nycc_bench.contests import ZHANG_HELD_OUT
from nycc_bench.judge.protocols.zhang_shots import blocks, draw, sampled_positions
from nycc_bench.kinds.zhang2024 import zhang_judge_shots

CONTESTS = [761, 896, 640, 536, 903, 555]  # any order; 761, 640 and 536 are held out, the rest come after the 91
UPSTREAM_I = {536: 0, 640: sorted(ZHANG_HELD_OUT).index(640), 761: 90, 555: 91, 896: 92, 903: 93}


def _ranking_rows(n: int) -> list[dict]:
    """Rows of Hessel's `ranking` config (upstream columns), distinct texts, descriptions with and without periods."""
    return [{"image": None, "contest_number": 500 + k % 97, "image_location": f"place {k}",
             "image_description": f"Scene {k}" + ("." if k % 3 else ""), "image_uncanny_description": f"odd {k}",
             "entities": [], "questions": [], "caption_choices": [f"left {k}", f"right {k}"],
             "from_description": f"scene {k}", "winner_source": "crowd_winner", "label": "AB"[k % 2],
             "n_tokens_label": 1, "instance_id": f"id{k:04d}"} for k in range(n)]


@pytest.fixture
def shard(tmp_path: Path) -> Path:
    """A source folder with one ranking train shard in the Hub's layout, built into a dataset."""
    source = tmp_path / "src" / "ranking" / "newyorker_caption_contest-train-00000-of-00002.parquet"
    source.parent.mkdir(parents=True)
    ranking = datasets.Features.from_dict(features("ranking", False))
    datasets.Dataset.from_list(_ranking_rows(650), features=ranking).to_parquet(str(source))
    return source


def test_draw_is_upstreams_pandas_sample(shard: Path, tmp_path: Path) -> None:
    """Each contest's examples equal what upstream's code reads from the same shard with pandas."""
    build_dataset(tmp_path / "src", tmp_path / "ds", ["ranking"], progress=False)
    shots, record = zhang_judge_shots(str(tmp_path / "ds"), CONTESTS)
    testing = pd.read_parquet(shard).sample(n=600, random_state=42, ignore_index=True)  # upstream's line 113
    assert blocks(CONTESTS) == UPSTREAM_I
    for contest, i in UPSTREAM_I.items():
        expected = [(testing["image_description"][i * 6 + k], testing["image_uncanny_description"][i * 6 + k],
                     testing["caption_choices"][i * 6 + k][0], testing["caption_choices"][i * 6 + k][1],
                     testing["label"][i * 6 + k]) for k in range(5)]
        assert [(s.description, s.uncanny_description, s.caption_a, s.caption_b, s.label)
                for s in shots[contest]] == expected
    assert record["n_shots"] == 5 and record["pool_rows"] == 650 and record["zero_shot_reason"] is None
    assert "random_state=42" in record["draw"] and len(record["rows"][str(sorted(CONTESTS)[0])]) == 5


def test_too_little_data_runs_zero_shot_and_says_why(tmp_path: Path) -> None:
    """Fewer than 600 rows, too many contests or no ranking split: no shots, and the reason is recorded."""
    assert draw(CONTESTS, 599, "p").zero_shot_reason.startswith("the pool has 599 rows")
    assert draw(range(101), 600, "p").rows == {}  # 101 contests outside the 91: blocks past row 600
    assert draw([*ZHANG_HELD_OUT, *range(10)], 600, "p").rows == {}
    assert len(draw([*ZHANG_HELD_OUT, *range(9)], 600, "p").rows) == 100
    shots, record = zhang_judge_shots(str(tmp_path / "nothing"), CONTESTS)
    assert shots == {} and record["n_shots"] == 0 and "zero-shot" in record["zero_shot_reason"]


def test_a_contest_gets_upstreams_block_whatever_else_is_scored() -> None:
    """One split, a --limit or contests without output never move another contest's examples: contest 761 gets
    block 90 alone, with its split, or with all 91, as upstream's loop over the 91 ascending gives it."""
    alone = draw([761], 650, "p").rows[761]
    test_split = draw(sorted(ZHANG_HELD_OUT[:47]), 650, "p").rows[761]
    everything = draw(ZHANG_HELD_OUT, 650, "p")
    assert alone == test_split == everything.rows[761]
    ordered = sorted(ZHANG_HELD_OUT)
    sampled = sampled_positions(650)
    assert all(everything.rows[c] == sampled[6 * i: 6 * i + 5] for i, c in enumerate(ordered))


def test_reliability_gives_the_judge_the_same_upstream_draw(sample_dataset: str, tmp_path: Path) -> None:
    """`nycc-bench reliability` draws its judge's examples as scoring does (rank.py L122), and records the draw;
    with too little ranking train data it runs zero-shot and says why."""
    import json
    import shutil

    import yaml
    from fake_openai import FakeChatServer, Reply

    from nycc_bench.judging import JudgeSpec
    from nycc_bench.reliability import reliability

    out = tmp_path / "ds"
    shutil.copytree(sample_dataset, out)
    for old in (out / "data" / "ranking").glob("train-*.parquet"):
        old.unlink()
    rows = _ranking_rows(650)
    datasets.Dataset.from_list(rows, features=datasets.Features.from_dict(features("ranking", False))).to_parquet(
        str(out / "data" / "ranking" / "train-00000-of-00001.parquet"))
    readme = out / "README.md"  # the card's recorded split sizes no longer hold: drop them
    _, header, body = readme.read_text(encoding="utf-8").split("---\n", 2)
    meta = yaml.safe_load(header)
    meta.pop("dataset_info", None)
    readme.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{body}", encoding="utf-8")

    reply = lambda body, attempt: Reply(text="A", top_logprobs=[("A", -0.01), ("B", -6.0)])  # noqa: E731
    with FakeChatServer(reply) as server:
        spec = JudgeSpec("openai", "gpt-4-turbo", base_url=server.base_url, cache_dir=str(tmp_path / "cache"))
        result = reliability(spec, str(out), "overall")
        sent = [json.dumps(r.body) for r in server.requests]
        zero = reliability(JudgeSpec("openai", "gpt-4-turbo", base_url=server.base_url,
                                     cache_dir=str(tmp_path / "cache")), sample_dataset, "overall")
    contests = result["contests"]
    expected = draw(contests, 650, "p").rows
    shots = result["settings"]["shots"]
    assert shots["n_shots"] == 5 and shots["rows"] == {str(c): r for c, r in expected.items()}
    assert "random_state=42" in shots["draw"] and result["settings"]["shots_source"] == shots["pool"]
    for contest, positions in expected.items():  # both orders of each contest carry its five examples
        carrying = [s for s in sent if all(rows[k]["caption_choices"][0] in s for k in positions)]
        assert len(carrying) == 2, contest
    assert zero["settings"]["shots"]["n_shots"] == 0 and zero["settings"]["shots_source"] is None
    assert "zero-shot" in zero["settings"]["shots"]["zero_shot_reason"]
