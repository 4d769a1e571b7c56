"""`read_rows` (pyarrow alone) gives every split's rows as `datasets` gives them (`load_split`): the same values,
images decoded to the same pixels with the same stored bytes; the `Rows` methods builders use; a missing split is
the same one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from nycc_bench.errors import NyccBenchError
from nycc_bench.images import SOURCE_BYTES, source_images
from nycc_bench.splits import config_data_files, load_split, read_rows


def _same(a: object, b: object) -> bool:
    """Equal values; PIL images equal in mode, size, pixels and format."""
    if hasattr(a, "tobytes") and hasattr(b, "tobytes"):
        return (a.mode, a.size, a.format, a.tobytes()) == (b.mode, b.size, b.format, b.tobytes())
    return a == b


def _splits(dataset: str) -> list[tuple[str, str]]:
    """Every (config, split) the built folder holds."""
    configs = sorted(p.name for p in (Path(dataset) / "data").iterdir() if p.is_dir())
    return [(config, split) for config in configs for split in sorted(config_data_files(dataset, config))]


def test_every_split_reads_as_datasets_reads_it(sample_dataset: str) -> None:
    checked = 0
    for config, split in _splits(sample_dataset):
        light, full = read_rows(sample_dataset, config, split), load_split(sample_dataset, config, split)
        assert len(light) == len(full) and light.column_names == full.column_names, (config, split)
        for mine, theirs in zip(light, full, strict=True):
            assert mine.keys() == theirs.keys()
            assert all(_same(mine[k], theirs[k]) for k in mine), (config, split, mine.get("instance_id"))
        if "image" in light.column_names:
            ours, upstream = source_images(light), source_images(full)
            kept = [[i and i.info.get(SOURCE_BYTES) for i in images] for images in (ours, upstream)]
            assert kept[0] == kept[1] and any(kept[0]), (config, split)
            assert all(_same(a, b) for a, b in zip(ours, upstream, strict=True))
            checked += 1
        for name in light.column_names:
            if name != "image":
                assert light[name] == full[name]
    assert checked >= 10  # the image configs were compared, not only the text ones


def test_rows_methods_builders_use(sample_dataset: str) -> None:
    rows = read_rows(sample_dataset, "matching", "train")
    full = load_split(sample_dataset, "matching", "train")
    picked = rows.select([2, 0]).remove_columns("image")
    assert picked.to_list() == full.select([2, 0]).remove_columns("image").to_list()
    assert rows[-1]["instance_id"] == full[len(full) - 1]["instance_id"]
    assert rows.select_columns(["instance_id"]).column_names == ["instance_id"]
    both = read_rows(sample_dataset, "matching", "train+validation")
    assert both["instance_id"] == load_split(sample_dataset, "matching", "train+validation")["instance_id"]
    with pytest.raises(IndexError):
        rows[len(rows)]
    with pytest.raises(KeyError, match="nope"):
        rows["nope"]


def test_a_missing_split_is_the_same_line(sample_dataset: str) -> None:
    with pytest.raises(NyccBenchError) as light:
        read_rows(sample_dataset, "humorbench", "train")
    with pytest.raises(NyccBenchError) as full:
        load_split(sample_dataset, "humorbench", "train")
    assert str(light.value) == str(full.value) and "has no split 'train'" in str(light.value)


def test_config_files_are_the_ones_datasets_lists(sample_dataset: str) -> None:
    """The novelty index finds its files without `datasets`: the same files `load_dataset_builder` lists."""
    import datasets

    for config in ("caption_ratings", "caption_generation", "matching"):
        theirs = datasets.load_dataset_builder(sample_dataset, config).config.data_files
        assert {k: sorted(map(str, v)) for k, v in theirs.items()} == config_data_files(sample_dataset, config)
    with pytest.raises(FileNotFoundError):
        config_data_files(sample_dataset, "no_such_config")


def test_an_image_is_decoded_when_its_row_is_read(sample_dataset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One row of a split decodes one cartoon; rows without their image column decode none (a text builder's)."""
    from nycc_bench.kinds import rows as module

    decoded: list[object] = []
    real = module.decode_image
    monkeypatch.setattr(module, "decode_image", lambda value: decoded.append(value) or real(value))
    rows = read_rows(sample_dataset, "matching", "train")
    assert rows[1]["image"] is rows[1]["image"] and len(decoded) == 1
    assert len(list(rows.remove_columns("image"))) == len(rows) and len(decoded) == 1
    assert len(rows["image"]) == len(rows) and len(decoded) == len(rows)  # the rest, once each


def test_a_hub_split_reads_through_datasets_as_the_same_rows(sample_dataset: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A dataset that is not a local folder (a Hub repo) is loaded by `datasets` (`load_split`) and read as the
    same `Rows`, its image columns found from the loaded features (here `load_split` gives the sample's split)."""
    from nycc_bench import splits

    asked: list[tuple[str, str, str]] = []

    def hub(dataset: str, config: str, split: str) -> object:
        asked.append((dataset, config, split))
        return load_split(sample_dataset, config, split)

    monkeypatch.setattr(splits, "load_split", hub)
    rows = read_rows("someone/captions", "matching", "test+validation")
    assert asked[0] == ("someone/captions", "matching", "test+validation")  # (then its parts, from the folder)
    local = read_rows(sample_dataset, "matching", "test+validation")
    assert rows.images == ["image"] and len(rows) == len(local)
    assert all(all(_same(a[k], b[k]) for k in a) for a, b in zip(rows, local, strict=True))
