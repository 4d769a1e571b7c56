"""Texts that are not captions or explanations, played against a judge: every case must lose against every human
group (Zhang's group comparison, both orders) and fail every HumorBench element. `nycc-bench judges stress` runs
them on any judge; the tests hold the offline judges to it. The cases are original and made here, deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from .errors import NyccBenchError
from .groups import HUMAN_GROUPS, LABELS
from .judging import JudgeSpec, element_judgments, group_judgments

GROUP_SIZE = 10
_CONSONANTS = "bcdfghjklmnpqrstvwxz"
_LONG_WORDS = ("the committee", "considered", "every", "possible", "arrangement", "of", "chairs", "lamps", "rugs",
               "before", "deciding", "that", "nothing", "in", "this", "room", "could", "ever", "be", "moved", "again",
               "without", "a", "formal", "vote", "and", "written", "notice", "to", "all", "tenants", "upstairs")


def _random_consonants(rng: random.Random) -> str:
    return " ".join("".join(rng.choice(_CONSONANTS) for _ in range(rng.randint(4, 7))) for _ in range(6))


def _byte_garbage(rng: random.Random) -> str:
    return bytes(rng.randrange(256) for _ in range(48)).decode("latin-1")


def _far_too_long(rng: random.Random) -> str:
    return " ".join(rng.choice(_LONG_WORDS) for _ in range(400))


def _prompt_copy(_: random.Random) -> str:
    from .textcheck import prompt_references

    words = max(prompt_references(), key=len).split()
    return " ".join(words[len(words) // 2:len(words) // 2 + 30])  # thirty words from the middle of the longest


# name -> (what it is, a maker of one text from a seeded generator and the item's own texts)
CASES: dict[str, tuple[str, Callable[[random.Random, Sequence[str]], str]]] = {
    "random_consonants": ("random consonant strings", lambda rng, _: _random_consonants(rng)),
    "byte_garbage": ("random bytes read as Latin-1", lambda rng, _: _byte_garbage(rng)),
    "prompt_copy": ("thirty words of one of the package's prompts", lambda rng, _: _prompt_copy(rng)),
    "description_copy": ("the cartoon's description", lambda _, own: own[0] if own and own[0] else "—"),
    "one_word_repeated": ("one word, twelve times", lambda *_: " ".join(["banana"] * 12)),
    "empty": ("the empty string", lambda *_: ""),
    "far_too_long": ("400 words of filler", lambda rng, _: _far_too_long(rng)),
    "other_language": ("a French sentence", lambda *_: "Je vous avais bien dit que le chien ne devait jamais "
                                                      "monter sur le canapé du salon."),
    "news_sentence": ("a fluent news sentence", lambda *_: "The county board approved a revised transit budget on "
                                                          "Tuesday after nearly four hours of public comment."),
    "recipe_line": ("a recipe line", lambda *_: "Fold two cups of flour into the melted butter and bake for "
                                               "twenty five minutes at 350 degrees."),
}


def case_texts(case: str, own: Sequence[str], seed: int, n: int = 1) -> list[str]:
    """`n` texts of one case for one item (`own`: its description, then its caption), seeded."""
    if case not in CASES:
        raise NyccBenchError(f"case: no stress case {case!r}; known: {', '.join(CASES)}")
    rng = random.Random(f"{case}:{seed}")
    return [CASES[case][1](rng, own) for _ in range(n)]


def _description(row: dict[str, Any]) -> Any:
    """What the group judge sees (as the caption task gives it): Hessel's (canny, uncanny) pair, else the
    one-sentence description, else None."""
    if row.get("image_description"):
        return (row["image_description"], row.get("image_uncanny_description") or "")
    return row.get("description") or None


def caption_stress(judge: JudgeSpec, dataset: str, cases: Sequence[str] = tuple(CASES), n_contests: int = 5,
                   protocol: str = "overall") -> dict[str, Any]:
    """Each case's ten-caption group against every human group of the first `n_contests` held-out contests with
    all groups: {case: {group: {"wins", "n"}}}; a judge that is not fooled has 0 wins everywhere."""
    from .kinds.instances import load_split

    rows = [r for split in ("test", "validation") for r in load_split(dataset, "caption_generation", split)
            .remove_columns("image")]
    rows = sorted((r for r in rows if all(r.get(g) for g in HUMAN_GROUPS) and _description(r)),
                  key=lambda r: r["contest_number"])
    rows = rows[:n_contests]
    if not rows:
        raise NyccBenchError(f"dataset: {dataset} has no held-out caption_generation contest with every human group "
                             "and a description; build the dataset with its caption_generation config")
    contests = [int(r["contest_number"]) for r in rows]
    descriptions = [_description(r) for r in rows]
    groups = {g: [list(r[g]) for r in rows] for g in HUMAN_GROUPS}
    out: dict[str, Any] = {}
    for case in cases:
        model = [case_texts(case, [d if isinstance(d, str) else d[0]], c, GROUP_SIZE)
                 for c, d in zip(contests, descriptions, strict=True)]
        records = group_judgments(judge, model, groups, contests, descriptions, protocol)
        out[case] = {g: {"wins": sum(_model_won(r, judge.threshold) for r in records if r.get("human_group") == g),
                         "n": sum(r.get("human_group") == g for r in records)} for g in HUMAN_GROUPS}
    return out


def verdict_of(record: dict[str, Any], threshold: float | None = None) -> str:
    """A group judgment's verdict as the win rate reads it: the given one, else Overall's recalibrated log-probs."""
    from .scoring.win_rate import THRESHOLD, recalibrate

    if record.get("verdict"):
        return str(record["verdict"])
    if record.get("delta_logprob") is None:
        return "ERROR"
    return recalibrate(record["delta_logprob"], THRESHOLD if threshold is None else threshold)


def _model_won(record: dict[str, Any], threshold: float | None = None) -> bool:
    return verdict_of(record, threshold) == record.get("model_position")


def element_stress(judge: JudgeSpec, dataset: str, cases: Sequence[str] = tuple(CASES),
                   n_items: int = 5) -> dict[str, Any]:
    """Each case as the explanation of the first `n_items` HumorBench captions, graded on every element:
    {case: {"passes", "n"}}; a grader that is not fooled passes none."""
    from .kinds.instances import load_split

    table = load_split(dataset, "humorbench", "test")
    rows = [table[i] for i in range(min(n_items, len(table)))]
    if not rows:
        raise NyccBenchError(f"dataset: {dataset} has no humorbench rows; build the dataset with its humorbench config")
    out: dict[str, Any] = {}
    for case in cases:
        descriptions, captions, elements, explanations = [], [], [], []
        for i, row in enumerate(rows):
            text = case_texts(case, [str(row["description"]), str(row["caption"])], i)[0]
            for element in _elements(row):
                descriptions.append(str(row["description"]))
                captions.append(str(row["caption"]))
                elements.append(element)
                explanations.append(text)
        records = element_judgments(judge, descriptions, captions, elements, explanations)
        out[case] = {"passes": sum(r.get("verdict") == "PASS" for r in records), "n": len(records)}
    return out


def _elements(row: dict[str, Any]) -> list[str]:
    value = row.get("elements") or row.get("element")
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def stress(judge: JudgeSpec, dataset: str, cases: Sequence[str] | None = None, n: int = 5,
           protocol: str = "overall") -> dict[str, Any]:
    """Both halves a judge plays (a caption judge: groups; an element grader: elements); `fooled` lists every
    case that won a comparison or passed an element."""
    cases = list(cases or CASES)
    for case in cases:
        case_texts(case, [""], 0)  # an unknown name is one line naming the known ones
    report: dict[str, Any] = {"judge": judge.name, "dataset": dataset, "cases": {c: CASES[c][0] for c in cases}}
    if judge.backend != "embedding":
        report["captions"] = caption_stress(judge, dataset, cases, n, protocol)
    if judge.backend != "reward":
        report["elements"] = element_stress(judge, dataset, cases, n)
    report["fooled"] = sorted(
        {c for c, by in report.get("captions", {}).items() if any(v["wins"] for v in by.values())}
        | {c for c, v in report.get("elements", {}).items() if v["passes"]})
    return report


def stress_lines(report: dict[str, Any]) -> list[str]:
    """The report as a table: one row per case, wins / comparisons against each human group, passes / elements."""
    head = ["case", *(LABELS[g] for g in HUMAN_GROUPS if "captions" in report),
            *(["elements passed"] if "elements" in report else [])]
    lines = [f"judges stress: {report['judge']} on {report['dataset']}", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for case in report["cases"]:
        cells = [case]
        if "captions" in report:
            cells += [f"{v['wins']}/{v['n']} won" for v in report["captions"][case].values()]
        if "elements" in report:
            cells.append(f"{report['elements'][case]['passes']}/{report['elements'][case]['n']}")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("fooled by: " + (", ".join(report["fooled"]) or "nothing"))
    return lines
