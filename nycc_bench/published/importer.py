"""`nycc-bench import published --source upstream|DIR --out FOLDER`: every published system found below the
source as one run folder `FOLDER/<run id>/` (results.json, predictions/, the stored verdicts), and the table of
what was written."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..builders.download import GITHUB_SOURCES, DownloadError, GitHubSource, fetch_github
from ..builders.sources import HUMORBENCH_COMMIT, HUMORBENCH_REPO
from ..reproducing.inputs import LEADERBOARD_DATA, ZHANG_COMMIT, ZHANG_REPO, Inputs, locate
from ..run_lock import locks_out
from .humorbench import LEADERBOARD_CSV, VERDICT_FILES, humorbench_runs
from .runs import PublishedRun, write_run
from .zhang import zhang_runs

# What `--source upstream` fetches (NYCC_BENCH_UPSTREAM_DIR: an offline mirror of the same files).
FETCH = (
    GitHubSource(ZHANG_REPO, ZHANG_COMMIT, ("examples/generations/*.csv",)),
    GitHubSource(HUMORBENCH_REPO, HUMORBENCH_COMMIT, ("comprehensive_annotations.csv", "categorized_output_*.csv",
                                                      LEADERBOARD_DATA, LEADERBOARD_CSV, *VERDICT_FILES)),
    *(s for s in GITHUB_SOURCES if s.repo == HUMORBENCH_REPO and s.store_as),  # the paper's hard list, as pinned
)


@dataclass
class Imported:
    """What an import wrote: each run's folder and record, and the published files that were not found."""

    runs: list[tuple[Path, dict[str, Any]]] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)


def published_inputs(source: str, progress: bool = True) -> Inputs:
    """`upstream`: the pinned files, fetched into the upstream cache (or NYCC_BENCH_UPSTREAM_DIR's mirror); a
    folder: read as it is."""
    if source != "upstream" or os.environ.get("NYCC_BENCH_UPSTREAM_DIR"):
        return locate(source, ())
    import httpx

    inputs = Inputs([])
    with httpx.Client(timeout=60, follow_redirects=True) as client:
        for pin in FETCH:
            try:
                inputs.roots.append(fetch_github(pin, client, progress))
            except DownloadError as err:
                inputs.failed.setdefault(pin.repo, str(err).splitlines()[0])
    return inputs


def published_runs(inputs: Inputs, judge: Any = None, sbert: bool = True, progress: bool = True
                   ) -> tuple[list[PublishedRun], list[str]]:
    """Every published system below the inputs, scored (Zhang's with `judge` when given); and what is absent."""
    zhang, zhang_absent = zhang_runs(inputs, judge, sbert, progress)
    humor, humor_absent = humorbench_runs(inputs)
    return [*zhang, *humor], [*zhang_absent, *humor_absent]


@locks_out  # one writer per output folder, as `evaluate`
def import_published(source: str, out: str | Path, judge: Any = None, progress: bool = True,
                     command: Sequence[str] | None = None, sbert: bool = True) -> Imported:
    """Write one run folder per published system below `source` into `out`; returns what was written."""
    from ..errors import NyccBenchError
    from ..task_judge import resolve_task_judge
    from .runs import published_task
    from .zhang import SCORER

    out = Path(out)
    resolved = resolve_task_judge(published_task(SCORER), judge) if judge is not None else None
    runs, absent = published_runs(published_inputs(source, progress), resolved, sbert, progress)
    if not runs:
        raise NyccBenchError(f"source: no published outputs found below {source}; it needs "
                             f"{ZHANG_REPO}'s examples/generations/*.csv or {HUMORBENCH_REPO}'s "
                             "analysis/category_subsets files (" + "; ".join(absent[:3]) + ")")
    command = list(command or ["nycc-bench", "import", "published", "--source",  # never a local path
                               "upstream" if source == "upstream" else "MIRROR", "--out", "OUT"])
    done = Imported(absent=absent)
    for run in runs:
        pin = run.files[-1] if run.files else {}
        label = f"published outputs ({pin.get('repo')}@{str(pin.get('commit'))[:7]})"
        result = write_run(run, out, label, command)
        done.runs.append((out / run.run_id, result.record))
    return done


def table_lines(done: Imported) -> list[str]:
    """The import's table: one line per run and score (value, interval, n, status), and each HumorBench run's
    reported whole-benchmark figure beside it, labelled "reported" (as printed, no interval)."""
    from ..tasks import get_task

    lines = [f"{'model':<30} {'score':<20} {'value':>8} {'95% interval':>17} {'n':>5}  status"]
    for _, record in done.runs:
        name = record["model"]["name"][:30]
        for task_name, entry in record["tasks"].items():
            labels = {s.key: s.label for s in get_task(task_name).scores}
            coverage = entry.get("coverage") or {}
            for key, s in entry["scores"].items():
                ci = (f"[{s['ci_low']:.4f}, {s['ci_high']:.4f}]" if s["ci_low"] is not None and s["ci_high"] is not None
                      else "-")
                lines.append(f"{name:<30} {labels.get(key, key)[:20]:<20} {s['value']:>8.4f} {ci:>17} "
                             f"{s['n'] if s['n'] is not None else '-':>5}  {entry.get('status')} "
                             f"({coverage.get('n')} of {coverage.get('of')})")
        for figure in (record.get("extra") or {}).get("published", {}).get("reported", []):
            if figure["figure"] == "pass_rate_per_row":
                lines.append(f"{name:<30} {'Element accuracy':<20} {float(figure['value']):>8.4f} {'-':>17} "
                             f"{figure['n'] or '-':>5}  reported ({figure['source']})")
    return lines
