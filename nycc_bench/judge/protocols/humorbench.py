"""HumorBench (Narad et al. 2025): the explainer and the element autograder, and its validation on human labels.

Entry points::

    explain_captions(descriptions, captions, config, *, samples=1) -> list[dict]
        # {"index", "sample", "explanation", "raw", "prompt_version", "error"}
    grade_elements(descriptions, captions, elements, explanations, config, last_k_tokens=None,
                   tokenizer=None) -> list[dict]
        # {"index", "verdict": "PASS"|"FAIL"|"ERROR", "reasoning", "graded_explanation", "raw",
        #  "prompt_version", "error"}
    load_rubric(paths) -> list[dict]                   # human-labelled rows, unlabelled ones skipped
    validate_autograder(paths, config, last_k_tokens=None, tokenizer=None, seed=0) -> dict
        # {"verdicts", "labels", "rows", "records", "n_skipped",
        #  "metrics": nycc_bench.scoring.validation_scores(...): accuracy, ci_low, ci_high, fpr, fnr, tp, fp, tn,
        #  fn, n, n_error}
    build_explainer_jobs(...), build_grader_jobs(...)  # for estimate_jobs(...) (dry run)

Prompts: appendices A and B of the paper, with the line breaks of the authors' ``prompts.py`` (the paper's
text run together; github.com/ReubenNarad/Humor-Bench, MIT licence, prompts reproduced as facts of the
protocol); each prompt is sent as the single user message, as upstream does, leading and trailing newline
included. Parsing follows upstream (``explainer.py``, ``autograder.py`` at cc99276): explanation =
:func:`nycc_bench.judge.parsers.parse_explanation` (``<reasoning>`` blocks removed, the first
``<explanation>`` block, else the whole reply; nothing truncated unless ``last_k_tokens`` is given); verdict =
inside ``<judgement>…</judgement>``, stripped, exactly PASS or FAIL, else ERROR, which leaves the denominator.

Defaults (the paper's setting): the autograder is GPT-4o (``gpt-4o-2024-08-06``, §3.5) called with no
sampling settings at all, as upstream's ``chat.completions.create(model, messages)`` (the API's defaults);
the explainer samples at an explicit temperature 1.0 (the paper: "all models had temperature set to 1";
upstream sends nothing, so the providers' default, 1) with ``max_tokens`` unset. A config's ``temperature``
or ``max_tokens`` overrides these and is named in the protocol settings' deviations.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ...llm.chat import ChatRequest, Completion
from ...llm.config import LLMConfig
from ...llm.engine import ERROR, Job, LLMEngine, Record, run_jobs
from ..parsers import parse_explanation, parse_judgement, parse_reasoning
from ..prompts import read_prompt
from . import judge_config, resolve_prompt_version, unset_max_tokens

log = logging.getLogger("nycc_bench.judge")

PROMPT_VERSION = "humorbench-v1"
KNOWN_VERSIONS: tuple[str, ...] = (PROMPT_VERSION,)
PAPER_GRADER_MODEL = "gpt-4o-2024-08-06"  # §3.5: "GPT-4o" refers to the gpt-4o-2024-08-06 release
EXPLAINER_TEMPERATURE = 1.0
EXPLAINER_MAX_TOKENS = 1024  # sent only while the engine cannot leave max_tokens unset (upstream sends none)
EXPLAINER_EXPECTED_TOKENS = 250
GRADER_TEMPERATURE: float | None = None  # not sent: the API's default, as upstream
GRADER_MAX_TOKENS = 512  # sent only while the engine cannot leave max_tokens unset (upstream sends none)
GRADER_EXPECTED_TOKENS = 120

EXPLAINER_PROMPT = read_prompt("humorbench-v1.explainer")  # appendix A
AUTOGRADER_PROMPT = read_prompt("humorbench-v1.autograder")  # appendix B


def explainer_prompt(description: str, caption: str) -> str:
    """Appendix A, filled in."""
    return EXPLAINER_PROMPT.format(description=description, caption=caption)


def autograder_prompt(description: str, caption: str, explanation: str, element: str) -> str:
    """Appendix B, filled in (the element is the "anticipated answer point")."""
    return AUTOGRADER_PROMPT.format(
        description=description, caption=caption, explanation=explanation, anticipated_point=element
    )


def truncate_last_k(text: str, k: int | None, tokenizer: Any = None) -> str:
    """Keep only the last ``k`` tokens of an explanation (HumorBench's length control).

    Without a tokenizer, tokens are whitespace-separated words and the kept ones are re-joined with single
    spaces; with one (anything with ``encode``/``decode``, e.g. a transformers tokenizer, as upstream used
    DeepSeek's), the last ``k`` ids of ``encode(text, add_special_tokens=False)`` are decoded. A text of at
    most ``k`` tokens, or ``k`` None, comes back unchanged.

    >>> truncate_last_k("one two  three\\nfour", 2)
    'three four'
    >>> truncate_last_k("short text", 5)
    'short text'
    """
    if k is None:
        return text
    if k < 0:
        raise ValueError("k must be non-negative")
    if tokenizer is None:
        words = text.split()
        return text if len(words) <= k else " ".join(words[len(words) - k :])
    try:
        ids = tokenizer.encode(text, add_special_tokens=False)
    except TypeError:
        ids = tokenizer.encode(text)
    return text if len(ids) <= k else tokenizer.decode(ids[len(ids) - k :])


def _explainer_parse(completion: Completion) -> dict[str, Any]:
    return {"explanation": parse_explanation(completion.text)}


def _grader_parse(completion: Completion) -> dict[str, Any]:
    return {"verdict": parse_judgement(completion.text), "reasoning": parse_reasoning(completion.text)}


def _check_lengths(**columns: Sequence[Any]) -> int:
    lengths = {name: len(values) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"inputs differ in length: {lengths}")
    return next(iter(lengths.values()), 0)


def build_explainer_jobs(
    descriptions: Sequence[str],
    captions: Sequence[str],
    config: LLMConfig | LLMEngine,
    *,
    samples: int = 1,
) -> list[Job]:
    """One explainer call per caption (and sample)."""
    n = _check_lengths(descriptions=descriptions, captions=captions)
    cfg = judge_config(config)
    version = resolve_prompt_version(config, KNOWN_VERSIONS)
    temperature = EXPLAINER_TEMPERATURE if cfg.temperature is None else cfg.temperature
    max_tokens = unset_max_tokens(EXPLAINER_MAX_TOKENS) if cfg.max_tokens is None else cfg.max_tokens
    jobs = []
    for i in range(n):
        for sample in range(samples):
            request = ChatRequest(
                messages=({"role": "user", "content": explainer_prompt(descriptions[i], captions[i])},),
                max_tokens=max_tokens,
                temperature=temperature,
                sample_index=sample,
            )
            jobs.append(
                Job(
                    request=request,
                    parse=_explainer_parse,
                    prompt_version=version,
                    meta={"index": i, "sample": sample},
                    failure={"explanation": None},
                    expected_output_tokens=EXPLAINER_EXPECTED_TOKENS,
                )
            )
    return jobs


def explain_captions(
    descriptions: Sequence[str], captions: Sequence[str], config: LLMConfig | LLMEngine, *, samples: int = 1
) -> list[Record]:
    """Run the HumorBench explainer (the system under test) on each caption."""
    return run_jobs(build_explainer_jobs(descriptions, captions, config, samples=samples), config, "explain")


def build_grader_jobs(
    descriptions: Sequence[str],
    captions: Sequence[str],
    elements: Sequence[str],
    explanations: Sequence[str],
    config: LLMConfig | LLMEngine,
    last_k_tokens: int | None = None,
    tokenizer: Any = None,
) -> list[Job]:
    """One autograder call per (caption, element, explanation) row."""
    n = _check_lengths(descriptions=descriptions, captions=captions, elements=elements, explanations=explanations)
    cfg = judge_config(config)
    version = resolve_prompt_version(config, KNOWN_VERSIONS)
    temperature = GRADER_TEMPERATURE if cfg.temperature is None else cfg.temperature
    max_tokens = unset_max_tokens(GRADER_MAX_TOKENS) if cfg.max_tokens is None else cfg.max_tokens
    jobs = []
    for i in range(n):
        graded = truncate_last_k(explanations[i], last_k_tokens, tokenizer)
        prompt = autograder_prompt(descriptions[i], captions[i], graded, elements[i])
        jobs.append(
            Job(
                request=ChatRequest(
                    messages=({"role": "user", "content": prompt},), max_tokens=max_tokens, temperature=temperature
                ),
                parse=_grader_parse,
                prompt_version=version,
                meta={"index": i, "graded_explanation": graded},
                failure={"verdict": ERROR, "reasoning": None},
                expected_output_tokens=GRADER_EXPECTED_TOKENS,
            )
        )
    return jobs


def grade_elements(
    descriptions: Sequence[str],
    captions: Sequence[str],
    elements: Sequence[str],
    explanations: Sequence[str],
    config: LLMConfig | LLMEngine,
    last_k_tokens: int | None = None,
    tokenizer: Any = None,
) -> list[Record]:
    """Grade each explanation against its element: PASS, FAIL or ERROR, in input order."""
    jobs = build_grader_jobs(descriptions, captions, elements, explanations, config, last_k_tokens, tokenizer)
    return run_jobs(jobs, config, desc="autograde")


def load_rubric(paths: str | Path | Iterable[str | Path]) -> tuple[list[dict[str, Any]], int]:
    """Human-labelled rows of HumorBench ``rubric/*.csv`` files (a folder, a file or several files).

    Columns ``idx,[cartoonstock_id,]contest_number,description,caption,element,explanation,explainer_model,
    explainer_family,label``. Rows with an empty label are skipped (``claude_rubric.csv`` has only those) and
    counted; a label other than PASS/FAIL is an error. ``contest_number`` becomes an int or None (files write
    ``2`` or ``2.0``); each row gains ``source`` (the file name). Returns (rows, n_skipped).
    """
    if isinstance(paths, (str, Path)):
        path = Path(paths)
        files = sorted(path.glob("*.csv")) if path.is_dir() else [path]
    else:
        files = [Path(p) for p in paths]
    rows: list[dict[str, Any]] = []
    skipped = 0
    for file in files:
        file_skipped = 0
        with open(file, newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                label = (row.get("label") or "").strip()
                if not label:
                    file_skipped += 1
                    continue
                if label not in ("PASS", "FAIL"):
                    raise ValueError(f"{file.name}: idx {row.get('idx')}: label {label!r} is not PASS/FAIL")
                contest = (row.get("contest_number") or "").strip()
                rows.append(
                    {
                        **row,
                        "label": label,
                        "contest_number": int(float(contest)) if contest else None,
                        "source": file.name,
                    }
                )
        if file_skipped:
            log.warning("%s: skipped %d row(s) with no human label", file.name, file_skipped)
        skipped += file_skipped
    return rows, skipped


def validate_autograder(
    paths: str | Path | Iterable[str | Path],
    config: LLMConfig | LLMEngine,
    last_k_tokens: int | None = None,
    tokenizer: Any = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Grade the human-labelled rubric rows with this judge and compare with the human labels
    (``nycc_bench.scoring.validation_scores``: accuracy with a bootstrap CI over captions, FPR, FNR, counts;
    PASS is positive, ERROR verdicts are left out and counted)."""
    from nycc_bench.scoring.autograder import validation_scores  # lazy: scoring imports heavy packages

    rows, skipped = load_rubric(paths)
    records = grade_elements(
        [r["description"] for r in rows],
        [r["caption"] for r in rows],
        [r["element"] for r in rows],
        [r["explanation"] for r in rows],
        config,
        last_k_tokens,
        tokenizer,
    )
    verdicts = [r["verdict"] for r in records]
    labels = [r["label"] for r in rows]
    return {
        "verdicts": verdicts,
        "labels": labels,
        "rows": rows,
        "records": records,
        "n_skipped": skipped,
        "metrics": validation_scores(verdicts, labels, [r["caption"] for r in rows], seed=seed),
    }
