"""The store backed by two Hub datasets, Open LLM Leaderboard style: requests and results.

A `LocalStore` under `<data_dir>/hub/` is the working copy. At start both repos are downloaded
(`snapshot_download`) and every `requests/<job_id>.json` is loaded into SQLite, so the queue survives a
restart; then each job change uploads its request file, and each result is committed together with its
predictions files (one commit, so a result never names predictions that are not there). The token comes from
`HF_TOKEN` in the environment and is never written anywhere. A repo that cannot be reached at start raises
`StoreUnavailable`; an upload that fails later is retried on the next change and reported by `health()`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from ..results import dumps
from ..secrets import scrub_data
from .store import (
    Job,
    LocalStore,
    StoreUnavailable,
    check_run_id,
    one_line,
    published_files,
    run_id,
    write_atomic,
)

log = logging.getLogger("nycc_bench.leaderboard")


def request_path(job: Job) -> str:
    """Where a job's request file lives in the requests repo."""
    return f"requests/{check_run_id(job.id)}.json"


def request_bytes(job: Job) -> bytes:
    """A job as its request file (stable key order, so unchanged jobs give unchanged files)."""
    return json.dumps(scrub_data(job.to_json()), indent=2, sort_keys=True, ensure_ascii=False).encode()


class HubStore(LocalStore):
    """`LocalStore` whose jobs and results are mirrored to Hub datasets; `api` is an `HfApi`-like object."""

    def __init__(self, root: str | Path, requests_repo: str, results_repo: str, api: Any = None) -> None:
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi(token=os.environ.get("HF_TOKEN") or None)
        self.api, self.requests_repo, self.results_repo = api, requests_repo, results_repo
        self._unsynced: dict[str, Job] = {}
        self._sync_error: str | None = None
        self._sync_lock = threading.Lock()
        super().__init__(root)
        try:
            self.api.snapshot_download(repo_id=results_repo, repo_type="dataset", local_dir=str(self.root))
            requests = Path(self.api.snapshot_download(repo_id=requests_repo, repo_type="dataset",
                                                       local_dir=str(self.root / "hub-requests")))
        except Exception as err:  # any failure to reach the Hub must stop the app visibly
            raise StoreUnavailable(f"cannot download {results_repo} / {requests_repo} from the Hub: {err}") from err
        self._load_requests(requests / "requests")
        self._load_digests(requests / "published")

    def _load_digests(self, folder: Path) -> None:
        """Published digests into SQLite (those this working copy already holds stay as they are)."""
        known = self.digests()
        for path in sorted(folder.glob("*.json")):
            try:
                digest = json.loads(path.read_text(encoding="utf-8"))
                if path.stem not in known and isinstance(digest, dict):
                    self.record_digest(path.stem, digest)
            except (OSError, ValueError) as err:
                self._left_out[f"published/{path.name}"] = one_line(err)

    def _load_requests(self, folder: Path) -> None:
        """Request files into SQLite; a job this working copy already knows keeps its state (it pushed it). A
        file that is not a request is left out and named by `problems()`; the store starts with the rest."""
        jobs = []
        for path in sorted(folder.glob("*.json")):
            try:
                job = Job.from_json(json.loads(path.read_text(encoding="utf-8")))
                check_run_id(job.id)
                if not isinstance(job.tasks, list) or not isinstance(job.options, dict):
                    raise ValueError("tasks must be a list and options an object")
                jobs.append(job)
            except (OSError, ValueError, TypeError, AttributeError) as err:
                self._left_out[f"requests/{path.name}"] = one_line(err)
                log.warning("request %s left out: %s", path.name, err)
        with self._write() as db:
            for job in jobs:
                if db.execute("SELECT 1 FROM jobs WHERE id = ?", (job.id,)).fetchone() is None:
                    self._upsert(db, job)

    def _changed(self, jobs: list[Job]) -> None:
        """Upload the changed request files, and retry those that failed before; one that fails again stays
        queued for the next change and is reported, and the uploads behind it go on."""
        with self._sync_lock:
            self._unsynced.update({job.id: job for job in jobs})
            failed = []
            for job_id, job in list(self._unsynced.items()):
                try:
                    self.api.upload_file(path_or_fileobj=request_bytes(job), path_in_repo=request_path(job),
                                         repo_id=self.requests_repo, repo_type="dataset",
                                         commit_message=f"{job.model}: {job.status}")
                except Exception as err:  # kept for the next change; shown in the banner meanwhile
                    failed.append(f"{job_id} ({one_line(err, 120)})")
                    log.warning("request %s not yet saved to %s: %s", job_id, self.requests_repo, err)
                    continue
                del self._unsynced[job_id]
            self._sync_error = (f"{len(failed)} request(s) not yet saved to {self.requests_repo}, retried on the "
                                f"next change: {'; '.join(failed[:5])}") if failed else None

    def save_result(self, result: dict[str, Any]) -> None:
        """Commit the result (and the predictions it names) to the Hub first, then show it: a commit that fails
        leaves no row on the board, and a retry of the same run writes the same files (one row, not two)."""
        from huggingface_hub import CommitOperationAdd

        run = check_run_id(run_id(result))
        name = f"results/{run}.json"
        staged = self.root / ".staging" / f"{run}.json"
        text = dumps(result)
        write_atomic(staged, text)
        files = published_files(result, self.resolve)  # predictions and the prompts the records reference
        digest = self.digest(result, text)
        try:
            self.api.upload_file(path_or_fileobj=json.dumps(digest, indent=1, sort_keys=True).encode(),
                                 path_in_repo=f"published/{run}.json", repo_id=self.requests_repo,
                                 repo_type="dataset", commit_message=f"digest of {run}")
        except Exception as err:
            staged.unlink(missing_ok=True)
            raise StoreUnavailable(f"cannot save the digest of {run} to {self.requests_repo}: {err}") from err
        operations = [CommitOperationAdd(path_in_repo=name, path_or_fileobj=str(staged))]
        operations += [CommitOperationAdd(path_in_repo=p, path_or_fileobj=str(self.resolve(p))) for p in files]
        try:
            self.api.create_commit(repo_id=self.results_repo, repo_type="dataset", operations=operations,
                                   commit_message=f"results of {result['model']['name']} ({run_id(result)})")
        except Exception as err:
            staged.unlink(missing_ok=True)
            raise StoreUnavailable(f"cannot save result {run_id(result)} to {self.results_repo}: {err}") from err
        (self.root / "results").mkdir(parents=True, exist_ok=True)
        self.record_digest(run, digest)
        os.replace(staged, self.root / name)  # the board shows exactly what the Hub holds

    def adopt(self) -> list[str]:
        """`LocalStore.adopt`, each new digest also saved to the requests repo (so a restarted Space keeps it)."""
        adopted = super().adopt()
        digests = self.digests()
        for run in adopted:
            self.api.upload_file(path_or_fileobj=json.dumps(digests[run], indent=1, sort_keys=True).encode(),
                                 path_in_repo=f"published/{run}.json", repo_id=self.requests_repo,
                                 repo_type="dataset", commit_message=f"digest of {run} (adopted)")
        return adopted

    def health(self) -> str | None:
        return super().health() or self._sync_error
