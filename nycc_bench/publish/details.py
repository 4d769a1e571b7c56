"""A run folder as a Hub dataset repo of its details, like lm-evaluation-harness's `--hf_hub_log_args` details
repos: `nycc-bench push RUN_DIR USER/REPO` (or `nycc-bench evaluate ... --push-to-hub USER/REPO`).

The repo holds the results record (`results.json`), one config per task (`data/<task>/details.parquet`, split
`latest`: one row per item with its prompt, reply, parsed answer, gold, correctness and the judge's verdicts) and a
card that links the record and shows the scores with their intervals. A repo holds one run: pushing again makes
one commit of what changed (the Hub's history keeps the earlier run). Nothing is pushed when the staged files hold
a token, an API key, a URL with a password or a secret of this environment (the scan `publish` runs). Nothing
private is published (`public.py`): the record's local paths become names relative to the run folder and a private
endpoint becomes `local` or `private`, in `results.json`, the card and the rows' judge, system and error columns.
`push --dry-run` stages the same files and lists them with their sizes, pushing nothing.
"""

from __future__ import annotations

import html
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from huggingface_hub.utils import HFValidationError, validate_repo_id

from .. import __version__
from ..errors import NyccBenchError
from ..predictions import as_text, read_items, read_meta, record_messages
from ..results import dumps, read_results
from . import PROJECT_URL, PublishError
from .files import check_tree, scan_secrets, secrets_from_env
from .public import public_record, public_text
from .stage import Staged

SPLIT = "latest"
KIND = "details"


def check_repo_id(repo_id: str) -> str:
    """A `USER/REPO` id, or a one-line error naming the fix."""
    try:
        validate_repo_id(repo_id)
    except HFValidationError as err:
        raise NyccBenchError(f"push-to-hub: {repo_id!r} is not a Hub repo id ({str(err).splitlines()[0]}); pass "
                             "USER/REPO, e.g. my-name/nycc-bench-details") from None
    if "/" not in repo_id:
        raise NyccBenchError(f"push-to-hub: {repo_id!r} needs its namespace: pass USER/REPO")
    return repo_id


def _schema() -> Any:
    import pyarrow as pa

    message = pa.struct([("role", pa.string()), ("content", pa.string()), ("image", pa.bool_())])
    return pa.schema([("instance_id", pa.string()), ("fold", pa.int64()), ("status", pa.string()),
                      ("prompt", pa.list_(message)), ("reply", pa.string()), ("prediction", pa.string()),
                      ("answer_source", pa.string()), ("gold", pa.string()), ("correct", pa.bool_()),
                      ("error", pa.string()), ("judge", pa.string()), ("judge_verdicts", pa.string()),
                      ("system", pa.string()), ("prompt_version", pa.string())])


def task_rows(run_dir: Path, files: list[str]) -> list[dict[str, Any]]:
    """One row per item of a task's predictions files (folds in order), the judge's verdicts joined."""
    rows = []
    for rel in files:
        path = run_dir / rel
        meta = read_meta(path) or {}
        for instance_id, r in read_items(path).items():
            messages = record_messages(path, r) or []
            rows.append({"instance_id": instance_id, "fold": int(meta.get("fold", 0)), "status": r.get("status"),
                         "prompt": [{"role": m.get("role"), "content": as_text(m.get("content")),
                                     "image": bool(m.get("image"))} for m in messages],
                         "reply": as_text(r.get("raw")), "prediction": as_text(r.get("prediction")),
                         "answer_source": r.get("answer_source"), "gold": as_text(r.get("gold")),
                         "correct": r["correct"], "error": _public(r.get("error"), run_dir),
                         "judge": _public(r["judge"], run_dir),
                         "judge_verdicts": as_text(r["verdicts"] or None), "system": _public(r.get("system"), run_dir),
                         "prompt_version": r.get("prompt_version")})
    return rows


def _public(value: Any, run_dir: Path) -> Any:
    """A row's text about the run (not the prompt or reply) with nothing private in it."""
    return public_text(value, run_dir) if isinstance(value, str) else value


def _md(value: Any) -> str:
    """Text from a run, safe inside a Markdown table cell (escaped, pipes and newlines removed)."""
    return html.escape(str(value)).replace("|", "&#124;").replace("\n", " ")


def _fmt(value: Any) -> str:
    return "–" if value is None else f"{value:.4f}" if abs(value) < 1 else f"{value:.2f}"


def render_card(record: dict[str, Any], repo_id: str, tasks: list[str], endpoint: str) -> Any:
    """The details repo's card: configs (one per task), the scores with intervals, links to the record."""
    from huggingface_hub import DatasetCard, DatasetCardData

    model, dataset = record["model"], record["dataset"]
    configs = [{"config_name": t, "data_files": [{"split": SPLIT, "path": f"data/{t}/*.parquet"}]} for t in tasks]
    data = DatasetCardData(pretty_name=f"nycc-bench details: {model.get('name') or model['spec']}",
                           tags=["nycc-bench", "evaluation", "humor", "new-yorker-caption-contest"]
                           + (["sample-data"] if dataset.get("sample") else []), configs=configs)
    record_url = f"{endpoint.rstrip('/')}/datasets/{repo_id}/blob/main/results.json"
    lines = ["| task | score | value | 95% interval | n | status |", "|---|---|---|---|---|---|"]
    for task, entry in record["tasks"].items():
        for key, s in entry["scores"].items():
            ci = f"{_fmt(s.get('ci_low'))} – {_fmt(s.get('ci_high'))}" if s.get("ci_low") is not None else "–"
            lines.append(f"| {_md(task)} | {_md(key)} | {_fmt(s.get('value'))} | {ci} | {s.get('n')} | "
                         f"{_md(entry.get('status'))} |")
    deviations = [f"- {_md(t)}: {_md(d)}" for t, entry in record["tasks"].items()
                  for d in entry["config"].get("deviations", [])]
    loads = "\n".join(f'load_dataset("{repo_id}", "{t}", split="{SPLIT}")' for t in tasks)
    text = f"""---
{data.to_yaml()}
---

# Evaluation details of `{_md(model['spec'])}`

Every item nycc-bench ran: the prompt as sent, the reply, the parsed answer, the gold reference, whether it was
correct, and the judge's verdicts and reasoning where a judge scored the task. One config per task, split
`{SPLIT}`.

**The results record** (scores with intervals, model revision, dataset fingerprint, prompt hashes, settings and
deviations from the papers): [`results.json`]({record_url}) (schema `{_md(record['schema'])}`).

- System: `{_md(model['spec'])}`{f" (revision `{_md(model['revision'])}`)" if model.get('revision') else ''}
- Dataset: `{_md(dataset.get('name'))}` (fingerprint `{_md(dataset.get('fingerprint'))}`)
  {'**sample data: invented items, a handful per task**' if dataset.get('sample') else ''}
- Run: {_md(record.get('created_at'))} with [nycc-bench]({PROJECT_URL}) {_md(record.get('nycc_bench_version'))}

## Scores

{chr(10).join(lines)}

## Differences from the papers

{chr(10).join(deviations) or '- none'}

## Load

```python
from datasets import load_dataset

{loads}
```

Columns: `instance_id`, `fold`, `status` (ok / unparsed / failed), `prompt` (the messages), `reply`, `prediction`
(the parsed answer; lists and objects as JSON), `answer_source`, `gold`, `correct` (null where an item has no
verdict of its own), `error`, `judge`, `judge_verdicts` (JSON), `system`, `prompt_version`.

## Reproduce

```bash
{chr(10).join(record.get('commands') or [])}
```

Pushed with `nycc-bench push` (nycc-bench {__version__}).
"""
    return DatasetCard(text)


def stage_details(run_dir: str | Path, repo_id: str, out: str | Path, endpoint: str = "https://huggingface.co",
                  known_secrets: list[str] | None = None) -> Staged:
    """Write the repo's files into `out` and check them: the allow-list and the secret scan (a finding refuses)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    run_dir, out = Path(run_dir), Path(out)
    check_repo_id(repo_id)
    if not (run_dir / "results.json").exists():
        raise NyccBenchError(f"run: {run_dir} has no results.json; push a run folder of `nycc-bench evaluate` once "
                             "it has finished")
    record = public_record(read_results(run_dir), run_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(dumps(record), encoding="utf-8")
    tasks = []
    for task, entry in record["tasks"].items():
        rows = task_rows(run_dir, entry.get("predictions") or [])
        if not rows:
            continue
        (out / "data" / task).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=_schema()), out / "data" / task / "details.parquet")
        tasks.append(task)
    if not tasks:
        raise NyccBenchError(f"run: {run_dir} has no predictions to push (a Hessel leaderboard submission is not a "
                             "details run)")
    (out / "README.md").write_text(str(render_card(record, repo_id, tasks, endpoint)), encoding="utf-8")
    check_tree(out, KIND)
    if findings := scan_secrets(out, secrets_from_env(known_secrets or [])):
        raise PublishError("the run holds what looks like a secret, so nothing was pushed: "
                           + "; ".join(f.replace(str(out) + "/", "") for f in findings[:5])
                           + ("; ..." if len(findings) > 5 else "") + ". Remove it from the run folder first.")
    return Staged(KIND, "dataset", repo_id, out)


def push_run(run_dir: str | Path, repo_id: str, *, private: bool = False, endpoint: str | None = None,
             token: str | None = None, say: Callable[[str], None] = print) -> str:
    """Stage, scan and push a run's details to the dataset repo `repo_id`; its URL. The token comes from
    `HF_TOKEN` or the saved login and is never printed or written."""
    from huggingface_hub import HfApi, constants

    from .hub import push, resolve_token

    check_repo_id(repo_id)
    token = token or resolve_token()
    endpoint = (endpoint or constants.ENDPOINT).rstrip("/")
    with tempfile.TemporaryDirectory(prefix="nycc-bench-details-") as tmp:
        staged = stage_details(run_dir, repo_id, tmp, endpoint, [token])
        push(HfApi(endpoint=endpoint, token=token), staged, private, say)
    return f"{endpoint}/datasets/{repo_id}"



def dry_run(run_dir: str | Path, repo_id: str, endpoint: str | None = None) -> list[str]:
    """What `push` would publish: each staged file (the same staging, checks and scan) with its size in bytes."""
    from huggingface_hub import constants

    endpoint = (endpoint or constants.ENDPOINT).rstrip("/")
    with tempfile.TemporaryDirectory(prefix="nycc-bench-details-") as tmp:
        staged = stage_details(run_dir, repo_id, tmp, endpoint)
        files = sorted(p for p in staged.folder.rglob("*") if p.is_file())
        lines = [f"{p.stat().st_size:>12,d}  {p.relative_to(staged.folder).as_posix()}" for p in files]
        total = sum(p.stat().st_size for p in files)
    return [f"dry run: would push {len(files)} files ({total:,d} bytes) to {endpoint}/datasets/{repo_id}; "
            "nothing was pushed", *lines]
