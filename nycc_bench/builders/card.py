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


SCORING = """| task (`nycc-bench run --task`) | configs | metric (`evaluate` module) | judge |
|---|---|---|---|
| `matching`, `matching_from_pixels` | `matching[_from_pixels][_1.._4]` | `nycc_accuracy` (mean over the 5 folds) | — |
| `ranking`, `ranking_from_pixels` | `ranking[_from_pixels][_1.._4]` | `crowd_ny_accuracy` (CrowdAcc, NYAcc) | — |
| `explanation`, `explanation_from_pixels` | `explanation[_from_pixels][_1.._4]` | `explanation_overlap` | optional |
| `caption_generation` | `caption_generation` | `group_win_rate` (vs each human group), `ead_diversity` | required |
| `humorbench` | `humorbench` (`humorbench_hard` flags) | `element_autograder` | required |
"""
LIMITATIONS = """- Crowd ratings are subjective and come from one population of raters on one site; a caption's mean
  rating depends on which captions the adaptive sampling showed it next to (see `algorithm`).
- Contest numbering: from about #664 on, nextml's file numbers can differ from the official contest numbers
  by one or two; `caption_generation` keeps Zhang et al.'s published groups and says whether the rule agrees.
- HumorBench element categories are LLM-assigned upstream; its "toxic or shocking" category and some
  captions contain offensive or disturbing humor.
- Hessel explanations were written by one annotator each; BLEU/ROUGE correlate poorly with human judgment.
"""


def _size_category(n_rows: int) -> str:
    """The Hub's size bucket for the largest config."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n_rows < limit:
            return name
    return "1M<n<10M"


def render_card(built: list[BuiltConfig], infos: dict[str, DatasetInfo], pretty_name: str,
                repo_id: str = "nycc-bench/newyorker-caption-contest", sample: bool = False) -> DatasetCard:
    """Assemble the card from what was written, so sizes and features can never drift from the files.

    `sample` marks a build of the embedded sample (invented content): a `sample-data` tag and a banner, so it
    is never mistaken for, or published as, the real benchmark.
    """
    families = [FAMILIES[k] for k in dict.fromkeys(b.spec.family for b in built)]
    largest = max(sum(split.num_examples for split in info.splits.values()) for info in infos.values())
    data = DatasetCardData(
        pretty_name=pretty_name,
        license=sorted({f.license for f in families}),
        language=["en"],
        size_categories=[_size_category(largest)],
        source_datasets=["original", "extended|jmhessel/newyorker_caption_contest"],
        task_categories=["text-generation", "multiple-choice", "text-classification"],
        tags=["humor", "new-yorker", "cartoon-captions", "benchmark", "nycc-bench",
              *(["sample-data"] if sample else [])],
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
    banner = ("\n> **Sample data.** This build holds the invented sample that ships with nycc-bench (original "
              "content in the upstream formats), not the benchmark. Its figures mean nothing.\n" if sample else "")
    body = f"""
# {pretty_name}
{banner}
The New Yorker Cartoon Caption Contest humor benchmarks, one config per task, built by
[nycc-bench](https://github.com/nycc-bench/nycc-bench) (`nycc-bench build`) from the upstream raw files.

```python
from datasets import load_dataset
ds = load_dataset("{repo_id}", "{built[0].spec.name}")
```

Splits of the Zhang et al. configs: their 91 held-out contests are `validation` (44) and `test` (47); all other
contests are `train`.

## How to score

```bash
pip install nycc-bench
nycc-bench run   --task matching --system hf:<model> --dataset {repo_id} --fold 0 --out f0.jsonl   # folds 0..4
nycc-bench score --task matching --dataset {repo_id} --fold 0 1 2 3 4 \\
                 --predictions f0.jsonl f1.jsonl f2.jsonl f3.jsonl f4.jsonl
nycc-bench score --task caption_generation --dataset {repo_id} --predictions gen.jsonl --judge openai:gpt-4o
```

Each metric is an `evaluate` module (`evaluate.load("nycc-bench/<metric>")`, which needs `pip install nycc-bench`).
Hessel et al. report the unweighted mean over the five folds' test accuracies (fold 0 is the config without a
suffix). Every rate comes with its count and a bootstrap interval.

{SCORING}
## Limitations

{LIMITATIONS}
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
               pretty_name: str = "New Yorker Caption Contest benchmarks (nycc-bench)", sample: bool = False) -> Path:
    """Write `README.md` next to the data; validation is the Hub's card parser reading it back."""
    card = render_card(built, infos, pretty_name, sample=sample)
    path = Path(out_dir) / "README.md"
    path.write_text(str(card), encoding="utf-8")
    DatasetCard.load(path)  # raises if the YAML does not parse
    return path
