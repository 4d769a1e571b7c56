"""Model cards generated from results files: `model-index` eval results, the exact commands, scores, limitations.

    python -m nycc_bench.publish.cards --results model_cards/results --out model_cards

writes `<out>/<slug>/README.md` for every `<results>/*.json` (the format of `nycc_bench.results`). Baselines
implemented in nycc-bench are "ours" (`baseline-<system>`); every other system gets an evaluation card
(`eval-<system>`) that holds no weights and is pushed only on request.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from string import Template
from typing import Any, NamedTuple

from huggingface_hub import EvalResult, ModelCard, ModelCardData
from huggingface_hub.utils import HFValidationError, validate_repo_id

from ..builders import ALL_CONFIGS
from ..citations import FAMILIES
from ..leaderboard.benchmarks import METRICS
from ..results import read_results_dir
from ..systems import SPECS
from ..systems.baselines import LengthSystem, RandomSystem, SbertSystem
from ..tasks import Task, get_task
from . import NAMESPACE, PROJECT_URL, ROOT, dataset_id

TEMPLATE = ROOT / "model_cards" / "template.md"
DATASET_TITLE = "New Yorker Caption Contest benchmarks"
BASELINES = {"random": RandomSystem, "length": LengthSystem, "sbert": SbertSystem}
TASK_TYPES = {"choice": "multiple-choice", "generation": "text-generation"}
LIMITATIONS = {
    "random": "Chance level by construction: a floor to compare against, not a model of humor.",
    "length": "Multiple-choice tasks only. It measures how far an answer key rewards the longest caption.",
    "sbert": "It ranks by similarity to the scene description, not by humor. It needs a text description, so it "
             "never runs from pixels. Generation is retrieval of train-split human texts, so its explanation and "
             "caption scores measure overlap with retrieved human writing.",
    "other": "Scores depend on nycc-bench's prompts (see the prompt versions below) and decoding settings, which may "
             "differ from those of the papers or of the model's authors.",
}
SAMPLE_BANNER = (
    "> **Sample-data figures, not benchmark results.** Every number on this card was computed on the embedded "
    "sample of nycc-bench (original, invented content written in the upstream formats, a handful of items per "
    "task). They show the card format and that the pipeline runs end to end; they say nothing about the "
    "system's sense of humor. `python model_cards/make_cards.py --source upstream` regenerates this card on the "
    "real data.")


class Row(NamedTuple):
    """One reported number of one result."""

    metric_type: str
    label: str
    value: float
    ci_low: float | None
    ci_high: float | None
    n: int | None


def slug(spec: str) -> str:
    """The repo name of a system's card: `baseline-<system>` for ours, `eval-<kind>-<model>` for the rest."""
    kind, _, arg = spec.partition(":")
    model = arg.split("@")[0].rstrip("/").rsplit("/", 1)[-1]
    words = [kind, model] if model else [kind]
    name = re.sub(r"[^A-Za-z0-9._]+|-{2,}", "-", "-".join(words))
    name = re.sub(r"\.{2,}", ".", name).strip("-.")  # the Hub refuses '--' and '..' in names
    return f"{'baseline' if is_ours(spec) else 'eval'}-{name}"[:96]


def is_ours(spec: str) -> bool:
    """Whether nycc-bench implements the system (a baseline) rather than evaluating someone else's model."""
    return spec.partition(":")[0] in BASELINES


def base_model(spec: str) -> str | None:
    """The Hub model a system wraps (`sbert:`, `hf:`, `vlm:`, `clip:`), when it names one."""
    kind, _, arg = spec.partition(":")
    model = arg.split("@")[0]
    if kind not in ("sbert", "hf", "vlm", "clip") or "/" not in model:
        return None
    try:
        validate_repo_id(model)
    except HFValidationError:
        return None  # a local folder
    return model


def describe(spec: str) -> str:
    """What the system is: the baseline's own docstring, else the system kind's line in `nycc_bench.systems`."""
    kind = spec.partition(":")[0]
    if kind in BASELINES:
        return " ".join(inspect.getdoc(BASELINES[kind]).split())
    line = next((text for form, text in SPECS.items() if form.startswith(kind)), "a system of nycc-bench")
    return f"`{spec}` run through nycc-bench ({line}). This repository holds no weights: it is an evaluation " \
           "card; see the model's own page for what it is and its terms."


def task_title(task: Task) -> str:
    """A short name for a task, e.g. 'Matching (from description)'."""
    base = task.name.removesuffix("_from_pixels")
    title = {"humorbench": "HumorBench explanation"}.get(base, base.replace("_", " ").capitalize())
    if task.folds:
        title += " (from pixels)" if task.from_pixels else " (from description)"
    return title


def score_rows(result: dict[str, Any]) -> list[Row]:
    """The numbers a card reports for one score() result: the leaderboard's columns of its task, in their order
    (`nycc_bench.leaderboard.benchmarks.METRICS` is the one list of reported scores); absent ones are left out."""
    scores = result["scores"]
    judge = scores.get("judge")
    judge_name = judge.get("judge") if isinstance(judge, dict) else judge
    suffix = f" (judge {judge_name})" if isinstance(judge_name, str) and judge_name else ""
    rows = []
    for metric in METRICS:
        if metric.task != result["task"]:
            continue
        value, low, high, n = metric.extract(scores)
        if value is not None:
            module = "group_win_rate" if metric.path.startswith("win_rate.") else result["metric"]
            rows.append(Row(module, metric.label + (suffix if metric.judged else ""), value, low, high, n))
    return rows


def eval_results(data: dict[str, Any], dataset: str) -> list[EvalResult]:
    """The Hub `model-index` of a results file: one EvalResult per reported number."""
    sample = data["sample_data"]
    source = data.get("source")
    if sample:
        source = {"name": "nycc-bench embedded sample (invented data)", "url": f"{PROJECT_URL}/tree/main/sample_data"}
    out = []
    for result in data["results"]:
        task = get_task(result["task"])
        folds = result["folds"]
        for row in score_rows(result):
            out.append(EvalResult(
                task_type=TASK_TYPES[task.kind], task_name=task_title(task), dataset_type=dataset,
                dataset_name=DATASET_TITLE + (" (embedded sample, not benchmark data)" if sample else ""),
                dataset_config=result["configs"][0], dataset_split=result["split"],
                dataset_revision=data.get("dataset_revision"),
                dataset_args={"folds": folds, "configs": result["configs"]} if len(folds) > 1 else None,
                metric_type=row.metric_type, metric_name=row.label + (" [sample data]" if sample else ""),
                metric_value=round(row.value, 6),
                source_name=source["name"] if source else None, source_url=source["url"] if source else None))
    return out


def _fmt(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}" if abs(value) >= 1 else f"{value:.4f}"


def _table(data: dict[str, Any]) -> str:
    lines = ["| task | config (split) | metric | value | 95% interval | n |",
             "|---|---|---|---|---|---|"]
    for result in data["results"]:
        task = get_task(result["task"])
        configs = ", ".join(f"`{c}`" for c in result["configs"])
        for row in score_rows(result):
            ci = f"{_fmt(row.ci_low)} – {_fmt(row.ci_high)}" if row.ci_low is not None else "–"
            unparsed = f" ({result['n_unparsed']} unparsed)" if result["n_unparsed"] else ""
            lines.append(f"| {task_title(task)} | {configs} ({result['split']}) | {row.label} (`{row.metric_type}`) "
                         f"| {_fmt(row.value)} | {ci} | {row.n if row.n is not None else result['n']}{unparsed} |")
    return "\n".join(lines)


def _limitations(data: dict[str, Any]) -> str:
    spec = data["model"]["spec"]
    items = [LIMITATIONS.get(spec.partition(":")[0], LIMITATIONS["other"])]
    partial = sorted({r["task"] for r in data["results"] if get_task(r["task"]).folds and len(r["folds"]) < 5})
    if partial:
        items.append(f"{', '.join(partial)}: averaged over the folds run here only; the papers average all five "
                     "cross-validation folds.")
    items.append("Items that share a cartoon are not independent, and intervals are bootstrap percentile intervals "
                 "over items (contests for win rates), so they may be narrow.")
    if data["sample_data"]:
        items.append("Sample data: invented content, a few items per task. The figures carry no information about "
                     "the system's ability.")
    items += data.get("notes", [])
    return "\n".join(f"- {item}" for item in items)


def _how(data: dict[str, Any]) -> str:
    if not data["commands"]:
        source = data["source"]
        return f"Not run by nycc-bench: the figures are as reported by [{source['name']}]({source['url']})."
    return ("With nycc-bench installed (`make install` in a checkout), in an empty folder, in this order:\n\n"
            "```bash\n"
            + "\n".join(data["commands"]) + "\n```")


def _provenance(data: dict[str, Any], results_name: str) -> str:
    prompts = ", ".join(sorted({f"`{r['prompt_version']}`" for r in data["results"]}))
    revision = f" at revision `{data['dataset_revision']}`" if data.get("dataset_revision") else ""
    model = data["model"]
    model_rev = f" (revision `{model['revision']}`)" if model.get("revision") else ""
    return (f"- System: `{model['spec']}`{model_rev}\n- Dataset scored: `{data['dataset']}`{revision}\n"
            f"- Prompt versions: {prompts}\n- nycc-bench {data['nycc_bench']}; results file `{results_name}` "
            "(format `nycc-bench-results/1`), from which this card is generated")


def _citations(data: dict[str, Any]) -> str:
    keys = dict.fromkeys(ALL_CONFIGS[r["configs"][0]] for r in data["results"])
    return "```bibtex\n" + "\n\n".join(FAMILIES[k].bibtex for k in keys) + "\n```"


def render_card(data: dict[str, Any], namespace: str = NAMESPACE, template: Path = TEMPLATE,
                results_name: str = "") -> ModelCard:
    """The model card of one (validated) results file."""
    spec = data["model"]["spec"]
    dataset = dataset_id(namespace)
    metrics = sorted({row.metric_type for r in data["results"] for row in score_rows(r)})
    ours = is_ours(spec)
    tags = ["nycc-bench", "humor", "new-yorker-caption-contest", "baseline" if ours else "evaluation-card"]
    card_data = ModelCardData(
        model_name=data["model"]["name"], eval_results=eval_results(data, dataset), base_model=base_model(spec),
        datasets=[dataset], metrics=[f"{namespace}/{m}" for m in metrics], license="apache-2.0" if ours else None,
        language=["en"], tags=tags + (["sample-data"] if data["sample_data"] else []))
    if data["sample_data"]:
        banner = SAMPLE_BANNER
    elif data.get("source"):
        banner = f"> Figures as reported by [{data['source']['name']}]({data['source']['url']}), not re-run here."
    else:
        banner = f"> Scores on `{dataset}` computed with nycc-bench {data['nycc_bench']}."
    body = Template(Path(template).read_text(encoding="utf-8")).substitute(
        title=f"{data['model']['name']} on the {DATASET_TITLE}" + ("" if ours else " (evaluation card)"),
        banner=banner, what=describe(spec),
        how=_how(data), table=_table(data), limitations=_limitations(data),
        provenance=_provenance(data, results_name), citations=_citations(data), dataset=dataset,
        namespace=namespace, project_url=PROJECT_URL)
    return ModelCard(f"---\n{card_data.to_yaml()}\n---\n{body}")


def write_cards(results_dir: str | Path, out_dir: str | Path, namespace: str = NAMESPACE,
                template: Path = TEMPLATE) -> list[Path]:
    """A card per results file, as `<out_dir>/<slug>/README.md`; two results files for one system are an error."""
    written: dict[str, Path] = {}
    for path, data in read_results_dir(results_dir):
        name = slug(data["model"]["spec"])
        if name in written:
            raise ValueError(f"results: {path} and {written[name]} both describe {data['model']['spec']}")
        target = Path(out_dir) / name / "README.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(str(render_card(data, namespace, template, path.name)), encoding="utf-8")
        written[name] = path
    return [Path(out_dir) / name / "README.md" for name in written]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: a card per results file."""
    p = argparse.ArgumentParser(prog="python -m nycc_bench.publish.cards", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", required=True, help="folder of results files (*.json)")
    p.add_argument("--out", required=True, help="where <slug>/README.md cards are written")
    p.add_argument("--namespace", default=NAMESPACE, help=f"Hub namespace of the dataset (default {NAMESPACE})")
    p.add_argument("--template", default=str(TEMPLATE), help="card body template (string.Template placeholders)")
    args = p.parse_args(argv)
    try:
        for path in write_cards(args.results, args.out, args.namespace, Path(args.template)):
            print(path)
    except (ValueError, KeyError) as err:
        print(f"cards: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
