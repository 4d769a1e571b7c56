"""The one results record, `nycc-bench-results/2`: written once by `write_results`, validated when written and
when read, and read by everything that shows a number (CLI, report, leaderboard, model cards).

    {
      "schema": "nycc-bench-results/2",
      "nycc_bench_version": "0.2.0", "git_commit": "<sha>" | null, "created_at": "2026-11-23T12:00:00+00:00",
      "model": {"spec", "name", "source", "revision", "fingerprint", "parameters"},   # what answered
      "dataset": {"name", "revision", "fingerprint", "sample"},                      # what it answered
      "environment": {"python", "torch", "transformers", "datasets", "evaluate", "platform", "device"},
      "judge": {"name", "backend", "model", "base_url"[, "config", "config_settings"]} | null,  # named: its config
      "tasks": {"<task>": {"config": {... everything `tasks show` prints that affects the number, prompt hashes,
                                      options, decoding, folds, judge, deviations},
                           "scores": {"<score>": {"value", "ci_low", "ci_high", "n"}},
                           "n", "n_unparsed", "n_failed", "n_error", "details": {metric output}, "predictions": [...]}},
      "skipped": {"<task>": "why it has no scores"}, "errors": {"<task>": "what failed while running it"},
      "commands": ["nycc-bench evaluate ..."], "notes": ["..."],
      "extra": {...}                                                                 # e.g. the leaderboard's run
    }

Older files (`nycc-bench-results/1` of the model cards, the leaderboard's `schema_version: 1`) are read through
one upgrade step, `upgrade`: their scores are re-read by each task's `scores:` list and what they never
recorded (environment, fingerprints, prompt hashes) is null. Files are canonical JSON (2-space indent, keys in
the order above, UTF-8, newline at the end), so the same results give the same bytes.
"""

from __future__ import annotations

import errno
import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import NyccBenchError
from .secrets import scrub_data
from .wholeness import STATUSES

SCHEMA = "nycc-bench-results/2"
TOP = ("schema", "nycc_bench_version", "git_commit", "created_at", "model", "dataset", "environment", "judge",
       "tasks", "skipped", "errors", "commands", "notes", "extra")
REQUIRED = ("schema", "nycc_bench_version", "created_at", "model", "dataset", "environment", "tasks")
TASK_KEYS = ("config", "scores", "n", "n_unparsed", "n_failed", "n_error", "details", "predictions")
SCORE_KEYS = ("value", "ci_low", "ci_high", "n")


class ResultsError(NyccBenchError):
    """A results record that does not follow the schema; the message names the file and the field."""


def _need(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise ResultsError(f"{where}: {message}")


def _plain(value: Any, where: str) -> Any:
    """JSON-normal form (int dict keys become strings, tuples lists); NaN and infinity are refused."""
    try:
        return json.loads(json.dumps(value, allow_nan=False, default=str))
    except ValueError as err:
        raise ResultsError(f"{where}: holds NaN or infinity, which JSON cannot carry ({err})") from None


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_task(name: str, entry: Any, where: str) -> None:
    """One task entry: its config names the prompt hashes, every score is {value, ci_low, ci_high, n}."""
    _need(isinstance(entry, dict), where, "is not an object")
    missing = [k for k in TASK_KEYS if k not in entry]
    _need(not missing, where, f"lacks {', '.join(missing)}")
    config = entry["config"]
    _need(isinstance(config, dict) and config.get("name") == name, f"{where}.config", f"must be the config of {name}")
    _need(isinstance(config.get("deviations"), list), f"{where}.config.deviations", "must be a list of sentences")
    for key in ("n", "n_unparsed", "n_failed", "n_error"):
        _need(_count(entry[key]), f"{where}.{key}", "must be a count (a whole number ≥ 0)")
    _need(entry["n_unparsed"] + entry["n_failed"] <= entry["n"], f"{where}.n_unparsed",
          "n_unparsed + n_failed cannot exceed n")
    _need(isinstance(entry["scores"], dict), f"{where}.scores", "must be an object")
    for key, s in entry["scores"].items():
        at = f"{where}.scores.{key}"
        _need(isinstance(s, dict) and set(s) == set(SCORE_KEYS), at, f"must have exactly {', '.join(SCORE_KEYS)}")
        _need(isinstance(s["value"], int | float) and not isinstance(s["value"], bool), f"{at}.value",
              "must be a number")
        _need(math.isfinite(s["value"]), f"{at}.value", "is NaN or infinity, which JSON cannot carry")
        for bound in ("ci_low", "ci_high"):
            _need(s[bound] is None or isinstance(s[bound], int | float), f"{at}.{bound}", "must be a number or null")
        _need(s["n"] is None or _count(s["n"]), f"{at}.n", "must be a count or null")
    coverage = entry.get("coverage")
    _need(coverage is None or (isinstance(coverage, dict) and _count(coverage.get("n")) and _count(coverage.get("of"))
                               and coverage["n"] <= coverage["of"]), f"{where}.coverage",
          "must be {n, of} counts with n ≤ of (instances scored of those asked for)")
    status = entry.get("status", "complete")
    _need(status in STATUSES, f"{where}.status", f"must be one of {', '.join(STATUSES)}, got {status!r}")
    _need(not entry["n_failed"] or status == "incomplete", f"{where}.status",
          f"is {status!r} but {entry['n_failed']} items failed; a task with failed items is 'incomplete'")
    _check_meaning(name, entry, where)
    _check_details(entry, where)


def _check_details(entry: dict[str, Any], where: str) -> None:
    """The family's own keys in `details` (its per-item verdicts), by the validator its kinds declare
    (`Hooks.details`, chosen by the record's own `config.family`, else its task's family)."""
    from .kinds import family_hooks
    from .tasks import all_tasks

    details = entry.get("details")
    task = all_tasks().get(entry["config"]["name"])
    validate = family_hooks(str(entry["config"].get("family") or (task.family if task else ""))).details
    if isinstance(details, dict) and validate is not None and (problem := validate(details)):
        raise ResultsError(f"{where}.details.{problem}")


def _check_meaning(name: str, entry: dict[str, Any], where: str) -> None:
    """What the numbers mean: each value in its range and inside its own interval, each score the one its task's
    `scores:` list reads out of the recorded metric output, and counts that fit the predictions."""
    from .tasks import all_tasks
    from .tasks.lookup import extract

    task = all_tasks().get(name)
    for key, s in entry["scores"].items():
        at = f"{where}.scores.{key}"
        value, low, high = s["value"], s["ci_low"], s["ci_high"]
        if low is not None and high is not None:
            _need(low <= high, f"{at}.ci_low", f"{low} is above ci_high {high}")
        if low is not None:
            _need(low <= value + 1e-12, f"{at}.value", f"{value} lies below its interval's low end {low}")
        if high is not None:
            _need(value <= high + 1e-12, f"{at}.value", f"{value} lies above its interval's high end {high}")
        definition = next((d for d in task.scores if d.key == key), None) if task else None
        if definition is None:
            continue
        lo, hi = definition.bounds
        _need((lo is None or value >= lo) and (hi is None or value <= hi), f"{at}.value",
              f"{value} is outside the score's range [{lo}, {hi}]")
        if task is not None and task.kind == "choice" and definition.n == "n":
            _need(s["n"] is None or s["n"] <= entry["n"], f"{at}.n",
                  f"{s['n']} items scored but the task has {entry['n']} predictions")
        if isinstance(entry["details"], dict) and entry["details"]:
            again = extract(definition, entry["details"])
            _need(again is None or all(_close(again[k], s[k]) for k in SCORE_KEYS), at,
                  f"does not match what the task's scores list reads from details ({again}); the record was edited")


def _close(a: Any, b: Any) -> bool:
    """Equal, or the same number to 1e-9."""
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def check_predictions(data: Mapping[str, Any], run_dir: Path, where: str) -> None:
    """Each task's counts against its predictions files, where they sit beside the record: n records (the last
    of each instance), of which n_failed failed and n_unparsed unparsed; with a `--limit` subset, n at most."""
    from .predictions import FAILED, UNPARSED, read_predictions

    for name, entry in data.get("tasks", {}).items():
        files = [run_dir / p for p in entry.get("predictions") or []]
        if not files or not all(f.is_file() for f in files):
            continue
        at = f"{where}.tasks.{name}"
        try:
            statuses = [r.get("status") for f in files for r in read_predictions(f).values()]
        except NyccBenchError as err:
            raise ResultsError(f"{at}.predictions: {err}") from None
        counts = {"n": len(statuses), "n_failed": statuses.count(FAILED), "n_unparsed": statuses.count(UNPARSED)}
        if (entry.get("config") or {}).get("effective", {}).get("subset"):
            _need(entry["n"] <= counts["n"], f"{at}.n", f"is {entry['n']} but the predictions hold {counts['n']}")
            continue
        for key, count in counts.items():
            _need(entry[key] == count, f"{at}.{key}",
                  f"is {entry[key]} but the predictions files hold {count}; the record does not match its run")


def validate_results(data: Any, where: str = "results") -> dict[str, Any]:
    """Check a v2 record; returns it with its keys in canonical order, or raises ResultsError."""
    _need(isinstance(data, dict), where, "is not a JSON object")
    _need(data.get("schema") == SCHEMA, f"{where}.schema", f"expected {SCHEMA!r}, got {data.get('schema')!r} "
          "(read older files with read_results, which upgrades them)")
    missing = [k for k in REQUIRED if k not in data]
    _need(not missing, where, f"lacks {', '.join(missing)}")
    unknown = sorted(set(data) - set(TOP))
    _need(not unknown, where, f"unknown keys {', '.join(unknown)}")
    model = data["model"]
    _need(isinstance(model, dict) and isinstance(model.get("spec"), str) and bool(model["spec"]), f"{where}.model",
          "needs a non-empty spec (the system spec that was evaluated)")
    for key in ("revision", "fingerprint"):
        _need(model.get(key) is None or isinstance(model[key], str), f"{where}.model.{key}", "must be a string or null")
    dataset = data["dataset"]
    _need(isinstance(dataset, dict) and isinstance(dataset.get("name"), str) and bool(dataset["name"]),
          f"{where}.dataset", "needs the name (folder or Hub repo) of what was evaluated")
    _need(isinstance(dataset.get("sample", False), bool), f"{where}.dataset.sample", "must be true or false")
    _need(isinstance(data["environment"], dict), f"{where}.environment", "must be an object")
    tasks = data["tasks"]
    _need(isinstance(tasks, dict), f"{where}.tasks", "must be an object")
    for name, entry in tasks.items():
        _check_task(name, entry, f"{where}.tasks.{name}")
    for key in ("skipped", "errors"):
        _need(isinstance(data.get(key, {}), dict), f"{where}.{key}", "must be an object of task: reason")
    _need(bool(tasks) or bool(data.get("skipped")) or bool(data.get("errors")), f"{where}.tasks",
          "is empty and nothing says why (skipped, errors)")
    for key in ("commands", "notes"):
        _need(isinstance(data.get(key, []), list) and all(isinstance(c, str) for c in data.get(key, [])),
              f"{where}.{key}", "must be a list of strings")
    plain = _plain(data, where)
    return {k: plain[k] for k in TOP if k in plain}


def _v1_task(name: str, scores: Mapping[str, Any], entry: Mapping[str, Any]) -> dict[str, Any]:
    """A v2 task entry from an old score dict (its scores re-read by the task's `scores:` list)."""
    from .tasks import get_task
    from .tasks.lookup import extract_scores

    task = get_task(name)
    return {"config": {"name": name, "prompt_version": entry.get("prompt_version"),
                       "dataset": {"config": task.config, "split": entry.get("split", task.split),
                                   "folds": entry.get("folds", [0])},
                       "deviations": ["Upgraded from an older results file: settings were not recorded."]},
            "scores": extract_scores(task, scores), "n": int(entry.get("n") or 0),
            "n_unparsed": int(entry.get("n_unparsed") or 0), "n_failed": 0, "n_error": 0, "details": dict(scores),
            "predictions": list(entry.get("predictions") or [])}


def upgrade(data: Mapping[str, Any]) -> dict[str, Any]:
    """An older results file as a v2 record (the one documented upgrade step)."""
    empty_env = {k: None for k in ("python", "torch", "transformers", "datasets", "evaluate", "platform", "device")}
    if data.get("format") == "nycc-bench-results/1":
        return {"schema": SCHEMA, "nycc_bench_version": data.get("nycc_bench", "0.1.0"), "git_commit": None,
                "created_at": "unknown", "model": {**data["model"], "fingerprint": None},
                "dataset": {"name": data["dataset"], "revision": data.get("dataset_revision"), "fingerprint": None,
                            "sample": bool(data.get("sample_data"))},
                "environment": empty_env, "judge": None,
                "tasks": {r["task"]: _v1_task(r["task"], r["scores"], r) for r in data["results"]},
                "commands": list(data.get("commands", [])), "notes": list(data.get("notes", []))}
    if data.get("schema_version") == 1:
        tasks = {t: _v1_task(t, e["score"]["scores"], e["score"]) for t, e in data.get("tasks", {}).items()
                 if e.get("score")}
        skipped = {t: e.get("unscored") or "not scored" for t, e in data.get("tasks", {}).items()
                   if not e.get("score") and not e.get("error")}
        errors = {t: e["error"] for t, e in data.get("tasks", {}).items() if e.get("error")}
        return {"schema": SCHEMA, "nycc_bench_version": "0.1.0", "git_commit": None,
                "created_at": data.get("created_at", "unknown"),
                "model": {**data["model"], "fingerprint": None},
                "dataset": {"name": data["dataset"]["name"], "revision": None, "fingerprint": None,
                            "sample": bool(data["dataset"].get("sample"))},
                "environment": empty_env, "judge": None, "tasks": tasks, "skipped": skipped, "errors": errors,
                "commands": [e["command"] for e in data.get("tasks", {}).values() if e.get("command")],
                "extra": {"run_id": data.get("run_id"), "options": data.get("options", {})}}
    return dict(data)


def dumps(data: Mapping[str, Any]) -> str:
    """The canonical text of a results record."""
    return json.dumps(validate_results(scrub_data(dict(data))), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_results(path: str | Path, data: Mapping[str, Any]) -> Path:
    """Validate and write a results record atomically (a temporary file, then a rename)."""
    path = Path(path)
    text = dumps(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    # a unique temporary name per writer (two writers never share one), renamed over the target in one step
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.",
                                     suffix=".tmp", delete=False) as f:
        try:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        except BaseException as err:
            f.close()
            Path(f.name).unlink(missing_ok=True)
            if isinstance(err, OSError) and err.errno == errno.ENOSPC:
                raise NyccBenchError(f"results: cannot write {path}: the disk is full; free space on {path.parent} "
                                     "and run again (nothing was written: the previous file is intact)") from None
            raise
    try:
        os.replace(f.name, path)
    except BaseException:
        Path(f.name).unlink(missing_ok=True)
        raise
    return path


def read_results(path: str | Path, run_dir: str | Path | None = None) -> dict[str, Any]:
    """Read, upgrade (older schemas) and validate a results record; its counts are checked against the
    predictions files its paths name, relative to `run_dir` (default: the record's folder)."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse_constant)
    except FileNotFoundError:
        raise ResultsError(f"results: {path} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ResultsError(f"results: {path} is not JSON ({err})") from None
    _need(isinstance(data, dict), str(path), "is not a JSON object")
    record = validate_results(upgrade(data), where=str(path))
    check_predictions(record, Path(run_dir) if run_dir is not None else path.parent, str(path))
    return record


def read_results_dir(folder: str | Path) -> list[tuple[Path, dict[str, Any]]]:
    """Every `*.json` results record of a folder, by file name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ResultsError(f"results: {folder} is not a folder")
    return [(p, read_results(p)) for p in sorted(folder.glob("*.json"))]


def _refuse_constant(name: str) -> float:
    raise ResultsError(f"results: {name} is not a number JSON can carry")


def run_id(result: Mapping[str, Any]) -> str:
    """The leaderboard run a results record belongs to (`extra.run_id`)."""
    return str((result.get("extra") or {}).get("run_id") or "")
