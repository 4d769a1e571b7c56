"""Model cards generated from results files: `model-index` eval results, the exact commands, scores, limitations.

    nycc-bench cards --results nycc_bench/leaderboard/seed/results --out model_cards

writes `<out>/<slug>/README.md` for every `<results>/*.json` (the format of `nycc_bench.results`). Baselines
implemented in nycc-bench are "ours" (`baseline-<system>`); every other system gets an evaluation card
(`eval-<system>`) that holds no weights and is pushed only on request.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Sequence
from pathlib import Path
from string import Template
from typing import Any, NamedTuple

from huggingface_hub import EvalResult, ModelCard, ModelCardData
from huggingface_hub.utils import HFValidationError, validate_repo_id

from .. import __version__
from ..results import read_results_dir
from ..standings import where_judged
from ..systems.registry import entry_of
from ..tasks import Task, config_name, get_task
from ..tasks.families import families
from ..tasks.scores import metrics
from ..wholeness import NO_JUDGE, SHOWN, status_of
from . import NAMESPACE, PROJECT_URL, dataset_id
from .public import public_record

TEMPLATE = Path(__file__).resolve().parent / "card_template.md"
DATASET_TITLE = "New Yorker Caption Contest benchmarks"
TASK_TYPES = {"choice": "multiple-choice", "generation": "text-generation"}
OTHER_LIMITATION = ("Scores depend on nycc-bench's prompts (see the prompt versions below) and decoding settings, "
                    "which may differ from those of the papers or of the model's authors.")
SAMPLE_BANNER = (
    "> **Sample-data figures, not benchmark results.** Every number on this card was computed on the embedded "
    "sample of nycc-bench (original, invented content written in the upstream formats, a handful of items per "
    "task). They show the card format and that the pipeline runs end to end; they say nothing about the "
    "system's sense of humor. `python model_cards/make_cards.py --source upstream --work DIR` regenerates this "
    "card on the real data.")


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
    entry = entry_of(spec)
    return entry is not None and entry.baseline is not None


def base_model(spec: str) -> str | None:
    """The Hub model a system wraps (one registered with `hub_model=True`: sbert, hf, vlm, clip), when it names one."""
    entry, model = entry_of(spec), spec.partition(":")[2].split("@")[0]
    if entry is None or not entry.hub_model or "/" not in model:
        return None
    try:
        validate_repo_id(model)
    except HFValidationError:
        return None  # a local folder
    return model


def describe(spec: str) -> str:
    """What the system is: the baseline's own docstring, else its registered help line (`register_system`)."""
    entry = entry_of(spec)
    if entry is not None and entry.baseline:
        return " ".join((inspect.getdoc(entry.cls) or "").split())
    line = entry.help if entry is not None else "a system of nycc-bench"
    return f"`{spec}` run through nycc-bench ({line}). This repository holds no weights: it is an evaluation " \
           "card; see the model's own page for what it is and its terms."


def task_title(task: Task) -> str:
    """A short name for a task, e.g. 'Matching (from description)': its task file's `display.title`, else its name."""
    base = task.name.removesuffix("_from_pixels")
    title = task.display.title or base.replace("_", " ").capitalize()
    if task.has_folds:
        title += " (from pixels)" if task.from_pixels else " (from description)"
    return title


def task_results(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A results record's task entries as flat rows (task, scores, folds, configs, split, counts, metric)."""
    out = []
    for name, entry in data["tasks"].items():
        task, config = get_task(name), entry["config"]
        folds = config["dataset"]["folds"]
        out.append({"task": name, "scores": entry["scores"], "folds": folds, "split": config["dataset"]["split"],
                    "configs": [config_name(task, f) for f in folds], "n": entry["n"],
                    "n_unparsed": entry["n_unparsed"], "n_failed": entry["n_failed"],
                    "metric": config.get("scorer", {}).get("metric", task.metric),
                    "prompt_version": config.get("prompt_version"),
                    "judge": (f"{config['judge']['name']}{where_judged(config['judge'])}"
                              if (config.get("judge") or {}).get("name") else None),
                    "deviations": config.get("deviations", []), "status": status_of(entry).status,
                    "status_reason": status_of(entry).reason})
    return out


def score_rows(result: dict[str, Any]) -> list[Row]:
    """The numbers a card reports for one task: the leaderboard's columns of its task, in their order
    (`nycc_bench.tasks.scores.metrics()`, read from the task files); absent ones are left out."""
    judge_name = result.get("judge")
    suffix = f" (judge {judge_name})" if isinstance(judge_name, str) and judge_name else ""
    task = get_task(result["task"])
    rows = []
    for metric in metrics():
        if metric.task != result["task"]:
            continue
        value, low, high, n = metric.extract(result["scores"])
        if value is not None:
            module = task.judge.get("judged_metric", result["metric"]) if metric.judged else result["metric"]
            rows.append(Row(module, metric.label + (suffix if metric.judged else ""), value, low, high, n))
    return rows


def eval_results(data: dict[str, Any], dataset: str) -> list[EvalResult]:
    """The Hub `model-index` of a results file: one EvalResult per reported number."""
    sample = data["dataset"]["sample"]
    source = (data.get("extra") or {}).get("source")
    if sample:
        source = {"name": "nycc-bench embedded sample (invented data)", "url": f"{PROJECT_URL}/tree/main/sample_data"}
    out = []
    for result in task_results(data):
        if result["status"] not in SHOWN:  # a number that is not whole never enters the model-index
            continue
        task = get_task(result["task"])
        folds = result["folds"]
        for row in score_rows(result):
            out.append(EvalResult(
                task_type=TASK_TYPES[task.kind], task_name=task_title(task), dataset_type=dataset,
                dataset_name=DATASET_TITLE + (" (embedded sample, not benchmark data)" if sample else ""),
                dataset_config=result["configs"][0], dataset_split=result["split"],
                dataset_revision=data["dataset"].get("revision"),
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
    for result in task_results(data):
        task = get_task(result["task"])
        configs = ", ".join(f"`{c}`" for c in result["configs"])
        for row in score_rows(result):
            ci = f"{_fmt(row.ci_low)} – {_fmt(row.ci_high)}" if row.ci_low is not None else "–"
            unparsed = f" ({result['n_unparsed']} unparsed)" if result["n_unparsed"] else ""
            unparsed += f" ({result['n_failed']} failed)" if result["n_failed"] else ""
            value = _fmt(row.value)
            if result["status"] not in SHOWN:
                value = f"{value} — {result['status']} ({result['status_reason']})"
            lines.append(f"| {task_title(task)} | {configs} ({result['split']}) | {row.label} (`{row.metric_type}`) "
                         f"| {value} | {ci} | {row.n if row.n is not None else result['n']}{unparsed} |")
        if result["status"] == NO_JUDGE:
            lines.append(f"| {task_title(task)} | {configs} ({result['split']}) | judged scores | no judge "
                         f"({result['status_reason']}) | – | – |")
    return "\n".join(lines)


def _limitations(data: dict[str, Any]) -> str:
    spec = data["model"]["spec"]
    entry = entry_of(spec)
    items = [entry.limitation if entry is not None and entry.limitation else OTHER_LIMITATION]
    for r in task_results(data):
        items += [f"{r['task']}: {d}" for d in r["deviations"]]
    items.append("Items that share a cartoon are not independent, and intervals are bootstrap percentile intervals "
                 "over items (contests for win rates), so they may be narrow.")
    if data["dataset"]["sample"]:
        items.append("Sample data: invented content, a few items per task. The figures carry no information about "
                     "the system's ability.")
    items += data.get("notes", [])
    return "\n".join(f"- {item}" for item in items)


def _how(data: dict[str, Any]) -> str:
    if not data.get("commands"):
        source = (data.get("extra") or {}).get("source") or {"name": "?", "url": PROJECT_URL}
        return f"Not run by nycc-bench: the figures are as reported by [{source['name']}]({source['url']})."
    return (f"With nycc-bench installed (`pip install nycc-bench=={__version__}`), in this order:\n\n"
            "```bash\n"
            + "\n".join(data["commands"]) + "\n```")


def _provenance(data: dict[str, Any], results_name: str) -> str:
    prompts = ", ".join(sorted({f"`{r['prompt_version']}`" for r in task_results(data)}))
    dataset = data["dataset"]
    revision = f" at revision `{dataset['revision']}`" if dataset.get("revision") else ""
    fingerprint = f" (parquet fingerprint `{dataset['fingerprint']}`)" if dataset.get("fingerprint") else ""
    model = data["model"]
    model_rev = f" (revision `{model['revision']}`)" if model.get("revision") else ""
    env = data.get("environment") or {}
    libs = ", ".join(f"{k} {v}" for k, v in env.items() if v and k != "platform")
    return (f"- System: `{model['spec']}`{model_rev}\n- Dataset scored: `{dataset['name']}`{revision}{fingerprint}\n"
            f"- Prompt versions: {prompts}\n- Environment: {libs}\n"
            f"- nycc-bench {data['nycc_bench_version']}; results record `{results_name}` "
            f"(schema `{data['schema']}`), from which this card is generated")


def _citations(data: dict[str, Any]) -> str:
    keys = dict.fromkeys(get_task(r["task"]).family for r in task_results(data))
    return "```bibtex\n" + "\n\n".join(families()[k].bibtex for k in keys) + "\n```"


def render_card(data: dict[str, Any], namespace: str = NAMESPACE, template: Path = TEMPLATE,
                results_name: str = "") -> ModelCard:
    """The model card of one (validated) results file, with nothing private in it (`public.py`)."""
    data = public_record(data)
    spec, name = data["model"]["spec"], data["model"].get("title") or data["model"]["name"]
    dataset = dataset_id(namespace)
    types = sorted({row.metric_type for r in task_results(data) for row in score_rows(r)})
    ours = is_ours(spec)
    tags = ["nycc-bench", "humor", "new-yorker-caption-contest", "baseline" if ours else "evaluation-card"]
    card_data = ModelCardData(
        model_name=name, eval_results=eval_results(data, dataset), base_model=base_model(spec),
        datasets=[dataset], metrics=[f"{namespace}/{m}" for m in types], license="apache-2.0" if ours else None,
        language=["en"], tags=tags + (["sample-data"] if data["dataset"]["sample"] else []))
    source = (data.get("extra") or {}).get("source")
    if data["dataset"]["sample"]:
        banner = SAMPLE_BANNER
    elif source:
        banner = f"> Figures as reported by [{source['name']}]({source['url']}), not re-run here."
    else:
        banner = f"> Scores on `{dataset}` computed with nycc-bench {data['nycc_bench_version']}."
    body = Template(Path(template).read_text(encoding="utf-8")).substitute(
        title=f"{name} on the {DATASET_TITLE}" + ("" if ours else " (evaluation card)"),
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


def make_cards(results_dir: str | Path, out_dir: str | Path, systems: Sequence[str] | None = None,
               source: str = "sample", work: str | Path | None = None, namespace: str = NAMESPACE) -> list[Path]:
    """`nycc-bench cards`: with `systems`, first evaluate each on the tasks it answers (`baselines.run_baselines`,
    judged by the offline judges: the sample's by name, else the default judges, trained on the public data of
    the source first if they are not here yet) into
    `<results_dir>/<slug>.json`; then a card per results record."""
    if systems:
        import tempfile

        from ..baselines import placeholders, run_baselines
        from ..builders import build_dataset
        from ..building import resolve_source
        from ..offline_judges import default_judges, sample_judges
        from ..results import write_results
        from ..sample_judges import public_judges_trained, train_public_judges

        with tempfile.TemporaryDirectory() as tmp:
            root = Path(work) if work else Path(tmp)
            roots = resolve_source(source, progress=False)
            dataset = root / "dataset"
            build_dataset(roots, dataset, progress=False)
            rubric = any((r / "humorbench_reubennarad" / "rubric").is_dir() for r in roots)
            if source != "sample" and rubric and not public_judges_trained():
                train_public_judges([str(r) for r in roots], progress=False)  # the judges of the real data's cards
            judges = sample_judges() if source == "sample" else default_judges()[0] if rubric else None
            for run in run_baselines(dataset, root / "runs", judges, systems, run_id=slug):
                write_results(Path(results_dir) / f"{run.run_id}.json",
                              placeholders(run.record, dataset, root / "runs", source))
    return write_cards(results_dir, out_dir, namespace)
