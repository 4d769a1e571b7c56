"""The About tab's judges reports, made by the leaderboard itself: `nycc-bench judges report` for each configured
judge (`NYCC_LB_JUDGES`, else the judges that scored the board's rows) on the judges' source folder
(`NYCC_LB_JUDGES_SOURCE`, else `NYCC_BENCH_UPSTREAM_DIR`, else the embedded sample's upstream files), one judge
after another in one background thread, the check running shown on the tab. Each report is kept in the data folder
under a key of the judge and its inputs (the source's files by path, size and modification time; an offline
judge's own files, an LLM judge's configuration and price; the report code's version), so a restart or another
visitor reuses it and a changed input makes it again. A failure is shown with its reason and never kept."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..judging import JudgeSpec
from .about import REPORTS_DIR, judge_reports, judges_markdown

log = logging.getLogger("nycc_bench.leaderboard")
GENERATED_DIR = REPORTS_DIR / "generated"
"""Where the leaderboard keeps the reports it made (beside the operator's `judges report --out` files)."""
VERSION = 1
"""Bumped when the report's figures change meaning, so every kept report is made again."""


def configured_judges(judges: dict[str, str], results: Iterable[dict[str, Any]]) -> list[str]:
    """The operator's judges (`NYCC_LB_JUDGES`), else those the rows' records name, each once, in order."""
    if judges:
        return list(dict.fromkeys(judges.values()))
    names: list[str] = []
    for result in results:
        judge = result.get("judge")
        if not isinstance(judge, dict):
            continue
        specs = [judge] if "name" in judge else [s for s in judge.values() if isinstance(s, dict)]
        names += [str(s["name"]) for s in specs if s.get("name")]
    return sorted(set(names))


def _files_digest(root: Path) -> str:
    """Every file below `root` (links followed) by relative path, size and modification time."""
    h = hashlib.sha256()
    for top, dirs, files in sorted(os.walk(root, followlinks=True)):
        dirs.sort()
        for name in sorted(files):
            path = Path(top) / name
            try:
                stat = path.stat()
            except OSError:
                continue
            h.update(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return h.hexdigest()


def judge_identity(spec: JudgeSpec) -> dict[str, Any]:
    """What makes a judge's verdicts what they are: an offline judge's folder's files, an LLM judge's configuration
    (endpoint, model, protocol settings) and stated price."""
    if not spec.is_llm:
        from ..sample_judges import judge_folder

        return {"name": spec.name, "files": _files_digest(Path(judge_folder(spec.backend, spec.model)))}
    price = spec.stated_price()
    return {**spec.describe(), "price": None if price is None else price.text()}


def cache_key(spec: JudgeSpec, source: Path) -> str:
    """The key a kept report is reused under: the judge, the source's files, this code's version."""
    payload = {"judge": judge_identity(spec), "source": str(source.resolve()), "files": _files_digest(source),
               "version": VERSION}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def report_file(data_dir: Path, judge: str) -> Path:
    """The kept report of a judge: a readable name plus a short hash of the exact spec (two specs never share)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", judge).strip("._")[:60] or "judge"
    return Path(data_dir) / GENERATED_DIR / f"{slug}-{hashlib.sha256(judge.encode()).hexdigest()[:8]}.json"


class JudgeReports:
    """The reports of the configured judges: made in one background thread when `start` is first called, each
    kept under its cache key; `markdown()` shows what is done, what runs (its current check) and what failed."""

    def __init__(self, data_dir: str | Path, source: str | Path) -> None:
        self.data_dir, self.source = Path(data_dir), Path(source)
        self._lock = threading.Lock()
        self._judges: list[str] = []
        self._state: dict[str, str] = {}  # judge -> queued / running: CHECK / done / failed: REASON
        self.history: list[str] = []  # every state each judge went through, in order (the log reads it too)
        self._thread: threading.Thread | None = None

    def start(self, judges: list[str]) -> None:
        """Make (or reuse) each judge's report in the background; a second call while it runs does nothing."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._judges = list(judges)
            self._state = {j: "queued" for j in self._judges}
            self._thread = threading.Thread(target=self._run, name="judges-reports", daemon=True)
            self._thread.start()

    @property
    def started(self) -> bool:
        """Whether `start` was called in this process."""
        return self._thread is not None

    def busy(self) -> bool:
        """Whether reports are still being made."""
        return self._thread is not None and self._thread.is_alive()

    def wait(self, limit_s: float | None = None) -> bool:
        """Until the thread ends (tests, the command line); True when it has."""
        if self._thread is not None:
            self._thread.join(limit_s)
        return not self.busy()

    def _set(self, judge: str, state: str) -> None:
        with self._lock:
            self._state[judge] = state
            self.history.append(f"{judge}: {state}")
        log.info("judges report of %s: %s", judge, state)

    def _run(self) -> None:
        from ..judges_report import report

        for judge in self._judges:
            try:
                self._set(judge, "running: checking the inputs")
                spec = JudgeSpec.parse(judge)
                key = cache_key(spec, self.source)
                path = report_file(self.data_dir, judge)
                if _kept_key(path) == key:
                    self._set(judge, "done (kept)")
                    continue
                result = report(spec, self.source, progress=lambda step, j=judge: self._set(j, f"running: {step}"))
                result.update(cache_key=key, judge_spec=judge)
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f".{path.name}.tmp")
                tmp.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
                tmp.replace(path)
                self._set(judge, "done")
            except Exception as err:  # one judge's failure is shown on the tab; the others still run
                log.warning("judges report of %s failed: %s", judge, err)
                self._set(judge, "failed: " + " ".join(f"{type(err).__name__}: {err}".split())[:300])

    def reports(self) -> list[dict[str, Any]]:
        """The reports to show: the kept ones made here for the configured judges (the current ones only while
        a new one is made), then the operator's kept files of other judges."""
        with self._lock:
            judges, state = list(self._judges), dict(self._state)
        made = []
        for judge in judges:
            if state.get(judge, "").startswith("done"):
                try:
                    made.append(json.loads(report_file(self.data_dir, judge).read_text(encoding="utf-8")))
                except (OSError, ValueError) as err:
                    log.warning("judges report of %s unreadable: %s", judge, err)
        shown = {r.get("judge") for r in made}
        return made + [r for r in judge_reports(self.data_dir, judges) if r.get("judge") not in shown]

    def status_lines(self) -> list[str]:
        """One line per configured judge not done yet: queued, the check it runs, or why it failed."""
        with self._lock:
            return [f"{judge}: {state}" for judge, state in self._state.items() if not state.startswith("done")]

    def markdown(self) -> str:
        """The About tab's judges section: the reports, and above them what is still being made."""
        return judges_markdown(self.reports(), self.status_lines(), source=str(self.source),
                               started=self.started)


def _kept_key(path: Path) -> str | None:
    """The cache key of a kept report (None: none, or unreadable)."""
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("cache_key")
    except (OSError, ValueError, AttributeError):
        return None
