"""The dataset card: YAML `configs:` and `dataset_info` for `load_dataset`, then a section per config."""

from __future__ import annotations

from pathlib import Path

from datasets.info import DatasetInfo, DatasetInfosDict
from huggingface_hub import DatasetCard, DatasetCardData

from ..citations import FAMILIES
from .writer import BuiltConfig, data_path


def _feature_lines(info: DatasetInfo) -> str:
    """One bullet per column with its `datasets` type, for the human-readable section."""
    return "\n".join(f"- `{name}`: `{feature!r}`" for name, feature in info.features.items())


def render_card(built: list[BuiltConfig], infos: dict[str, DatasetInfo], pretty_name: str) -> DatasetCard:
    """Assemble the card from what was written, so sizes and features can never drift from the files."""
    families = [FAMILIES[k] for k in dict.fromkeys(b.spec.family for b in built)]
    data = DatasetCardData(
        pretty_name=pretty_name,
        license=sorted({f.license for f in families}),
        language=["en"],
        task_categories=["text-generation", "multiple-choice", "text-classification"],
        tags=["humor", "new-yorker", "cartoon-captions", "benchmark", "nycc-bench"],
        configs=[
            {"config_name": b.spec.name,
             "data_files": [{"split": s, "path": data_path(b.spec.name, s)} for s in b.splits]}
            for b in built
        ],
    )
    DatasetInfosDict(infos).to_dataset_card_data(data)
    sections = []
    for b in built:
        info = infos[b.spec.name]
        sizes = ", ".join(f"{name} {split.num_examples:,}" for name, split in info.splits.items())
        sections.append(
            f"### `{b.spec.name}`\n\n{b.spec.description}\n\n"
            f"Source: {FAMILIES[b.spec.family].title}. Rows: {sizes}.\n\n{_feature_lines(info)}\n"
        )
    sources = "\n".join(f"- **{f.title}** — {f.upstream} (license `{f.license}`)" for f in families)
    citations = "\n\n".join(f.bibtex for f in families)
    body = f"""
# {pretty_name}

The New Yorker Cartoon Caption Contest humor benchmarks, one config per task, built by
[nycc-bench](https://github.com/nycc-bench/nycc-bench) (`nycc-bench build`) from the upstream raw files.

```python
from datasets import load_dataset
ds = load_dataset("<this repo>", "{built[0].spec.name}")
```

Score predictions with the `evaluate` modules of nycc-bench (`nycc-bench score --task <task> --predictions FILE`).
Splits of the Zhang et al. configs: their 91 held-out contests are `validation` (44) and `test` (47); all other
contests are `train`.

## Sources and licenses

{sources}

Each config keeps the terms of its source. Captions are New Yorker Cartoon Caption Contest entries rated by the
crowd through NEXT (nextml).

## Configs

{chr(10).join(sections)}
## Citation

```bibtex
{citations}
```
"""
    return DatasetCard(f"---\n{data.to_yaml()}\n---\n{body}")


def write_card(out_dir: Path, built: list[BuiltConfig], infos: dict[str, DatasetInfo],
               pretty_name: str = "New Yorker Caption Contest benchmarks (nycc-bench)") -> Path:
    """Write `README.md` next to the data; validation is the Hub's card parser reading it back."""
    card = render_card(built, infos, pretty_name)
    path = Path(out_dir) / "README.md"
    path.write_text(str(card), encoding="utf-8")
    DatasetCard.load(path)  # raises if the YAML does not parse
    return path
