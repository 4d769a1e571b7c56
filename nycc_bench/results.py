"""Results files: one system's `nycc-bench score` outputs with the commands that produced them (write, read, check).

A results file is the one input of the model-card generator and of anything else that reports a system::

    {
      "format": "nycc-bench-results/1",
      "model": {"spec": "sbert:sentence-transformers/all-MiniLM-L6-v2", "name": "...", "revision": null},
      "dataset": "nycc-bench/newyorker-caption-contest",     # Hub id or folder the predictions were scored on
      "dataset_revision": null,                              # optional: the Hub commit of that dataset
      "sample_data": false,                                  # true: built from the embedded (invented) sample
      "results": [<nycc_bench.score.score() dicts>],         # one per (task, split)
      "commands": ["nycc-bench run ...", "nycc-bench score ..."],
      "source": {"name": "...", "url": "..."},               # optional: figures reported elsewhere (a paper)
      "notes": ["..."],                                      # optional: caveats shown on the card
      "nycc_bench": "0.1.0"
    }

Files are written as canonical JSON (2-space indent, key order as above, UTF-8, newline at the end), so the
same results give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .tasks import TASKS, config_name

FORMAT = "nycc-bench-results/1"
SPLITS = ("train", "validation", "test")
RESULT_KEYS = ("task", "configs", "split", "folds", "metric", "prompt_version", "n", "n_unparsed", "scores")
_ORDER = ("format", "model", "dataset", "dataset_revision", "sample_data", "results", "commands", "source", "notes",
          "nycc_bench")


class ResultsError(ValueError):
    """A results file that does not follow the format; the message names the file and the field."""


def model_ref(spec: str, name: str | None = None, revision: str | None = None) -> dict[str, Any]:
    """The `model` entry of a system spec; `hf:org/model@rev` carries its revision in the spec."""
    if revision is None and "@" in spec.partition(":")[2]:
        revision = spec.rpartition("@")[2] or None
    return {"spec": spec, "name": name or spec, "revision": revision}


def make_results(model: Mapping[str, Any], dataset: str, results: Sequence[Mapping[str, Any]],
                 commands: Sequence[str], *, sample_data: bool = False, dataset_revision: str | None = None,
                 source: Mapping[str, str] | None = None, notes: Sequence[str] = ()) -> dict[str, Any]:
    """Assemble and check a results file's content (score dicts are normalised to plain JSON)."""
    data: dict[str, Any] = {
        "format": FORMAT, "model": dict(model), "dataset": dataset, "dataset_revision": dataset_revision,
        "sample_data": sample_data, "results": [_plain(r, "results") for r in results], "commands": list(commands),
    }
    if source:
        data["source"] = dict(source)
    if notes:
        data["notes"] = list(notes)
    data["nycc_bench"] = __version__
    return validate_results(data)


def _plain(value: Any, where: str) -> Any:
    """JSON-normal form (int dict keys become strings, tuples lists); NaN and infinity are refused."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except ValueError as err:
        raise ResultsError(f"{where}: holds NaN or infinity, which JSON cannot carry ({err})") from err


def _need(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise ResultsError(f"{where}: {message}")


def _check_result(r: Any, where: str) -> None:
    """One score() dict: known task, its metric, configs that match its folds, a known split."""
    _need(isinstance(r, dict), where, "is not an object")
    missing = [k for k in RESULT_KEYS if k not in r]
    _need(not missing, where, f"lacks {', '.join(missing)} (a nycc_bench.score.score() result has them)")
    task = TASKS.get(r["task"])
    _need(task is not None, f"{where}.task", f"unknown task {r['task']!r}; known: {', '.join(TASKS)}")
    assert task is not None
    _need(r["metric"] == task.metric, f"{where}.metric", f"{r['metric']!r}, but {task.name} is scored by "
          f"{task.metric!r}")
    _need(r["split"] in SPLITS, f"{where}.split", f"{r['split']!r} is not one of {', '.join(SPLITS)}")
    folds = r["folds"]
    _need(isinstance(folds, list) and folds and all(isinstance(f, int) for f in folds), f"{where}.folds",
          "must be a non-empty list of fold numbers")
    try:
        expected = sorted({config_name(task, f) for f in folds})
    except ValueError as err:
        raise ResultsError(f"{where}.folds: {err}") from err
    _need(r["configs"] == expected, f"{where}.configs", f"{r['configs']!r} does not match folds {folds} "
          f"(expected {expected})")
    _need(isinstance(r["n"], int) and r["n"] > 0, f"{where}.n", "must be a positive item count")
    _need(isinstance(r["n_unparsed"], int) and 0 <= r["n_unparsed"] <= r["n"], f"{where}.n_unparsed",
          "must be a count between 0 and n")
    _need(isinstance(r["scores"], dict) and bool(r["scores"]), f"{where}.scores", "must be a non-empty object")


def validate_results(data: Any, where: str = "results") -> dict[str, Any]:
    """Check a results file's content; returns it with its keys in canonical order, or raises ResultsError."""
    _need(isinstance(data, dict), where, "is not a JSON object")
    _need(data.get("format") == FORMAT, f"{where}.format", f"expected {FORMAT!r}, got {data.get('format')!r}")
    unknown = sorted(set(data) - set(_ORDER))
    _need(not unknown, where, f"unknown keys {', '.join(unknown)}")
    model = data.get("model")
    _need(isinstance(model, dict) and isinstance(model.get("spec"), str) and bool(model["spec"]),
          f"{where}.model", "needs a non-empty spec (the system spec given to `nycc-bench run --system`)")
    _need(isinstance(model.get("name"), str) and bool(model["name"]), f"{where}.model.name", "must be a string")
    _need(model.get("revision") is None or isinstance(model["revision"], str), f"{where}.model.revision",
          "must be a string or null")
    _need(isinstance(data.get("dataset"), str) and bool(data["dataset"]), f"{where}.dataset",
          "must name the Hub dataset or folder that was scored")
    _need(isinstance(data.get("sample_data"), bool), f"{where}.sample_data", "must be true or false")
    results = data.get("results")
    _need(isinstance(results, list) and bool(results), f"{where}.results", "must be a non-empty list")
    seen: set[tuple[str, str]] = set()
    for i, r in enumerate(results):
        _check_result(r, f"{where}.results[{i}]")
        key = (r["task"], r["split"])
        _need(key not in seen, f"{where}.results[{i}]", f"a second result for task {key[0]} on {key[1]}")
        seen.add(key)
    commands = data.get("commands")
    _need(isinstance(commands, list) and all(isinstance(c, str) and c for c in commands), f"{where}.commands",
          "must be a list of command lines")
    source = data.get("source")
    _need(source is None or (isinstance(source, dict) and isinstance(source.get("name"), str)
                             and isinstance(source.get("url"), str)), f"{where}.source", "needs a name and a url")
    _need(bool(commands) or source is not None, f"{where}.commands",
          "is empty: give the commands that produced the scores, or a source for reported figures")
    notes = data.get("notes", [])
    _need(isinstance(notes, list) and all(isinstance(n, str) for n in notes), f"{where}.notes",
          "must be a list of strings")
    _plain(data, where)
    return {k: data[k] for k in _ORDER if k in data}


def dumps(data: Mapping[str, Any]) -> str:
    """The canonical text of a results file."""
    return json.dumps(validate_results(dict(data)), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_results(path: str | Path, data: Mapping[str, Any]) -> Path:
    """Check and write a results file."""
    path = Path(path)
    text = dumps(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def read_results(path: str | Path) -> dict[str, Any]:
    """Read and check a results file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse_constant)
    except FileNotFoundError as err:
        raise ResultsError(f"results: {path} does not exist") from err
    except json.JSONDecodeError as err:
        raise ResultsError(f"results: {path} is not JSON ({err})") from err
    return validate_results(data, where=str(path))


def read_results_dir(folder: str | Path) -> list[tuple[Path, dict[str, Any]]]:
    """Every `*.json` results file of a folder, by file name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ResultsError(f"results: {folder} is not a folder")
    return [(p, read_results(p)) for p in sorted(folder.glob("*.json"))]


def _refuse_constant(name: str) -> float:
    raise ResultsError(f"results: {name} is not a number JSON can carry")

