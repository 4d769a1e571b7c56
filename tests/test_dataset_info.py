"""The card's `dataset_info` block and feature lines are written as `datasets` writes them (this test imports
`datasets` to compare; `nycc_bench.dataset_info` itself never does): every config the builders declare, richer
features than any of them, one config or many, and a config with nothing recorded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from datasets.info import DatasetInfo, DatasetInfosDict
from huggingface_hub import DatasetCard, DatasetCardData

from nycc_bench.dataset_info import ConfigInfo, card_dataset_info, feature_repr, features_yaml
from nycc_bench.errors import NyccBenchError

RICH = datasets.Features({
    "text": datasets.Value("string"), "ids": datasets.List(datasets.Value("int32")), "image": datasets.Image(),
    "label": datasets.ClassLabel(names=["no", "yes"]), "fixed": datasets.List(datasets.Value("int32"), length=3),
    "large": datasets.LargeList(datasets.Value("bool")), "when": datasets.Value("timestamp[ms, tz=UTC]"),
    "nested": {"x": datasets.Value("int8"), "y": datasets.List({"z": datasets.Value("string")})},
    "grid": datasets.List(datasets.List(datasets.Value("string"))), "raw": datasets.Image(mode="RGB", decode=False),
})


def _all_features() -> list[datasets.Features]:
    from nycc_bench.builders import FAMILIES

    return [datasets.Features.from_dict(spec.features) for module in FAMILIES.values()
            for spec in module.CONFIGS.values()] + [RICH]


def test_features_and_their_lines_are_datasets_own() -> None:
    every = _all_features()
    assert len(every) > 30
    for features in every:
        assert features_yaml(features.to_dict()) == features._to_yaml_list()
        for name, feature in features.items():
            assert feature_repr(features.to_dict()[name]) == repr(feature), name


def _yaml_of(infos: dict[str, DatasetInfo], ours: bool) -> str:
    data = DatasetCardData(pretty_name="x")
    if ours:
        data["dataset_info"] = card_dataset_info(infos)
    else:
        DatasetInfosDict(infos).to_dataset_card_data(data)
    return data.to_yaml()


def _sample_infos(sample_dataset: str) -> dict[str, DatasetInfo]:
    card = DatasetCard.load(Path(sample_dataset) / "README.md")
    return dict(DatasetInfosDict.from_dataset_card_data(card.data))


def test_the_dataset_info_block_is_the_one_datasets_writes(sample_dataset: str) -> None:
    infos = _sample_infos(sample_dataset)
    assert len(infos) > 10
    rich = DatasetInfo(features=RICH, config_name="rich", download_size=7, dataset_size=0)
    cases = [infos, {"matching": infos["matching"]}, {"default": infos["matching"]},
             {"rich": rich, "bare": DatasetInfo(config_name="bare")}, {"bare": DatasetInfo(config_name="bare")}]
    for case in cases:
        assert _yaml_of(case, ours=True) == _yaml_of(case, ours=False), sorted(case)


def test_the_block_is_written_without_importing_datasets(sample_dataset: str) -> None:
    infos = _sample_infos(sample_dataset)
    plain = {name: ConfigInfo.of(info).__dict__ for name, info in infos.items()}
    code = ("import json, sys, yaml; from nycc_bench.dataset_info import ConfigInfo, card_dataset_info; "
            "infos = {n: ConfigInfo(**{**v, 'splits': {s: tuple(x) for s, x in v['splits'].items()}}) "
            "for n, v in json.loads(sys.stdin.read()).items()}; "
            "print(json.dumps([yaml.dump({'dataset_info': card_dataset_info(infos)}, sort_keys=False), "
            "'datasets' in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(plain), capture_output=True, text=True,
                          check=True)
    text, imported = json.loads(done.stdout)
    assert not imported
    data = DatasetCardData()
    DatasetInfosDict(infos).to_dataset_card_data(data)
    import yaml

    assert text == yaml.dump({"dataset_info": data["dataset_info"]}, sort_keys=False)


def test_an_unknown_feature_type_is_one_line() -> None:
    with pytest.raises(NyccBenchError, match="no card line for a Audio feature"):
        feature_repr({"_type": "Audio"})
