"""The generic parsers of system outputs (`choice`, `captions`, `text`) and the one reading of replies; a
family's own parsers live in its module (`kinds/<family>.py`). An unparseable output is None, recorded and counted.

The parsers are pure. `read_replies` applies, for a task with the option `unparsed: random` (Hessel's, upstream's
scheme), the answer extractor when one is configured, else a seeded random letter, and for one with `unparsed:
default_letter` (the lite_llm_leaderboard scheme) the task's last letter; the record still marks either as unparsed.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import NyccBenchError
from ..predictions import FAILED, OK, UNPARSED
from ..tasks.definition import Task
from .loader import parsers
from .registry import register_parser, render, stable_seed

_ANSWER = re.compile(r"answer\s*(?:is|:)?\s*[:\-]?\s*\**\(?([A-Z])\b\)?", re.IGNORECASE)
_LEADING = re.compile(r"^\s*\**\(?([A-Z])\)?\**\s*(?:[).:\-]|$)")
_NUMBERED = re.compile(r"^\s*(?:\d{1,2}\s*[.):]|[-*•])\s*(.+)$")
_QUOTED = re.compile(r"^[\"“](.+?)[\"”]")


@register_parser("choice")
def parse_choice(text: str | None, letters: str) -> str | None:
    """The letter a reply chose, or None when it names none of `letters` unambiguously.

    >>> parse_choice("Answer: C", "ABCDE")
    'C'
    >>> parse_choice("I think the answer is (b).", "AB")
    'B'
    >>> parse_choice("C) Honey, the goldfish wants a word.", "ABCDE")
    'C'
    >>> parse_choice(" D ", "ABCDE")
    'D'
    >>> parse_choice("Answer: F", "ABCDE") is None
    True
    >>> parse_choice("Both captions are funny.", "AB") is None
    True
    """
    if not text:
        return None
    matches = [m.upper() for m in _ANSWER.findall(text)]
    if matches:
        return matches[-1] if matches[-1] in letters else None
    for line in text.strip().splitlines()[:1]:
        if (m := _LEADING.match(line)) and m.group(1) in letters:
            return m.group(1)
    return None


def parse_captions(text: str | None, n: int = 10) -> list[str]:
    """Up to `n` captions from a numbered or bulleted list, without their explanations.

    Each item's caption is its quoted text when it starts with a quote, else the text before an
    "Explanation" marker or a " - " separator.

    >>> parse_captions('1. "I said decaf." - The barista is a bear.\\n2. Not again. Explanation: it is Monday.')
    ['I said decaf.', 'Not again.']
    >>> parse_captions("no list here")
    []
    """
    out: list[str] = []
    for line in (text or "").splitlines():
        m = _NUMBERED.match(line)
        if not m:
            continue
        item = m.group(1).strip().replace("**", "")
        item = re.sub(r"^(?:caption\s*\d*\s*:)\s*", "", item, flags=re.IGNORECASE)
        if q := _QUOTED.match(item):
            caption = q.group(1)
        else:
            caption = re.split(r"\s*(?:\(?explanation\b|\s-\s|\s—\s)", item, maxsplit=1, flags=re.IGNORECASE)[0]
        caption = caption.strip().strip('"“”')
        if caption and not caption.lower().startswith("explanation"):
            out.append(caption)
        if len(out) == n:
            break
    return out


def first_line(text: str) -> str:
    """A one-caption generation as Zhang's Hugging Face runs keep it (`finetuning/save_results.py` L49-64):
    stripped, outer quotes removed, the first line, outer quotes removed again.

    >>> first_line(' "Not again."\nExplanation: it is Monday.')
    'Not again.'
    """
    cell = str(text).strip()
    while cell.startswith('"') and cell.endswith('"'):  # a lone '"' becomes "", as upstream's loop makes it
        cell = cell[1:-1].strip()
    cell = cell.split("\n", 1)[0]
    while cell.startswith('"') and cell.endswith('"'):
        cell = cell[1:-1].strip()
    return cell


def parse_samples(samples: list[str]) -> list[str]:
    """Captions from separate one-caption samples (upstream's Hugging Face runs): each sample's first line, an
    empty one kept as an empty caption, as upstream keeps it (its groups always have all their samples); no
    caption at all (every sample empty) is an empty list.

    >>> parse_samples(['"Decaf."\nThe bear ...', "", "Not again."])
    ['Decaf.', '', 'Not again.']
    >>> parse_samples(["", ' "" '])
    []
    """
    captions = [first_line(s) for s in samples]
    return captions if any(captions) else []


@register_parser("captions")
def parse_caption_list(text: str | list[str] | None, letters: str = "") -> list[str] | None:
    """The captions of a numbered list (`parse_captions`), or of separate samples (a list: `parse_samples`);
    None when there is none."""
    return (parse_samples(text) if isinstance(text, list) else parse_captions(text)) or None


@register_parser("text")
def parse_text(text: str | None, letters: str = "") -> str | None:
    """A free-text answer, stripped; None when empty."""
    return str(text).strip() or None if text is not None else None


# ---- an unreadable choice reply (Hessel et al. 2023: upstream's answer extractor, then a seeded letter) -----------

UPSTREAM_LETTERS = "ABCDE"  # upstream looks for these five in matching and ranking replies alike


def marked_letter(text: str, marker: str) -> str | None:
    """The one letter X of UPSTREAM_LETTERS for which `marker + X` occurs in the text; None for none or several."""
    found = [ch for ch in UPSTREAM_LETTERS if f"{marker}{ch}" in text]
    return found[0] if len(found) == 1 else None


def parse_extractor_reply(text: str | None) -> str | None:
    """The answer extractor's letter: "Final Answer: X" for exactly one X of A-E, else None (e.g. "Unknown").

    >>> parse_extractor_reply("Final Answer: D")
    'D'
    >>> parse_extractor_reply("Unknown") is None
    True
    """
    return marked_letter(text, "Final Answer: ") if text else None


def fallback_letter(instance_id: str, letters: str) -> str:
    """The random letter an unreadable reply gets (upstream's last resort), seeded by the instance id alone so
    every run, order and resume gives the same letter."""
    return random.Random(stable_seed("hessel-unparsed", instance_id)).choice(letters)


def extractor_messages(task: Task, reply: str) -> list[dict[str, str]]:
    """Upstream's answer-extraction chat for one reply (`generate_parsing_answer_request`): its system message,
    its two worked examples, then the reply followed by "Please extract the final answer from the above text."."""
    messages = [{"role": "system", "content": render(task, "extractor_system")}]
    for example in json.loads(render(task, "extractor_examples")):
        messages += [{"role": "user", "content": render(task, "extractor_user", reply=example["reply"])},
                     {"role": "assistant", "content": example["answer"]}]
    return [*messages, {"role": "user", "content": render(task, "extractor_user", reply=reply)}]


def extractor_prompt_version(task: Task) -> str:
    """`hessel-extractor-<12 hex>`: from the extractor's prompt files, for the judge cache and the records."""
    joined = "".join(task.prompt_sha256[r] for r in ("extractor_system", "extractor_examples", "extractor_user"))
    return f"hessel-extractor-{hashlib.sha256(joined.encode()).hexdigest()[:12]}"


@dataclass(frozen=True)
class Extraction:
    """The answer extractor's verdict on one reply: its letter (None: it found none), its text, or a failure."""

    letter: str | None
    raw: str | None
    error: str | None = None


def extract_answers(task: Task, replies: Sequence[str], extractor: str, base_url: str | None = None,
                    cache_dir: str | None = None) -> list[Extraction]:
    """Ask the answer extractor (a judge spec: `gpt-3.5-turbo` as upstream, `openai:<model>`, `transformers:<path>`)
    to read each reply, through the judge engine (cached, concurrent, retried). Like upstream, nothing but the model
    and the messages is chosen (the engine's defaults: temperature 1, at most 1024 tokens). A call that still fails
    is an `Extraction` with `error` set; a bad key or unknown model raises `FatalJudgeError`."""
    from ..judge import build_generation_jobs
    from ..judging import JudgeSpec
    from ..llm import run_jobs

    spec = JudgeSpec.parse(extractor, base_url=base_url, cache_dir=cache_dir)
    if not spec.is_llm:
        raise NyccBenchError(f"task-option: {task.name}.extractor must be an LLM (a model name, openai:<model> or "
                             f"transformers:<path>), got {extractor!r}")
    if not replies:
        return []
    config = spec.config().replace(progress=False)
    jobs = build_generation_jobs([extractor_messages(task, r) for r in replies], config,
                                 prompt_version=extractor_prompt_version(task))
    out = []
    for record in run_jobs(jobs, config, desc="extract answers"):
        if record.get("error") or record.get("text") is None:
            out.append(Extraction(None, record.get("raw") or None, str(record.get("error") or "no reply")[:500]))
        else:
            out.append(Extraction(parse_extractor_reply(record["text"]), record["text"]))
    return out


@dataclass(frozen=True)
class Reading:
    """How one received reply becomes a prediction.

    `status` is `ok` when the task's parser read the reply, `unparsed` when it could not (counted in n_unparsed
    whatever happened next) and `failed` when the answer extractor's call failed (retried by the next run, like a
    system's failure). `answer_source` says where the scored prediction came from: `parser`, `extractor` (its
    "Final Answer: X"), `random` (the seeded letter), `default` (upstream's default letter) or None (no prediction:
    scored as wrong).
    """

    prediction: Any
    status: str
    answer_source: str | None
    extractor_raw: str | None = None
    error: str | None = None

    def fields(self) -> dict[str, Any]:
        """The predictions-record fields of this reading (beside instance_id, raw, prompt_version, system)."""
        out: dict[str, Any] = {"status": self.status, "prediction": self.prediction,
                               "answer_source": self.answer_source}
        if self.extractor_raw is not None:
            out["extractor_raw"] = self.extractor_raw
        if self.error is not None:
            out["error"] = self.error
        return out


def read_replies(task: Task, items: Sequence[tuple[Any, str | list[str] | None]],
                 options: Mapping[str, Any] | None = None, cache_dir: str | None = None) -> list[Reading]:
    """Read a batch of received replies, `(instance, raw text)` each, into predictions: the task's parser first;
    for a choice task with the option `unparsed: random` (Hessel's scheme, upstream's), an unreadable reply then
    goes to the answer extractor when the option `extractor` names one, and, when that finds no letter either (or
    none is set), gets `fallback_letter`. Tasks without that option keep an unreadable reply as None.

    The runner calls this once per batch, between the system's outputs and the records it writes (outputs that
    carry a letter or an error do not come here)."""
    options = options or {}
    parse = parsers()[options.get("parser") or task.parser]  # a task option `parser` overrides the task file's
    readings: list[Reading | None] = [None] * len(items)
    pending: list[int] = []
    for k, (inst, raw) in enumerate(items):
        prediction = parse(raw if isinstance(raw, str | list) else None, inst.letters)  # list: separate samples
        if prediction is not None:
            readings[k] = Reading(prediction, OK, "parser")
        elif task.kind == "choice" and options.get("unparsed") == "random":
            pending.append(k)
        elif task.kind == "choice" and options.get("unparsed") == "default_letter":  # upstream's last letter
            readings[k] = Reading(inst.letters[-1], UNPARSED, "default")
        else:
            readings[k] = Reading(None, UNPARSED, None)
    asked = [k for k in pending if isinstance(items[k][1], str)] if options.get("extractor") else []
    extracted = dict(zip(asked, extract_answers(task, [items[k][1] for k in asked], options["extractor"],
                                                options.get("extractor_base_url"), cache_dir), strict=True)) \
        if asked else {}
    for k in pending:
        inst = items[k][0]
        got = extracted.get(k)
        if got is not None and got.error is not None:
            readings[k] = Reading(None, FAILED, None, got.raw, f"answer extractor: {got.error}")
        elif got is not None and got.letter is not None:
            readings[k] = Reading(got.letter, UNPARSED, "extractor", got.raw)
        else:
            readings[k] = Reading(fallback_letter(inst.instance_id, inst.letters), UNPARSED, "random",
                                  got.raw if got is not None else None)
    return [r for r in readings if r is not None]
