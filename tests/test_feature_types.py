"""A config's features without `datasets` (`nycc_bench.feature_types`) are `datasets`' own: the JSON form, the
Arrow schema with its `huggingface` metadata (the bytes every parquet file carries), the card's features read back,
and a build of the sample whose files and card say exactly what `datasets` would have written (this test imports
`datasets` to compare; the build itself never does: the last test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets.info import DatasetInfosDict
from huggingface_hub import DatasetCard, DatasetCardData

from nycc_bench.arena.columns import SCHEMA
from nycc_bench.builders.card_file import card_data, card_text
from nycc_bench.dataset_info import ConfigInfo, card_dataset_info, features_from_yaml, features_yaml, infos_from_card
from nycc_bench.errors import NyccBenchError
from nycc_bench.feature_types import arrow_schema, arrow_type, from_arrow_schema, has_image, to_datasets

RICH = datasets.Features({
    "text": datasets.Value("string"), "ids": datasets.List(datasets.Value("int32")), "image": datasets.Image(),
    "label": datasets.ClassLabel(names=["no", "yes"]), "fixed": datasets.List(datasets.Value("int32"), length=3),
    "large": datasets.LargeList(datasets.Value("bool")), "when": datasets.Value("timestamp[ms, tz=UTC]"),
    "day": datasets.Value("timestamp[s]"), "half": datasets.Value("float16"), "f32": datasets.Value("float32"),
    "nested": {"x": datasets.Value("int8"), "y": datasets.List({"z": datasets.Value("string")})},
    "grid": datasets.List(datasets.List(datasets.Value("string"))), "raw": datasets.Image(mode="RGB", decode=False),
})


def _specs() -> list:
    from nycc_bench.builders import FAMILIES

    return [spec for module in FAMILIES.values() for spec in module.CONFIGS.values()]


def test_every_config_s_features_schema_and_metadata_are_datasets_own() -> None:
    specs = _specs()
    assert len(specs) > 30
    for spec in specs:
        theirs = to_datasets(spec.features)
        assert isinstance(theirs, datasets.Features) and theirs.to_dict() == spec.features, spec.name
        ours = spec.arrow_schema
        assert ours.equals(theirs.arrow_schema, check_metadata=True), spec.name
        assert ours.serialize().to_pybytes() == theirs.arrow_schema.serialize().to_pybytes(), spec.name
        assert has_image(spec.features) == any(isinstance(f, datasets.Image) for f in theirs.values()), spec.name


def test_richer_features_and_an_arrow_schema_read_as_datasets_reads_them() -> None:
    features = RICH.to_dict()
    assert arrow_schema(features).equals(RICH.arrow_schema, check_metadata=True)
    assert all(arrow_type(features[name]) == RICH.type.field(name).type for name in RICH)
    assert from_arrow_schema(SCHEMA) == datasets.Features.from_arrow_schema(SCHEMA).to_dict()
    plain = pa.schema([(n, RICH.type.field(n).type) for n in ("text", "ids", "fixed", "large", "when", "nested")])
    assert from_arrow_schema(plain) == datasets.Features.from_arrow_schema(plain).to_dict()
    assert from_arrow_schema(RICH.arrow_schema) == features  # (the metadata's features, as `datasets` reads them)


def test_the_card_s_features_and_infos_read_back_as_datasets_reads_them(sample_dataset: str) -> None:
    for features in [spec.features for spec in _specs()] + [RICH.to_dict()]:
        items = features_yaml(features)
        assert features_from_yaml(items) == features
        assert features_from_yaml(items) == datasets.Features._from_yaml_list(items).to_dict()
    old_sequence = [{"name": "pairs", "sequence": [{"name": "a", "dtype": "string"}, {"name": "b", "dtype": "int32"}]},
                    {"name": "tags", "sequence": "string"}]
    assert features_from_yaml(old_sequence) == datasets.Features._from_yaml_list(old_sequence).to_dict()
    card = DatasetCard.load(Path(sample_dataset) / "README.md")
    theirs = DatasetInfosDict.from_dataset_card_data(card.data)
    ours = infos_from_card(card.data.to_dict())
    assert len(ours) > 10 and ours == {name: ConfigInfo.of(info) for name, info in theirs.items()}
    single = DatasetCardData()
    single["dataset_info"] = card_dataset_info({"default": ours["matching"]})
    assert infos_from_card(single.to_dict()) == {"default": ConfigInfo.of(
        DatasetInfosDict.from_dataset_card_data(single)["default"])}


def test_an_unknown_dtype_is_one_line() -> None:
    with pytest.raises(NyccBenchError, match="unknown Value dtype 'text'"):
        arrow_schema({"a": {"dtype": "text", "_type": "Value"}})
    with pytest.raises(NyccBenchError, match="no Arrow type for a Audio feature"):
        arrow_type({"_type": "Audio"})


def test_the_sample_build_writes_what_datasets_would_have_written(sample_dataset: str) -> None:
    """Every parquet file of the sample built without `datasets` carries `datasets`' own schema and metadata for its
    config, `load_dataset` reads it back with those features, and the card's `dataset_info` is what `datasets`
    writes for the infos it holds."""
    from nycc_bench.builders import ALL_CONFIGS, FAMILIES

    specs = {name: mod.CONFIGS[name] for mod in FAMILIES.values() for name in mod.CONFIGS}
    folders = sorted(p for p in (Path(sample_dataset) / "data").iterdir() if p.is_dir())
    assert len(folders) > 10 and all(f.name in ALL_CONFIGS for f in folders)
    for folder in folders:
        theirs = to_datasets(specs[folder.name].features)
        sink = pa.BufferOutputStream()  # (`datasets`' schema as parquet gives it back: a list's item is `element`)
        pq.write_table(theirs.arrow_schema.empty_table(), sink)
        expected = pq.read_schema(pa.BufferReader(sink.getvalue()))
        for shard in sorted(folder.glob("*.parquet")):
            assert pq.read_schema(shard).equals(expected, check_metadata=True), shard
    loaded = datasets.load_dataset("parquet", data_files=str(Path(sample_dataset) / "data" / "humorbench" / "*"),
                                   split="train")
    assert loaded.features == to_datasets(specs["humorbench"].features)
    card = DatasetCard.load(Path(sample_dataset) / "README.md")
    again = DatasetCardData()
    DatasetInfosDict.from_dataset_card_data(card.data).to_dataset_card_data(again)
    assert card.data["dataset_info"] == again["dataset_info"]
    for entry in card.data["dataset_info"]:
        assert features_from_yaml(entry["features"]) == specs[entry["config_name"]].features


def test_the_card_file_is_the_one_huggingface_hub_writes_and_reads(sample_dataset: str, tmp_path: Path) -> None:
    """The card's YAML block is `DatasetCardData.to_yaml`'s (fields in its order, Unicode kept, None left out) and
    reads back as `DatasetCard.load` reads it; the sample's card is a fixed point of the Hub's parser."""
    fields = dict(pretty_name="Captions \u2014 \u201cquoted\u201d \u00fcn\u00efcode: yes", license=["cc-by-4.0"],
                  language=["en"], size_categories=["n<1K"], source_datasets=["original"],
                  task_categories=["text-generation"], tags=["humor", "sample-data"],
                  configs=[{"config_name": "a", "data_files": [{"split": "train", "path": "data/a/train-*"}],
                            "default": True}])
    theirs = DatasetCardData(**fields)
    theirs["dataset_info"] = {"features": [{"name": "x", "dtype": "string"}], "dataset_size": 3}
    theirs["nycc_bench_configs"] = {"a": {"source": "sample", "license": "cc-by-4.0"}}
    order = ["language", "license", "size_categories", "source_datasets", "task_categories", "pretty_name", "tags",
             "configs", "dataset_info", "nycc_bench_configs"]
    ours = card_text({key: theirs[key] for key in order} | {"task_ids": None}, "\n# Title \u2014 body\n")
    assert ours == str(DatasetCard(f"---\n{theirs.to_yaml()}\n---\n\n# Title \u2014 body\n"))
    (tmp_path / "README.md").write_text(ours, encoding="utf-8")
    assert card_data(tmp_path / "README.md") == DatasetCard.load(tmp_path / "README.md").data.to_dict()
    path = Path(sample_dataset) / "README.md"
    assert str(DatasetCard.load(path)) == path.read_text(encoding="utf-8")
    assert card_data(path) == DatasetCard.load(path).data.to_dict()
    (tmp_path / "list.md").write_text("---\n- a\n---\nbody\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a mapping"):
        card_data(tmp_path / "list.md")


HEAVY = ("datasets", "torch", "transformers", "sentence_transformers", "sklearn", "scipy", "huggingface_hub", "tqdm")


def test_a_build_of_the_sample_imports_no_datasets(tmp_path: Path) -> None:
    """`nycc-bench build` as the console script runs it, every config of the sample: the heavy libraries it imported
    (the card, the features and the schema all come without `datasets` or `huggingface_hub`; no bar, no tqdm)."""
    code = ("import json, sys; from nycc_bench.cli import main; code = main(sys.argv[1:]); "
            f"print(json.dumps([code, sorted(m for m in {HEAVY!r} if m in sys.modules)]))")
    done = subprocess.run([sys.executable, "-c", code, "build", "--out", str(tmp_path / "out"), "--quiet"],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [0, []]
    assert len(list((tmp_path / "out" / "data").glob("*/*.parquet"))) > 10
