"""Hessel et al. 2023 kinds: the `hessel` builder (upstream's GPT-3.5/4 chats from description, or our
from-pixels prompt), upstream's reply readers (`hessel_answer`, `hessel_explanation`) and the `explanation` scorer."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import NyccBenchError
from ..images import source_images
from ..tasks.definition import Task
from .descriptions import row_description
from .parsing import marked_letter
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


def _entity_title(link: str) -> str:
    """A Wikipedia link as upstream names the entity in its prompts (`format_chatgpt_input`): the page title after
    /wiki/ with its anchor, `&redirect=no` and "(disambiguation)" removed, `%27s` replaced by an apostrophe (the
    "s" is dropped, as upstream drops it), underscores as spaces and runs of spaces squeezed."""
    link = link.split("#")[0].replace("&redirect=no", "").replace("https://en.wikipedia.org/?title=", "/wiki/")
    title = link.split("/wiki/", 1)[1] if "/wiki/" in link else link
    title = title.replace("%27s", "'").replace("(disambiguation)", "").replace("_", " ")
    return " ".join(title.split())


def hessel_description(task: Task, row: Mapping[str, Any]) -> str:
    """The cartoon as upstream's GPT-3.5/4 baselines describe it (scene location, description, uncanny
    description, entities: `format_chatgpt_input` mode 4, the paper's)."""
    return render(task, "description", location=row["image_location"], description=row["image_description"],
                  uncanny=row["image_uncanny_description"],
                  entities=", ".join(_entity_title(e) for e in row["entities"]))


def draw_hessel_shots(test_rows: Any, train_rows: Any, shots: int, seed: int) -> list[list[int]]:
    """Upstream's worked examples for every test item, as train row indices (gpt4_from_description.py).

    numpy's RandomState(seed) (upstream: `np.random.seed(2)`) shuffles the test split's order; then, for each item
    in that order, it picks `shots` distinct train contests (contest numbers sorted) without replacement and one
    train row of each, in that order. So each item has examples from `shots` different contests, redrawn per item,
    and the draw is upstream's own for the same rows (until upstream draws a random letter for an unreadable reply
    from the same stream, which moves its later draws).
    """
    import numpy as np

    by_contest: dict[int, list[int]] = {}
    for k, number in enumerate(train_rows["contest_number"]):
        by_contest.setdefault(number, []).append(k)
    contests = sorted(by_contest)
    if shots > len(contests):
        raise NyccBenchError(f"shots: {shots} examples from distinct contests asked for, but the train split has "
                             f"{len(contests)} contests; pass fewer shots or a larger dataset")
    rng = np.random.RandomState(seed)
    order = list(range(len(test_rows)))
    rng.shuffle(order)
    out: list[list[int]] = [[] for _ in order]
    for k in order:
        picked = [contests[c] for c in rng.choice(len(contests), size=shots, replace=False)]
        out[k] = [by_contest[c][rng.choice(len(by_contest[c]))] for c in picked]
    return out


def _hessel_pixels_chat(task: Task, row: Mapping[str, Any], prompt: str) -> tuple[str | None, list, str]:
    """(system, earlier turns, last user text) from pixels: upstream's zero-shot vision chats (`litellm`: its
    lite_llm_leaderboard script, system / user / assistant; `gpt4v`: its GPT-4V script, whose third message is a
    second system message), the captions filled into the last turn's text, which the image follows; or (`nycc`)
    this benchmark's one-turn instruction."""
    if prompt == "nycc":
        return None, [], _hessel_pixels(task, row)
    if prompt == "gpt4v" and len(task.letters) != 5:
        raise NyccBenchError(f"task-option: {task.name}.prompt=gpt4v: upstream's GPT-4V script has a matching prompt "
                             "only; use litellm (upstream's) or nycc")
    middle = "system" if prompt == "gpt4v" else "assistant"
    turns = [{"role": "user", "content": render(task, f"{prompt}_user")},
             {"role": middle, "content": render(task, f"{prompt}_assistant")}]
    return (render(task, f"{prompt}_system"), turns,
            render(task, f"{prompt}_query", **dict(zip(task.letters, row["caption_choices"], strict=True))))


def _hessel_pixels(task: Task, row: Mapping[str, Any]) -> str:
    """From pixels: our instruction, the captions (or the caption to explain), then "Answer:"/"Explanation:"."""
    choices = row["caption_choices"]
    body = (f"Caption: {choices}" if isinstance(choices, str)
            else "\n".join(f"{task.letters[i]}: {c}" for i, c in enumerate(choices)))
    tail = "Answer:" if task.kind == "choice" else "Explanation:"
    return f"{render(task, 'instruction')}\n\n{body}\n{tail}"


def _hessel_fields(task: Task, row: Mapping[str, Any]) -> dict[str, str]:
    """The placeholders of upstream's query and worked-example templates for one row."""
    choices = row["caption_choices"]
    return {"description": hessel_description(task, row),
            "choices": "\n".join(f"{letter}: {c}" for letter, c in zip(task.letters, choices, strict=False))
            if not isinstance(choices, str) else "",
            "caption": choices if isinstance(choices, str) else ""}


def _hessel_chat(task: Task, row: Mapping[str, Any], examples: list[Mapping[str, Any]]) -> tuple[str, list, str]:
    """(system, earlier turns, last user turn) of upstream's chat: zero-shot with chain of thought, or few-shot
    with direct answers (`generate_request_*` and `generate_request_*_few_shot`)."""
    if not examples:
        return (render(task, "system"),
                [{"role": "user", "content": render(task, "instruction")},
                 {"role": "assistant", "content": render(task, "acknowledgement")}],
                render(task, "query", **_hessel_fields(task, row)))
    after = render(task, "next")
    turns: list[dict[str, str]] = []
    for k, example in enumerate(examples):
        prefix = render(task, "instruction_direct") if k == 0 else after
        turns += [{"role": "user", "content": render(task, "shot", prefix=prefix, **_hessel_fields(task, example))},
                  {"role": "assistant", "content": render(task, "shot_answer", label=example["label"])}]
    return render(task, "system_direct"), turns, render(task, "shot", prefix=after, **_hessel_fields(task, row))


def _text_only(rows: Any) -> Any:
    """The rows without their image column (the prompts read the image from `source_images`, if at all): a
    from-description task never decodes a cartoon."""
    return rows.remove_columns("image") if "image" in rows.column_names else rows


@register_builder("hessel")
def build_hessel(task: Task, rows: Any, split_rows: Callable[[str], Any], options: Mapping[str, Any]) -> Built:
    """Hessel matching / ranking / explanation. From description: upstream's GPT-3.5/4 chats (zero-shot with chain
    of thought, or `shots` worked examples drawn as upstream draws them); from pixels: our instruction and the item."""
    shots, seed = int(options.get("shots", 0)), options.get("seed", 2)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise NyccBenchError(f"task-option: {task.name}.seed must be a non-negative integer, got {seed!r}")
    if shots and task.from_pixels:
        raise NyccBenchError(f"shots: few-shot prompts exist for the from-description tasks, not {task.name}")
    train = _text_only(split_rows("train")) if shots else None
    drawn = draw_hessel_shots(rows, train, shots, seed) if shots else [[] for _ in range(len(rows))]
    images = source_images(rows) if task.from_pixels else [None] * len(rows)  # the stored JPEG bytes kept
    out: list[Instance] = []
    for row, picked, image in zip(_text_only(rows), drawn, images, strict=True):
        choices = row["caption_choices"]
        common = {"instance_id": row["instance_id"], "choices": choices if isinstance(choices, list) else [choices],
                  "letters": task.letters,
                  "reference": {"label": row.get("label"), "winner_source": row.get("winner_source"),
                                "contest_number": row.get("contest_number"),
                                "description": row_description(row),
                                "caption": choices if isinstance(choices, str) else None}}
        if task.from_pixels:  # the system sees the image only, so no description for similarity baselines
            system, turns, user = _hessel_pixels_chat(task, row, options.get("prompt") or "nycc")
            out.append(Instance(system=system, turns=turns, user=user, image=image, **common))
            continue
        system, turns, user = _hessel_chat(task, row, [train[k] for k in picked])
        out.append(Instance(system=system, turns=turns, user=user, context=row_description(row), **common))
    return Built(out)


# ---- upstream's reading of GPT-3.5/4 replies (jmhessel/caption_contest_corpus, gpt4/) ------------------------------

def parse_hessel_answer(text: str | None, letters: str = "ABCDE") -> str | None:
    """A reply's letter as upstream reads it (`extract_prediction_from_response`): the reply must contain
    "Answer: X" for exactly one X of A-E (a plain substring test, case-sensitive; "Final Answer: B" counts).

    The letter is returned even when it is not one of the task's `letters` (a ranking reply "Answer: C"), as
    upstream does; it then scores as wrong.

    >>> parse_hessel_answer("Caption C fits the vending machine best. Answer: C")
    'C'
    >>> parse_hessel_answer("Answer: A or Answer: B, hard to say") is None
    True
    >>> parse_hessel_answer("answer: c") is None
    True
    """
    return marked_letter(text, "Answer: ") if text else None


register_parser("hessel_answer")(parse_hessel_answer)


_CLOSING = (r"(?:My final answer is|I finally choose|In conclusion, [^.!?]*answer is)",
            r"(?:Therefore|Thus|So|Hence|Ultimately),\s+(?:the answer is|I choose|I select)")


def parse_litellm_answer(text: str | None, letters: str = "ABCDE") -> str | None:
    r"""A reply's letter as upstream's lite_llm_leaderboard script reads it (`extract_answer`, L101-134): the first
    "Final Answer: X" anywhere; else, in the last paragraph (after the last blank line), a closing "Answer: X"
    (at the start or after a sentence end, then at most a final punctuation mark); else a closing "My final answer
    is X" / "Therefore, the answer is X" and the like. None where upstream falls back to its default letter (the
    task's option `unparsed` gives it, and the item is counted as unparsed).

    >>> parse_litellm_answer("Reasoning... Final Answer: C. Though B is close.")
    'C'
    >>> parse_litellm_answer("B fits best.\n\nAnswer: B")
    'B'
    >>> parse_litellm_answer("Answer: B is my pick.") is None
    True
    >>> parse_litellm_answer("I weighed both. Thus, I choose A.", "AB")
    'A'
    """
    if not text:
        return None
    valid = "[" + re.escape(letters) + "]"
    if found := re.search(f"Final Answer: ({valid})", text):
        return found.group(1)
    last = text.split("\n\n")[-1] if "\n\n" in text else text
    for lead in ("Answer:\\s*", *(c + "\\s+" for c in _CLOSING)):
        if found := re.search(f"(?:^|[.!?]\\s+){lead}({valid})(?:\\s*[.!?]?)?$", last):
            return found.group(1)
    return None


register_parser("litellm_answer")(parse_litellm_answer)


@register_parser("hessel_explanation")
def parse_hessel_explanation(text: str | None, letters: str = "") -> str | None:
    """An explanation as upstream reads it (`extract_explanation_from_response`): a few markers ("Here's my best
    explanation:", "Step 3: Explanation -", "Summary:", "explanation:") become "Explanation:", and the text between
    the first "Explanation:" and the next one, whitespace squeezed, is the explanation; a reply without the marker
    is kept whole. An empty reply is None (unparsed).

    >>> parse_hessel_explanation("Step by step... Explanation: The   doctor bills per snack.")
    'The doctor bills per snack.'
    >>> parse_hessel_explanation("Here's my best explanation: A pun on B4.")
    'A pun on B4.'
    >>> parse_hessel_explanation("No marker here.")
    'No marker here.'
    """
    if not text:
        return None
    for marker in ("Here's my best explanation:", "Step 3: Explanation -", "Summary:", "explanation:"):
        text = text.replace(marker, "Explanation:")
    parts = text.split("Explanation:")
    return " ".join(parts[1].split()) if len(parts) > 1 else (text or None)


@register_scorer("explanation")
def score_explanation(task: Task, instances: Sequence[Instance], preds: Sequence[Any], fold_ids: Sequence[int],
                      judge: Any, options: Mapping[str, Any], **_: Any) -> dict[str, Any]:
    """The task's metric (BLEU-4 / ROUGE-L against the annotated explanation) per fold, then the mean, and, with an
    LLM judge, the pairwise win rate (the judge run from its spec, so its dry run, timeout and batch settings
    hold; the metric's `judge_model` arguments are for callers of the metric). A fold with an empty explanation is
    left out whole (option `empty: skip_fold`, upstream's eval_crossval.py L115-121) and named in `skipped_folds`;
    when every fold would be left out, all are scored and a deviation says so."""
    from ..judge.protocols.explanation_pairwise import explanation_win_rate
    from ..judging import explanation_judgments
    from ..metrics import compute_metric

    given = list(instances)  # the judged verdicts come back per given instance, skipped folds included
    skipped = sorted({f for f, p in zip(fold_ids, preds, strict=True) if not p}) \
        if options.get("empty", "skip_fold") == "skip_fold" else []
    deviations = []
    if skipped and set(skipped) == set(fold_ids):
        deviations.append(f"Every fold has an empty explanation, so none was skipped (upstream's eval_crossval.py "
                          f"skips such folds and would report nothing); folds {skipped} are scored with empty text.")
        skipped = []
    if skipped:
        kept = [k for k, f in enumerate(fold_ids) if f not in skipped]
        instances, preds, fold_ids = [instances[k] for k in kept], [preds[k] for k in kept], [fold_ids[k] for k in kept]
        deviations.append(f"Folds {skipped} were left out of the average: each has an empty explanation (upstream's "
                          "eval_crossval.py L115-121 skips such a fold and reports no full cross-validation result).")
    args = metric_arguments(task, instances, [p or "" for p in preds])
    scores = compute_metric(task.metric, **args, folds=list(fold_ids), **task.metric_options)
    if judge is not None:
        records = explanation_judgments(judge, [i.reference["description"] for i in instances],
                                        [i.choices[0] for i in instances], args["predictions"], args["references"])
        scores["judge"] = {"judge": judge.name, **explanation_win_rate(records)}
        per_item: dict[int, list[dict[str, Any]]] = {}  # each order's verdict, for the run viewer
        for record in records:
            per_item.setdefault(id(instances[int(record["index"])]), []).append(
                {"model_position": record.get("model_position"), "verdict": record.get("verdict"),
                 "model_won": record.get("verdict") == record.get("model_position")})
        scores[ITEM_JUDGMENTS] = [per_item.get(id(i), []) for i in given]
    scores["skipped_folds"] = skipped
    if deviations:
        scores["deviations"] = deviations
    return scores


def leaderboard_config(task: Task, fold: int = 0) -> str:
    """The config of a task's Hessel leaderboard set (`--split leaderboard`): images and captions, no labels, no
    descriptions, as upstream ships it; only the from-pixels matching and ranking tasks can be prompted from it."""
    base = task.config.removesuffix("_from_pixels")
    if task.instances != "hessel" or base not in ("matching", "ranking") or fold:
        raise NyccBenchError(f"split: leaderboard sets exist for matching and ranking (fold 0), not {task.name}")
    if not task.from_pixels:
        raise NyccBenchError(f"split: the leaderboard sets give the cartoon image and captions only (no description, "
                             f"as upstream ships them); run {base}_from_pixels instead of {task.name}")
    return f"{base}_leaderboard"


HOOKS = register_hooks("hessel2023", leaderboard_config=leaderboard_config)
