"""`nycc-bench import lm-eval RESULTS_DIR`: an lm-evaluation-harness output folder (its `results_*.json` and the
`samples_<task>_*.jsonl` of `--log_samples`) for the exported nycc tasks, as one `nycc-bench-results/2` record.

Each sample carries the nycc-bench instance it was made from (id, fold, reference) and the answer read from it,
so the record's scores, intervals and counts are recomputed by nycc-bench's scorer, exactly as `evaluate`
computes them; the per-instance answers are written as predictions files beside the record. What lm-eval does
not record (the dataset's fingerprint when it came from $NYCC_BENCH_DATASET, the model's commit, library
versions it does not log) is null, and named in the record's notes and in `extra.lm_eval.unknown`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import NyccBenchError
from ..predictions import OK, UNPARSED
from ..run_lock import locks_out
from ..secrets import scrub
from ..tasks import get_task
from .export import PREFIX
from .runtime import details
from .verify import check_counts, dataset_docs, verified_items

SOURCE = "lm-eval"


def _results_files(folder: Path) -> list[Path]:
    """Every lm-eval results file under the folder, oldest first (a later run of a task wins)."""
    if not folder.is_dir():
        raise NyccBenchError(f"results-dir: {folder} is not a folder; pass lm_eval's --output_path folder")
    files = sorted(folder.rglob("results_*.json"), key=lambda p: p.name)
    if not files:
        raise NyccBenchError(f"results-dir: {folder} holds no results_*.json; run lm_eval with --output_path there")
    return files


def _samples(results_file: Path, name: str) -> list[dict[str, Any]]:
    """The `--log_samples` records of one task, from the samples file of the same run (same time stamp)."""
    stamp = results_file.stem.removeprefix("results_")
    path = results_file.with_name(f"samples_{name}_{stamp}.jsonl")
    if not path.exists():
        raise NyccBenchError(f"results-dir: {results_file.parent} has no samples of {name} ({path.name}); run lm_eval "
                             "with --log_samples so each instance's answer is kept")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _env(info: str, label: str) -> str | None:
    """One line of lm-eval's `pretty_env_info` (torch's environment report)."""
    found = re.search(rf"^{re.escape(label)}:\s*(.+)$", info or "", re.M)
    return found.group(1).strip() if found and found.group(1).strip() not in ("N/A", "Could not collect") else None


MODEL_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")
"""The `model_args` keys that name the model lm-eval ran (an adapter before its base), as lm-eval reads them."""


def model_name(data: Mapping[str, Any]) -> str:
    """The model lm-eval ran, from its `model_args` (`pretrained=...`); lm-eval's `model_name` is a random id
    when the arguments name none (a model object passed in), so then the model class, said to be unnamed."""
    config = data.get("config") or {}
    args = config.get("model_args") or {}
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    for key in MODEL_KEYS:
        if isinstance(args, Mapping) and args.get(key):
            return str(args[key])
    return f"{config.get('model') or 'a model'} (lm-eval recorded no model name)"


def _command(data: Mapping[str, Any], names: list[str]) -> str:
    """The lm_eval line that reproduces the run, as far as its results file says."""
    config = data.get("config") or {}
    args = config.get("model_args")
    if isinstance(args, Mapping):
        args = ",".join(f"{k}={v}" for k, v in args.items())
    words = ["lm_eval", "--model", str(config.get("model")), "--model_args", str(args or ""),
             "--tasks", ",".join(names), "--include_path", "$(nycc-bench lm-eval path)", "--log_samples"]
    if config.get("limit"):
        words += ["--limit", str(config["limit"])]
    return shlex.join(words).replace("'$(nycc-bench lm-eval path)'", '"$(nycc-bench lm-eval path)"')


@locks_out  # one writer per run folder, as `evaluate`
def import_lm_eval(results_dir: str | Path, out: str | Path, dataset: str | None = None) -> Any:
    """Read an lm-eval output folder into `out/results.json` (+ `out/predictions/`); returns the RunResult."""
    from ..evaluation import RunResult, predictions_path
    from ..provenance import dataset_record
    from ..results import SCHEMA, validate_results
    from ..score import task_config
    from ..tasks import config_name
    from ..tasks.lookup import extract_scores

    folder, out = Path(results_dir), Path(out)
    runs: dict[str, tuple[Path, dict[str, Any]]] = {}
    for path in _results_files(folder):
        data = json.loads(path.read_text(encoding="utf-8"))
        for name in data.get("results", {}):
            if name.startswith(PREFIX):
                runs[name] = (path, data)
    if not runs:
        raise NyccBenchError(f"results-dir: {folder} has no nycc task results; run lm_eval --tasks nycc_matching,... "
                             "--include_path \"$(nycc-bench lm-eval path)\"")
    entries: dict[str, Any] = {}
    datasets_used: set[str] = set()
    configs: list[str] = []
    notes: list[str] = []
    last = max((d for _, d in runs.values()), key=lambda d: float(d.get("date") or 0))
    model_args = (last.get("config") or {}).get("model_args") or {}
    spec = f"{SOURCE}:{(last.get('config') or {}).get('model')}:{model_name(last)}"
    for name, (path, data) in sorted(runs.items()):
        cfg = (data.get("configs") or {}).get(name) or {}
        meta = cfg.get("metadata") or {}
        task = get_task(str(meta.get("nycc_task") or name.removeprefix(PREFIX)))
        if meta.get("prompt_version") != task.prompt_version:
            raise NyccBenchError(f"results-dir: {name} was run with prompt {meta.get('prompt_version')!r}, but "
                                 f"{task.name} now uses {task.prompt_version!r}; re-export the tasks, re-run lm_eval")
        recorded = (cfg.get("dataset_kwargs") or {}).get("path")
        if recorded or dataset:
            datasets_used.add(str(recorded or dataset))
        if dataset and not recorded:
            notes.append(f"{name}: the dataset is the one named to the import (--dataset {dataset}); lm-eval ran on "
                         "$NYCC_BENCH_DATASET, which it does not record.")
        samples = sorted(_samples(path, name), key=lambda s: s.get("doc_id", 0))
        check_counts(name, data, samples)
        items = verified_items(task, name, samples, dataset_docs(task, dataset) if dataset else None)
        folds = sorted({int(i["fold"]) for i in items})
        found = details(task.name, items)
        out_files = []
        for fold in folds:
            target = predictions_path(out, task.name, fold)
            target.parent.mkdir(parents=True, exist_ok=True)
            lines = [json.dumps({"instance_id": i["id"], "status": OK if i["prediction"] is not None else UNPARSED,
                                 "prediction": i["prediction"], "raw": i.get("loglikelihoods", i.get("raw")),
                                 "answer_source": SOURCE, "prompt_version": task.prompt_version, "system": spec},
                                ensure_ascii=False) for i in items if int(i["fold"]) == fold]
            target.write_text(scrub("\n".join(lines)) + "\n", encoding="utf-8")
            out_files.append(target.relative_to(out).as_posix())
        gen = cfg.get("generation_kwargs") if cfg.get("output_type") == "generate_until" else None
        decoding = None if gen is None else {"temperature": gen.get("temperature", 0.0) if gen.get("do_sample")
                                             else 0.0, "max_new_tokens": gen.get("max_gen_toks")}
        config = task_config(task, task.option_values(), decoding, folds, task.split, None)
        how = ", letters scored by summed log-likelihood" if task.kind == "choice" else ""
        config["deviations"].append(f"Run by lm-evaluation-harness {data.get('lm_eval_version')} as {name} (the "
                                    f"plain-text prompt{how}); imported with `nycc-bench import lm-eval`.")
        if (data.get("config") or {}).get("limit"):
            config["deviations"].append(f"lm_eval --limit {data['config']['limit']}: only the first items were run.")
        entries[task.name] = {
            "config": config, "scores": extract_scores(task, found), "n": len(items),
            "n_unparsed": sum(i["prediction"] is None for i in items), "n_failed": 0, "n_error": 0,
            "details": found, "predictions": out_files}
        configs += [config_name(task, f) for f in folds]
    dataset_name = sorted(datasets_used)[0] if len(datasets_used) == 1 else None
    if dataset_name:
        data_record = dataset_record(dataset_name, configs)
    else:
        data_record = {"name": "unknown", "revision": None, "fingerprint": None, "sample": False}
    info = str(last.get("pretty_env_info") or "")
    config = last.get("config") or {}
    environment = {"python": (_env(info, "Python version") or "").split(" ")[0] or None,
                   "torch": _env(info, "PyTorch version"), "transformers": last.get("transformers_version"),
                   "datasets": None, "evaluate": None, "platform": _env(info, "OS"),
                   "device": config.get("device")}
    revision = config.get("model_sha") or None
    unknown = [k for k, v in {"dataset.name": dataset_name,
                              "dataset.fingerprint": data_record["fingerprint"],
                              "dataset.revision": data_record["revision"], "model.revision": revision,
                              **{f"environment.{k}": v for k, v in environment.items()}}.items() if v is None]
    unknown.append("git_commit")
    notes.append(f"Imported from lm-evaluation-harness {last.get('lm_eval_version')} output ({folder.name}); "
                 f"lm-eval does not record: {', '.join(unknown)} (null here).")
    if not dataset_name:
        notes.append("The dataset is unknown: lm-eval ran on $NYCC_BENCH_DATASET, which it does not record; pass "
                     "--dataset to the import (or export the tasks with --dataset) to record it.")
    created = dt.datetime.fromtimestamp(float(last["date"]), dt.UTC).isoformat(timespec="seconds") \
        if last.get("date") else "unknown"
    record = {
        "schema": SCHEMA, "nycc_bench_version": __version__, "git_commit": None, "created_at": created,
        "model": {"spec": spec, "name": model_name(last), "source": SOURCE, "revision": revision,
                  "fingerprint": None, "parameters": config.get("model_num_parameters")},
        "dataset": data_record, "environment": environment, "judge": None, "tasks": entries,
        "skipped": {}, "errors": {},
        "commands": [_command(last, sorted(runs)), shlex.join(["nycc-bench", "import", "lm-eval", str(folder),
                                                               "--out", str(out)])],
        "notes": notes,
        "extra": {"lm_eval": {"version": last.get("lm_eval_version"), "model_args": model_args,
                              "task_hashes": {n: d.get("task_hashes", {}).get(n) for n, (_, d) in runs.items()},
                              "unknown": unknown}},
    }
    result = RunResult(validate_results(record))
    result.save(out / "results.json")
    return result
