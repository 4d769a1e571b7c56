"""Hessel et al.'s leaderboard submissions: a JSON `{instance_id: letter}` for the hidden-label test sets.

Upstream (jmhessel/caption_contest_corpus README, "Leaderboard setting"): 830 matching instances (letters A-E) and
664 ranking instances (A or B) from `matching_test_set_public.zip` / `ranking_test_set_public.zip`; the labels are
hidden, so a submission is checked here (shape, letters, id set) and scored only by the leaderboard's server.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import NyccBenchError
from .kinds.hessel2023 import parse_hessel_answer
from .kinds.parsing import fallback_letter


@dataclass(frozen=True)
class Board:
    """One leaderboard: its task, valid letters, upstream's instance count and the config holding its instances."""

    task: str
    letters: str
    size: int
    config: str


BOARDS = {"matching": Board("matching", "ABCDE", 830, "matching_leaderboard"),
          "ranking": Board("ranking", "AB", 664, "ranking_leaderboard")}


def board(task: str) -> Board:
    """The leaderboard of a task name (`matching`, `ranking` or their `_from_pixels` forms)."""
    key = task.removesuffix("_from_pixels")
    if key not in BOARDS:
        raise NyccBenchError(f"task: {task!r} has no Hessel leaderboard; use matching or ranking")
    return BOARDS[key]


def check(data: Any, task: str, instance_ids: Iterable[str] | None = None) -> list[str]:
    """Every problem of a submission, one line each (empty: valid).

    Checks that it is a JSON object of string ids to one valid letter each; with `instance_ids` (the built
    leaderboard config), that it names exactly those ids.

    >>> check({"a": "A", "b": "F"}, "ranking", ["a", "b"])
    ["b: 'F' is not one of A, B"]
    >>> check({"a": "A"}, "ranking", ["a", "c"])
    ['1 of 2 instances lack a prediction (c); predict every instance of ranking_leaderboard']
    """
    spec = board(task)
    if not isinstance(data, dict):
        return [f"submission: a JSON object {{instance_id: letter}} is expected, not a {type(data).__name__}"]
    problems = []
    for key, value in data.items():
        if value not in tuple(spec.letters):
            problems.append(f"{key}: {value!r} is not one of {', '.join(spec.letters)}")
    if instance_ids is None and len(data) != spec.size:
        problems.append(f"{len(data)} predictions where upstream's {spec.task} set has {spec.size} instances; "
                        "predict every instance (pass --dataset to check the ids)")
    if instance_ids is not None:
        wanted = set(instance_ids)
        if missing := sorted(wanted - data.keys()):
            shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
            problems.append(f"{len(missing)} of {len(wanted)} instances lack a prediction ({shown}); predict "
                            f"every instance of {spec.config}")
        if extra := sorted(data.keys() - wanted):
            shown = ", ".join(extra[:3]) + (", ..." if len(extra) > 3 else "")
            problems.append(f"{len(extra)} ids are not in {spec.config} ({shown}); remove them or rebuild the "
                            "leaderboard config")
    return problems


class _Repeated(ValueError):
    """A JSON object that gives one key twice (a submission answering one instance twice)."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Repeated(key)
        out[key] = value
    return out


def read(path: str | Path) -> Any:
    """A submission file's JSON; an unreadable or malformed file, or one that answers an instance twice (JSON keeps
    the last answer silently), is one line naming it."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"), object_pairs_hook=_unique)
    except _Repeated as err:
        raise NyccBenchError(f"submission: {path} answers instance {err.args[0]!r} twice; keep one answer per "
                             "instance") from None
    except OSError as err:
        raise NyccBenchError(f"submission: cannot read {path} ({err.strerror})") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise NyccBenchError(f"submission: {path} is not JSON ({str(err).splitlines()[0]})") from None


def leaderboard_ids(dataset: str, task: str) -> list[str] | None:
    """The instance ids of a built leaderboard config, or None when the dataset lacks it."""
    from .kinds.instances import load_split

    try:
        rows = load_split(dataset, board(task).config, "test")
    except NyccBenchError:
        return None
    return list(rows["instance_id"])


@dataclass(frozen=True)
class FromResponses:
    """A submission built from raw replies, with the ids whose reply had no readable answer."""

    submission: dict[str, str]
    unparsed: list[str]


PARSERS = {"litellm": "upstream's lite_llm_leaderboard extract_answer (\"Final Answer: X\", else a closing "
                       "\"Answer: X\" in the last paragraph, else a closing phrase; else the default letter, E or B)",
           "gpt4v": "Hessel's gpt4/ answer reader (exactly one \"Answer: X\"; else a random letter seeded by the id)"}


def from_responses(records: Iterable[Mapping[str, Any]], task: str = "matching",
                   parser: str = "litellm") -> FromResponses:
    """Turn raw replies `{instance_id, response}` into a submission with one of upstream's two answer readers
    (`PARSERS`): `litellm` (lite_llm_leaderboard's, with its default letter E / B) or `gpt4v` (Hessel's
    "Answer: X" reader with a random letter seeded by the instance id, as the GPT-4V entry is read here). The two
    differ: on upstream's 830 GPT-4V matching replies they give other letters for 119. A reply neither reads is
    given that reader's last resort and its id is listed in `unparsed`. An id given twice is an error.

    >>> r = from_responses([{"instance_id": "x", "response": "I pick B. Answer: B"}], "ranking")
    >>> r.submission, r.unparsed
    ({'x': 'B'}, [])
    """
    from .kinds.hessel2023 import parse_litellm_answer

    if parser not in PARSERS:
        raise NyccBenchError(f"parser: unknown answer reader {parser!r}; use one of {', '.join(PARSERS)}")
    spec = board(task)
    out: dict[str, str] = {}
    unparsed = []
    for k, record in enumerate(records, start=1):
        if not isinstance(record, Mapping) or not isinstance(record.get("instance_id"), str) \
                or not isinstance(record.get("response"), str | None):
            raise NyccBenchError(f"responses: record {k} needs a string instance_id and response")
        iid = record["instance_id"]
        if iid in out:
            raise NyccBenchError(f"responses: record {k} repeats instance {iid}; keep one reply per instance")
        read = parse_litellm_answer if parser == "litellm" else parse_hessel_answer
        letter = read(record["response"], spec.letters)
        if letter is None or letter not in spec.letters:
            unparsed.append(iid)
            letter = spec.letters[-1] if parser == "litellm" else fallback_letter(iid, spec.letters)
        out[iid] = letter
    return FromResponses(out, unparsed)


def read_responses(path: str | Path) -> list[dict[str, Any]]:
    """The records of a JSONL file of raw replies (one JSON object per line; blank lines skipped)."""
    records = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise NyccBenchError(f"responses: cannot read {path} ({err.strerror})") from None
    for k, line in enumerate(lines, start=1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except ValueError:
                raise NyccBenchError(f"responses: line {k} of {path} is not JSON; write one object per line") from None
    return records


def write_from_predictions(task: str, predictions: str | Path, out: str | Path) -> str:
    """Write `out/submissions/<task>.json` from a run's predictions on the leaderboard split; return the line the
    results record keeps for the task (labels hidden, so not scored). Failed items are left out and counted."""
    from .predictions import read_predictions

    spec = board(task)
    records = read_predictions(predictions)
    made = {iid: r["prediction"] for iid, r in records.items() if r.get("prediction") in tuple(spec.letters)}
    path = write(made, Path(out) / "submissions" / f"{task}.json")
    lacking = len(records) - len(made)
    return (f"labels hidden, not scored: leaderboard submission {Path('submissions') / path.name} with {len(made)} "
            f"letters" + (f"; {lacking} instances without a letter (failed: re-run to retry)" if lacking else ""))


def write(submission: Mapping[str, str], path: str | Path) -> Path:
    """Write a submission as upstream's leaderboard takes it: one JSON object, ids in the given order."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(submission)) + "\n", encoding="utf-8")
    return out
