"""The dataset card: YAML `configs:` and `dataset_info` for `load_dataset`, then a section per config."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import __version__
from ..dataset_info import ConfigInfo, card_dataset_info, feature_repr
from ..tasks.families import families
from ..tasks.registry import all_tasks, config_name
from .card_file import card_data, card_text
from .merge import FLAG_COLUMNS, RECORD_KEY
from .sources import ZHANG_HF_REPO
from .writer import BuiltConfig, data_path


def _feature_lines(info: ConfigInfo) -> str:
    """One bullet per column with its `datasets` type, for the human-readable section."""
    return "\n".join(f"- `{name}`: `{feature_repr(feature)}`" for name, feature in (info.features or {}).items())


FAULTS = """- Contests 643/644, 646/647, 655/656 and 665/666 have identical caption lists upstream (nextml issues #16,
  #38): the later contest's rows carry `duplicate_of` (in `caption_ratings`, `preference_pairs`,
  `caption_generation`, `cartoons`). Both are kept; pairs of a train contest that duplicates a held-out one leak
  its captions, as upstream's training data does.
- Every row of `688_summary_KLUCB.csv` says contest 689: kept as contest 688 (the file name), with
  `file_contest_number` = 689.
- Thousands of captions contain line breaks (`has_line_break`), some files repeat a caption text exactly
  (`is_duplicate_text` on every copy after the best-rated one), a few repeat a whole row, caption and ratings
  (`is_repeated_row` on every later copy), and a few captions are blank (`is_empty_text`).
- How the rules treat them: ranks count every row; the human groups of `caption_generation` are positions in
  the stable sort, so a repeated or blank caption stays where it falls (as in Zhang et al.'s published lists);
  preference pairs draw positions, flagged or not, as upstream does (a pair can hold two copies of one text).
"""
FLAGGED = {"is_repeated_row": "rows repeat an earlier row of their file exactly (one rating row saved twice)",
           "is_duplicate_text": "captions repeat a text rated higher in their run",
           "is_empty_text": "captions are blank", "has_line_break": "captions hold a line break"}


def flag_counts(built: list[BuiltConfig]) -> str:
    """How many rows of this build's `caption_ratings` carry each upstream-fault flag (a line for the card)."""
    import pyarrow.compute as pc

    ratings = next((b for b in built if b.spec.name == "caption_ratings"), None)
    if ratings is None:
        return ""
    counts = {}
    for flag in FLAG_COLUMNS:
        tables = [t for t in ratings.splits.values() if flag in t.column_names]
        if tables:
            counts[flag] = sum(int(pc.sum(t[flag]).as_py() or 0) for t in tables)
    if not counts:
        return ""
    return ("- In this build's `caption_ratings`: "
            + "; ".join(f"{n:,} {FLAGGED[f]} (`{f}`)" for f, n in counts.items()) + ".\n")


LEADERBOARD_ROW = ("| `*_from_pixels`, `--split leaderboard` | `{matching,ranking}_leaderboard` "
                   "| none (labels hidden): a submission | — |")


def judged_groups() -> tuple[str, str]:
    """The CLI groups (tasks/families.yaml) whose tasks need no judge, and those with a task that does."""
    needs = {f.group: any(t.needs_judge for t in all_tasks().values() if t.family == key)
             for key, f in families().items()}
    return ",".join(g for g, n in needs.items() if not n), ",".join(g for g, n in needs.items() if n)


def scoring_table() -> str:
    """The card's task table, one row per task of the registry: its configs, metric modules and judge."""
    lines = ["| task (`nycc-bench run --task`) | configs | metric (`evaluate` module) | judge |", "|---|---|---|---|"]
    for task in all_tasks().values():
        configs = f"`{config_name(task, task.folds[0])}`"
        if task.has_folds:
            configs += f" … `{config_name(task, task.folds[-1])}`"
        if task.display.flag:
            configs += f" (`{task.display.flag.config}` flags)"
        metrics = [task.metric, *([task.judge["judged_metric"]] if task.judge.get("judged_metric") else [])]
        metric = ", ".join(f"`{m}`" for m in metrics) + (f" (mean over the {len(task.folds)} folds)"
                                                         if task.has_folds else "")
        judge = "required" if task.needs_judge else "optional" if task.judge.get("protocol") else "—"
        lines.append(f"| `{task.name}` | {configs} | {metric} | {judge} |")
    return "\n".join([*lines, LEADERBOARD_ROW]) + "\n"
LIMITATIONS = """- Crowd ratings are subjective and come from one population of raters on one site; a caption's mean
  rating depends on which captions the adaptive sampling showed it next to (see `algorithm`).
- Contest numbering: from about #664 on, nextml's file numbers can differ from the official contest numbers
  by one or two; `caption_generation` keeps Zhang et al.'s published groups and says whether the rule agrees.
- HumorBench element categories are LLM-assigned upstream; its "toxic or shocking" category and some
  captions contain offensive or disturbing humor.
- `humorbench_hard` is the paper's HumorBench-Hard: 100 captions, 164 elements (the paper's "100 unique elements"
  are these captions), recovered from upstream's history (commit 6e87dbf). The upstream leaderboard's July hard
  list was element-level and never written to a file; `nycc_bench.builders.hard_subset.hard_subset(runs)`
  recomputes that rule from graded runs, and the leaderboard shows it as the column "Hard, leaderboard rule",
  recomputed over the runs it holds from each run's recorded per-element verdicts (so it moves as runs are added).
- Hessel explanations were written by one annotator each; BLEU/ROUGE correlate poorly with human judgment.
"""


DEFAULT_CONFIGS = ("matching", "caption_generation", "humorbench")  # the first one built is the default
HUB_SOURCES = {
    "jmhessel/newyorker_caption_contest": "extended|jmhessel/newyorker_caption_contest",
    ZHANG_HF_REPO: f"extended|{ZHANG_HF_REPO}",
}


def config_license(b: BuiltConfig) -> str:
    """The license a config carries: its own (set by the builder from the rows' sources) or its family's."""
    return b.license or families()[b.spec.family].license


def default_config(built: list[BuiltConfig]) -> str:
    """The config `load_dataset(repo)` opens without a name: the first of DEFAULT_CONFIGS built, else the first."""
    names = [b.spec.name for b in built]
    return next((n for n in DEFAULT_CONFIGS if n in names), names[0])


def source_datasets(built: list[BuiltConfig]) -> list[str]:
    """`original` plus the Hub datasets whose content was actually built into some config."""
    used = {"original"}
    for b in built:
        if b.spec.family == "hessel2023":
            used.add(HUB_SOURCES["jmhessel/newyorker_caption_contest"])
        for table in b.splits.values():
            for column in ("image_source", "hessel_source", "gpt4o_source"):
                if column in table.column_names:
                    for value in set(filter(None, table[column].to_pylist())):
                        used |= {tag for repo, tag in HUB_SOURCES.items() if value.startswith(repo)}
    return sorted(used, key=lambda tag: (tag != "original", tag))


def _size_category(n_rows: int) -> str:
    """The Hub's size bucket for the largest config."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n_rows < limit:
            return name
    return "1M<n<10M"


def render_card(built: list[BuiltConfig], infos: Mapping[str, Any], pretty_name: str,
                repo_id: str = "nycc-bench/newyorker-caption-contest",
                sources: dict[str, str] | None = None) -> str:
    """Assemble the card from what was written, so sizes and features can never drift from the files.

    `sources` is each config's source (`sample`, `upstream` or a folder), recorded in the YAML for later builds
    into the same folder. A config of the embedded sample (invented content) gives a `sample-data` tag and a banner
    naming those configs, so it is never mistaken for, or published as, the real benchmark. `infos`: each
    config's `ConfigInfo` (or `datasets.DatasetInfo`); the `dataset_info` block is written as `datasets` writes it,
    without importing it (`dataset_info.py`).
    """
    sources = sources or {}
    infos = {name: ConfigInfo.of(info) for name, info in infos.items()}
    sampled = [b.spec.name for b in built if sources.get(b.spec.name) == "sample"]
    sample = bool(sampled)
    used = [families()[k] for k in dict.fromkeys(b.spec.family for b in built)]
    largest = max(sum(rows for _, rows in (info.splits or {}).values()) for info in infos.values())
    data: dict[str, Any] = dict(  # (in the order `DatasetCardData` writes its fields)
        language=["en"],
        license=sorted({config_license(b) for b in built}),
        size_categories=[_size_category(largest)],
        source_datasets=source_datasets(built),
        task_categories=["text-generation", "multiple-choice", "text-classification"],
        pretty_name=pretty_name,
        tags=["humor", "new-yorker", "cartoon-captions", "benchmark", "nycc-bench",
              *(["sample-data"] if sample else [])],
        configs=[
            {"config_name": b.spec.name,
             "data_files": [{"split": s, "path": data_path(b.spec.name, s)} for s in b.splits],
             **({"default": True} if b.spec.name == default_config(built) else {})}
            for b in built
        ],
    )
    if infos:
        data["dataset_info"] = card_dataset_info(infos)
    data[RECORD_KEY] = {b.spec.name: {"source": sources.get(b.spec.name, "unknown"), "license": config_license(b),
                                      **({"upstream_files": b.upstream_files} if b.upstream_files else {})}
                        for b in built}
    sections = []
    for b in built:
        info = infos[b.spec.name]
        sizes = ", ".join(f"{name} {rows:,}" for name, (_, rows) in (info.splits or {}).items())
        sections.append(
            f"### `{b.spec.name}`\n\n{b.spec.description}\n\n"
            f"Source: {families()[b.spec.family].heading}. License: `{config_license(b)}`. Rows: {sizes}. "
            f"Built from: `{sources.get(b.spec.name, 'unknown')}`.\n\n"
            f"{_feature_lines(info)}\n"
        )
    sources = "\n".join(f"- **{f.heading}** — {f.upstream} (license `{f.license}`)" for f in used)
    citations = "\n\n".join(f.bibtex for f in used)
    which = "This build holds" if len(sampled) == len(built) else \
        f"The configs {', '.join(f'`{n}`' for n in sampled)} hold"
    banner = (f"\n> **Sample data.** {which} the invented sample that ships with nycc-bench (original "
              "content in the upstream formats), not the benchmark. Its figures mean nothing.\n" if sample else "")
    free, judged = judged_groups()
    body = f"""
# {pretty_name}
{banner}
The New Yorker Cartoon Caption Contest humor benchmarks, one config per task, built by
[nycc-bench](https://github.com/nycc-bench/nycc-bench) (`nycc-bench build`) from the upstream raw files.

```python
from datasets import load_dataset
ds = load_dataset("{repo_id}", "{built[0].spec.name}")  # without a name: the default config, {default_config(built)}
```

Splits of the Zhang et al. configs: their 91 held-out contests are `validation` (44) and `test` (47); all other
contests are `train`.

## How to score

```bash
pip install nycc-bench=={__version__}
nycc-bench tasks                                                   # every task and its paper settings
nycc-bench evaluate --system hf:<model> --tasks {free} --dataset {repo_id} --out runs/my-model   # all five folds
nycc-bench evaluate --system hf:<model> --tasks {judged} --dataset {repo_id} --judge openai:gpt-4o \\
                    --out runs/my-model
```

`runs/my-model/results.json` holds every score with its interval and count, and what produced it. Each metric is
an `evaluate` module (`evaluate.load("nycc-bench/<metric>")`, which needs `pip install nycc-bench=={__version__}`).
Hessel et al. report the unweighted mean over the five folds' test accuracies (fold 0 is the config without a
suffix). Every rate comes with its count and a bootstrap interval.

{scoring_table()}
## Limitations

{LIMITATIONS}
## Sources and licenses

{sources}

Each config keeps the terms of its source; the license of each is stated in its section below. Anything
derived from Zhang et al.'s Hub dataset (`{ZHANG_HF_REPO}`: the GPT-4o descriptions and their cartoons, in
`cartoons` and `caption_generation`) is CC BY-NC 4.0 (non-commercial). Captions are New Yorker Cartoon Caption
Contest entries rated by the crowd through NEXT (nextml, CC BY 4.0).

## Known upstream faults (flagged, never silently kept or dropped)

{FAULTS}{flag_counts(built)}

## Configs

{chr(10).join(sections)}
## Citation

```bibtex
{citations}
```
"""
    return card_text(data, body)


def write_card(out_dir: Path, built: list[BuiltConfig], infos: Mapping[str, Any],
               pretty_name: str = "New Yorker Caption Contest benchmarks (nycc-bench)",
               sources: dict[str, str] | None = None) -> Path:
    """Write `README.md` next to the data; validation is reading its metadata back as the Hub's card parser does."""
    card = render_card(built, infos, pretty_name, sources=sources)
    path = Path(out_dir) / "README.md"
    path.write_text(card, encoding="utf-8")
    card_data(path)  # raises if the YAML does not parse
    return path
