"""Zhang et al. 2024's stored generations (`examples/generations/*.csv` at the pinned commit) as runs of
`caption_generation`: ten captions per held-out contest, read as upstream's pandas read them (an empty cell is
NaN, scored as "nan" by upstream's diversity.py), scored by the task's own scorer over the 91 held-out contests
(Average EAD, SBERT diversity; with a judge, the win rate against each human group), beside the share of captions
that copy a caption of the four published human groups."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..contests import ZHANG_HELD_OUT
from ..errors import NyccBenchError
from ..groups import HUMAN_GROUPS
from ..kinds import ITEM_JUDGMENTS, Instance, scorers
from ..reproducing.inputs import Inputs, zhang_file
from ..reproducing.zhang import EMPTY_AS_READ, STORED_GROUPS, TABLE6_ROWS, read_generations
from ..tasks.lookup import extract_scores
from .runs import PublishedRun, prediction_lines, provenance, published_task, status_fields

PAPER = "Zhang et al. 2024"
SCORER = "caption_groups"  # the task that scores ten captions a contest against the human groups
NO_DESCRIPTION = ("The judge saw no description of the cartoon: upstream's stored generation files hold none "
                  "beside the captions (its judge saw Hessel's annotations).")


def _human(inputs: Inputs) -> tuple[dict[int, dict[str, list[str]]], list[dict[str, str]]] | None:
    """The four published human groups per held-out contest and their files' provenance, or None if absent."""
    from ..builders.zhang2024 import read_zhang_groups

    paths = {group: inputs.file(zhang_file(stem)) for group, stem in STORED_GROUPS.items()}
    if any(p is None for p in paths.values()):
        return None
    found = {k: p for k, p in paths.items() if p is not None}
    return read_zhang_groups(found), [provenance(zhang_file(STORED_GROUPS[g]), p) for g, p in found.items()]


def _copies(captions: list[list[str]], contests: list[int], human: Mapping[int, Mapping[str, list[str]]]
            ) -> dict[str, Any]:
    """The share of generated captions equal (after the novelty check's normalisation) to a caption of the same
    contest's four published human groups; the contest's other submissions are not in the authors' repository."""
    from ..novelty.text import normalise

    count = n = 0
    for group, contest in zip(captions, contests, strict=True):
        seen = {normalise(c) for g in HUMAN_GROUPS for c in human[contest][g]}
        n += len(group)
        count += sum(normalise(c) in seen for c in group)
    return {"exact_published_groups": count / n if n else None, "count": count, "n": n,
            "against": "the 40 captions of the same contest's four published human groups (Zhang's human_*.csv)"}


def _instances(contests: list[int], human: Mapping[int, Mapping[str, list[str]]]) -> list[Instance]:
    """One instance per held-out contest, its references the four published human groups."""
    return [Instance(instance_id=str(c), user="", reference={
        "contest_number": c, **{g: human[c][g] for g in HUMAN_GROUPS}, "judge_description": "",
        "judge_description_source": None, "judge_image": None}) for c in contests]


NO_SBERT = "SBERT diversity not computed (--no-sbert)."


def zhang_runs(inputs: Inputs, judge: Any = None, sbert: bool = True, progress: bool = True
               ) -> tuple[list[PublishedRun], list[str]]:
    """Every Table 6 system (and human group) whose stored file is below the inputs, scored; and what is absent.
    `sbert=False` leaves SBERT diversity out (a named deviation): Average EAD and the rest are still scored. With
    SBERT, every distinct caption of every system is encoded once, in one batched pass, before any is scored."""
    task = published_task(SCORER)
    if not sbert:
        task = replace(task, metric_options={k: v for k, v in task.metric_options.items() if not k.startswith("sbert")})
    found = _human(inputs)
    if found is None:
        return [], [inputs.why(zhang_file(s)) for s in STORED_GROUPS.values() if inputs.file(zhang_file(s)) is None]
    human, human_files = found
    systems, absent = [], []
    for row, stem, ead_printed, sbert_printed in TABLE6_ROWS:
        if stem.startswith("human_"):
            group = next(g for g, s in STORED_GROUPS.items() if s == stem)
            by_contest = {c: human[c][group] for c in ZHANG_HELD_OUT}
            files = [f for f in human_files if f["path"].endswith(f"/{stem}.csv")]
            kind = "human"
        else:
            path = inputs.file(zhang_file(stem))
            if path is None:
                absent.append(inputs.why(zhang_file(stem)))
                continue
            by_contest = read_generations(path)
            files = [provenance(zhang_file(stem), path)]
            kind = "model"
        systems.append((row, stem, kind, by_contest, files, {"average_ead": ead_printed,
                                                             "sbert_diversity": sbert_printed}))
    encode_once(task, [c for system in systems for k, group in system[3].items() if k in ZHANG_HELD_OUT
                       for c in as_scored(group)], progress)
    runs = []
    for row, stem, kind, by_contest, files, printed in systems:
        run = _run(task, row, stem, kind, by_contest, human, files, judge, printed)
        if not sbert:
            run.entries[task.name]["config"]["deviations"].append(NO_SBERT)
        runs.append(run)
    return runs, absent


def as_scored(captions: list[str]) -> list[str]:
    """One contest's stored captions as upstream scored them: an empty cell is the text "nan"."""
    return [EMPTY_AS_READ if c == "" else c for c in captions]


def encode_once(task: Any, captions: list[str], progress: bool = True) -> None:
    """Put the SBERT embedding of each distinct caption into the embedding cache, in one batched encoding with a
    progress bar, so each system's SBERT diversity reads the cache (the captions encoded before are not encoded
    again). Nothing to do without an SBERT model; an encoder that cannot be loaded is left to the scorer, which
    records why SBERT diversity is absent."""
    import sys

    from ..scoring.sbert import cached, embed

    model = task.metric_options.get("sbert_model")
    if model is None:
        return
    distinct = list(dict.fromkeys(captions))
    if cached(distinct, model):
        return
    if progress:
        print(f"SBERT diversity ({model}): encoding the {len(distinct)} distinct captions of the published systems "
              "once (a later import reads them from the embedding cache)", file=sys.stderr)
    try:
        embed(distinct, model, batch_size=task.metric_options.get("sbert_batch_size", 64),
              device=task.metric_options.get("sbert_device"))
    except (OSError, ImportError, ValueError):
        return


def _run(task: Any, row: str, stem: str, kind: str, by_contest: Mapping[int, list[str]],
         human: Mapping[int, Mapping[str, list[str]]], files: list[dict[str, str]], judge: Any,
         printed: Mapping[str, str]) -> PublishedRun:
    """One stored file as a scored run of the held-out contests it covers."""
    from ..score import task_config

    contests = [c for c in ZHANG_HELD_OUT if c in by_contest]
    if not contests:
        raise NyccBenchError(f"source: {files[0]['path']} holds none of the {len(ZHANG_HELD_OUT)} held-out contests; "
                             "restore the file from the pinned commit")
    empty = sum(c == "" for k in contests for c in by_contest[k])
    captions = [as_scored(by_contest[k]) for k in contests]
    judged = judge if kind == "model" else None  # a human group is not judged against the human groups
    values = task.option_values()
    details = scorers()[task.scorer](task, _instances(contests, human), captions, [0] * len(contests), judged,
                                     values, dataset="")
    per_item = details.pop(ITEM_JUDGMENTS, None)
    details["novelty_published_groups"] = _copies(captions, contests, human)
    config = task_config(task, values, None, [0], task.split, judged,
                         judge_used=details.get("judge") if isinstance(details.get("judge"), Mapping) else None)
    config["deviations"] += details.pop("deviations", None) or []
    config["deviations"].append(f"Not generated by nycc-bench: {PAPER}'s stored outputs "
                                f"(examples/generations/{stem}.csv), imported with `nycc-bench import published`.")
    if judged is not None and getattr(judged, "is_llm", False):
        config["deviations"].append(NO_DESCRIPTION)
    entry: dict[str, Any] = {
        "config": config, "coverage": {"n": len(contests), "of": len(ZHANG_HELD_OUT), "partial": True,
                                       "why": "the held-out contests the published file covers"},
        "scores": extract_scores(task, details), "n": len(contests), "n_unparsed": 0, "n_failed": 0, "n_error": 0,
        "details": details, "predictions": []}
    entry.update(status_fields(task, entry, judged))
    notes = [f"{PAPER}, Table 6 row {row!r}: the authors' stored captions for the {len(contests)} of "
             f"{len(ZHANG_HELD_OUT)} held-out contests the file covers."]
    if empty:
        notes.append(f"{empty} empty caption cells read as {EMPTY_AS_READ!r}, as upstream's pandas read them and "
                     "its diversity.py scored them.")
    run = PublishedRun(run_id=f"zhang2024-{stem.lower().replace('_', '-')}", name=row, paper=PAPER,
                       entries={task.name: entry}, predictions={}, judged={}, files=files, judge=None,
                       notes=notes, extra={"published": {"kind": kind, "table": "Table 6", "row": row,
                                                         "printed": dict(printed)}})
    run.predictions[task.name] = prediction_lines(run, task, [(str(c), g) for c, g in zip(contests, captions,
                                                                                         strict=True)])
    if per_item is not None:
        run.judged[task.name] = {str(c): {"correct": None, "verdicts": v}
                                 for c, v in zip(contests, per_item, strict=True) if v}
    if judged is not None:
        run.judge = judged.describe()
    return run
