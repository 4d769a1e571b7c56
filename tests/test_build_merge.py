"""Building into an existing dataset: other configs survive, another source's configs are never silently replaced."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from nycc_bench.builders import build_dataset
from nycc_bench.cli import main
from nycc_bench.errors import NyccBenchError
from nycc_bench.kinds.instances import load_split
from nycc_bench.paths import SAMPLE_DIR

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
HUMORBENCH = SHARED / "humorbench_reubennarad"


def _rows(out: Path, config: str) -> int:
    """Rows of a config across its shards."""
    return sum(pq.read_metadata(p).num_rows for p in (out / "data" / config).glob("*.parquet"))


def _record(out: Path) -> dict:
    """The card's per-config source record."""
    return yaml.safe_load((out / "README.md").read_text().split("---\n")[1])["nycc_bench_configs"]


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`build --source upstream` from a local mirror holding only HumorBench (no Hessel configs), as the CLI does."""
    if not HUMORBENCH.is_dir():
        pytest.skip("../shared/data is not beside this checkout")
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "humorbench").symlink_to(HUMORBENCH)
    monkeypatch.setenv("NYCC_BENCH_UPSTREAM_DIR", str(mirror))
    out = tmp_path / "nycc"
    assert main(["build", "--source", "upstream", "--out", str(out), "--quiet"]) == 0
    return out


def test_following_the_missing_config_hint_keeps_the_upstream_configs(upstream: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's sequence: the hint names --source; even the old hint's command (default sample) keeps upstream."""
    before = _rows(upstream, "humorbench")
    assert before > 100 and _record(upstream)["humorbench"]["source"] == "upstream"
    with pytest.raises(NyccBenchError) as err:
        load_split(str(upstream), "matching", "test")
    hint = str(err.value)
    assert f"`nycc-bench build --source upstream --out {upstream} --configs matching`" in hint and "\n" not in hint
    capsys.readouterr()
    assert main(["build", "--out", str(upstream), "--configs", "matching", "--quiet"]) == 0  # default --source sample
    assert "kept as they were: humorbench" in capsys.readouterr().out
    assert _rows(upstream, "humorbench") == before
    record = _record(upstream)
    assert record["humorbench"]["source"] == "upstream" and record["matching"]["source"] == "sample"
    card = (upstream / "README.md").read_text()
    assert "The configs `matching` hold the invented sample" in card and "config_name: humorbench" in card
    assert len(load_split(str(upstream), "humorbench", "test")) == before
    assert len(load_split(str(upstream), "matching", "test")) > 0


def test_replacing_another_sources_config_is_refused_in_one_line(upstream: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Sample over upstream humorbench: refused naming the config, both sources and full commands; --replace does."""
    before = (upstream / "README.md").read_bytes()
    capsys.readouterr()
    assert main(["build", "--source", "sample", "--out", str(upstream), "--configs", "humorbench", "matching",
                 "--quiet"]) == 2
    message = capsys.readouterr().err.strip()
    assert message.count("\n") == 0 and "humorbench (built from upstream)" in message and "from sample" in message
    assert f"`nycc-bench build --source sample --out {upstream} --configs humorbench --replace`" in message
    assert f"`nycc-bench build --source sample --out {upstream} --configs matching`" in message
    assert (upstream / "README.md").read_bytes() == before and not (upstream / "data" / "matching").exists()
    assert main(["build", "--source", "sample", "--out", str(upstream), "--quiet"]) == 2  # no --configs: all
    assert "humorbench (built from upstream)" in capsys.readouterr().err
    with pytest.raises(NyccBenchError, match="humorbench \\(built from upstream\\)"):
        build_dataset(SAMPLE_DIR, upstream, ["humorbench"], progress=False, label="sample")
    assert main(["build", "--source", "sample", "--out", str(upstream), "--configs", "humorbench", "--replace",
                 "--quiet"]) == 0
    assert _record(upstream)["humorbench"]["source"] == "sample" and _rows(upstream, "humorbench") < 20


def test_same_source_rebuild_replaces_only_its_configs(tmp_path: Path) -> None:
    """Rebuilding one config from the same source rewrites it and keeps the rest, sizes and sources on the card."""
    out = tmp_path / "out"
    build_dataset(SAMPLE_DIR, out, ["matching", "humorbench"], progress=False)
    card = (out / "README.md").read_text()
    build_dataset(SAMPLE_DIR, out, ["humorbench"], progress=False)
    assert sorted(p.name for p in (out / "data").iterdir()) == ["humorbench", "matching"]
    assert (out / "README.md").read_text() == card
    assert set(_record(out)) == {"matching", "humorbench"}
