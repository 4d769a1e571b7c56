"""Operator settings of the leaderboard, read from the environment (a Space's variables and secrets)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..kinds.instances import DEFAULT_DATASET

ENV_HELP = {
    "NYCC_LB_DATA_DIR": "local store folder (SQLite + results + predictions); default ./leaderboard-data",
    "NYCC_LB_DATASET": "dataset folder or Hub repo the worker evaluates on (default: NYCC_DATASET or the Hub repo)",
    "NYCC_LB_SAMPLE_DATA": "1: the dataset is the embedded sample (invented content); every page says so",
    "NYCC_LB_ALLOW_LOCAL": "1: accept a local model folder as a submission (tests, private deployments)",
    "NYCC_LB_ALLOW_API": "1: accept OpenAI-compatible API models (key from OPENAI_API_KEY)",
    "NYCC_LB_API_BASE_URL": "the OpenAI-compatible endpoint API submissions run against (never user-supplied)",
    "NYCC_LB_ALLOW_REMOTE_CODE": "1: accept models that need trust_remote_code",
    "NYCC_LB_MAX_PARAMS_B": "largest model accepted, in billions of parameters (default 15)",
    "NYCC_LB_RATE_LIMIT": "submissions per user per window (default 5)",
    "NYCC_LB_RATE_WINDOW_H": "rate-limit window in hours (default 24)",
    "NYCC_LB_ANONYMOUS": "prefix of the per-visitor buckets of submitters who are not signed in (one bucket per "
                         "client address); empty: signing in is required (the default on a Space with OAuth)",
    "NYCC_LB_REQUESTS_REPO": "Hub dataset holding the requests (with NYCC_LB_RESULTS_REPO and HF_TOKEN)",
    "NYCC_LB_RESULTS_REPO": "Hub dataset holding results and predictions",
    "NYCC_LB_JUDGES": "judges of the judged tasks, e.g. caption_generation=reward:DIR,humorbench=openai:gpt-4o; "
                      "unset on a board on the real data (NYCC_LB_SOURCE): the default offline judges, "
                      "`reward:public` / `embedding:public` where `nycc-bench judges train` made them, else the "
                      "sample's (trained on the invented sample (offline demo)), each record saying which",
    "NYCC_LB_JUDGES_SOURCE": "folder of the upstream files the About tab's judges reports score the configured "
                             "judges on (default: NYCC_BENCH_UPSTREAM_DIR, else the embedded sample's invented ones)",
    "NYCC_LB_JUDGES_REPORTS": "when the About tab's judges reports are made (kept by judge and inputs): auto (when "
                              "the tab is first opened; the default), start (at start-up) or 0 (never: only the "
                              "operator's `judges report --out` files)",
    "NYCC_LB_FOLDS": "Hessel cross-validation folds to run, e.g. 0,1 (default: every fold the dataset has)",
    "NYCC_LB_WORKER": "0: do not start the background worker",
    "NYCC_LB_SOURCE": "upstream or a folder of the pinned files: seed an empty board with the papers' published runs "
                      "and reported rows (`nycc-bench import published`); unset: the sample's baselines (offline demo)",
    "NYCC_LB_HEARTBEAT_TIMEOUT_S": "a RUNNING job with no progress (no item answered) this long is taken back "
                                   "(default 900)",
    "NYCC_LB_MAX_ATTEMPTS": "a job taken back this often is FAILED (default 3)",
    "NYCC_LB_JOB_TIMEOUT_S": "wall-clock limit of one job; past it the job's process is killed and the job FAILED "
                             "(default 7200)",
    "NYCC_LB_TRUSTED_PROXIES": "addresses or networks (comma-separated) whose X-Forwarded-For is believed; default "
                               "on a Space: its proxy (the private networks it connects from), elsewhere none",
    "NYCC_LB_MAX_BODY_MB": "largest request body the app reads, in MB (default 8; uploads are capped at 5 MB)",
    "NYCC_LB_ADOPT_RESULTS": "1: at start, record a digest for each readable result that has none (results published "
                             "before digests were kept); check them first, then unset it",
}
SPACE_PROXIES = "127.0.0.1,::1,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00::/7"
"""The Space's own proxy: a Hugging Face Space is reached only through it, from a private address. Uvicorn then
takes each visitor's address as the last one in `X-Forwarded-For` that is not one of these, the one the Space's
proxy appended (a visitor's own header value comes before it and is not believed)."""


def on_space() -> bool:
    """Whether this process runs on a Hugging Face Space (the Space's own environment says so)."""
    return bool(os.environ.get("SPACE_ID")) or os.environ.get("SYSTEM") == "spaces"


def default_proxies() -> str:
    """`NYCC_LB_TRUSTED_PROXIES` when set (empty: none), else the Space's proxy on a Space, else none."""
    given = os.environ.get("NYCC_LB_TRUSTED_PROXIES")
    if given is not None:
        return given
    return SPACE_PROXIES if on_space() else ""


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _judges(text: str) -> dict[str, str]:
    """`task=spec,task=spec` → {task: spec}; a malformed entry is an operator error, said at start-up."""
    out: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        task, sep, spec = item.partition("=")
        if not sep or not task.strip() or not spec.strip():
            raise ValueError(f"NYCC_LB_JUDGES: expected task=judge, got {item!r}")
        out[task.strip()] = spec.strip()
    return out


@dataclass(frozen=True)
class Settings:
    """Everything an operator can set; secrets are read where used, never kept here."""

    data_dir: Path
    dataset: str = DEFAULT_DATASET
    sample_data: bool = False
    allow_local: bool = False
    allow_api: bool = False
    api_base_url: str | None = None
    allow_remote_code: bool = False
    max_params_b: float = 15.0
    rate_limit: int = 5
    rate_window_s: float = 24 * 3600
    anonymous_user: str | None = "anonymous"  # per-visitor bucket prefix; None: sign-in required
    requests_repo: str | None = None
    results_repo: str | None = None
    judges: dict[str, str] = field(default_factory=dict)
    folds: tuple[int, ...] | None = None  # None: every fold the dataset has, as `evaluate` does
    worker: bool = True
    published: str | None = None  # `upstream` or a folder: seed with the published runs (`NYCC_LB_SOURCE`)
    heartbeat_timeout_s: float = 900.0  # no item answered for this long: the worker is gone
    max_attempts: int = 2  # a job interrupted (a restart, a silent worker) is retried once, then FAILED with why
    job_timeout_s: float = 7200.0  # one job's wall-clock limit (its child process is killed past it)
    poll_s: float = 10.0
    oauth: bool = False  # a Space with `hf_oauth: true` (gradio's LoginButton needs it)
    trusted_proxies: str = ""  # addresses whose X-Forwarded-For is believed (comma-separated); none by default
    visitor_concurrency: int = 2  # requests one visitor may have at work at once
    max_body_bytes: int = 8 * 2**20  # the largest request body the app reads (a bigger one is refused, 413)
    adopt_results: bool = False  # record digests for results published before digests were kept
    judges_source: str | None = None  # the judges reports' upstream files (None: see `judges_source_dir`)
    judges_reports: str = "auto"  # auto (when the About tab opens), start (at start-up), 0 (never)

    @classmethod
    def from_env(cls, data_dir: str | Path | None = None, dataset: str | None = None, **overrides: object) -> Settings:
        """Settings from the environment; explicit arguments win over it."""
        env = os.environ.get
        oauth = bool(env("OAUTH_CLIENT_ID")) and bool(env("SPACE_ID"))
        values: dict[str, object] = {
            "data_dir": Path(data_dir or env("NYCC_LB_DATA_DIR") or "leaderboard-data"),
            "dataset": dataset or env("NYCC_LB_DATASET") or DEFAULT_DATASET,
            "sample_data": _flag("NYCC_LB_SAMPLE_DATA"),
            "allow_local": _flag("NYCC_LB_ALLOW_LOCAL"),
            "allow_api": _flag("NYCC_LB_ALLOW_API"),
            "api_base_url": env("NYCC_LB_API_BASE_URL") or None,
            "allow_remote_code": _flag("NYCC_LB_ALLOW_REMOTE_CODE"),
            "max_params_b": float(env("NYCC_LB_MAX_PARAMS_B", "15")),
            "rate_limit": int(env("NYCC_LB_RATE_LIMIT", "5")),
            "rate_window_s": float(env("NYCC_LB_RATE_WINDOW_H", "24")) * 3600,
            "anonymous_user": env("NYCC_LB_ANONYMOUS", "" if oauth else "anonymous") or None,
            "requests_repo": env("NYCC_LB_REQUESTS_REPO") or None,
            "results_repo": env("NYCC_LB_RESULTS_REPO") or None,
            "judges": _judges(env("NYCC_LB_JUDGES", "")),
            "folds": tuple(int(f) for f in env("NYCC_LB_FOLDS", "").split(",") if f.strip()) or None,
            "worker": env("NYCC_LB_WORKER", "1") != "0",
            "published": env("NYCC_LB_SOURCE") or None,
            "heartbeat_timeout_s": float(env("NYCC_LB_HEARTBEAT_TIMEOUT_S", "900")),
            "max_attempts": int(env("NYCC_LB_MAX_ATTEMPTS", "2")),
            "job_timeout_s": float(env("NYCC_LB_JOB_TIMEOUT_S", "7200")),
            "oauth": oauth,
            "trusted_proxies": default_proxies(),
            "visitor_concurrency": int(env("NYCC_LB_VISITOR_CONCURRENCY", "2")),
            "max_body_bytes": int(float(env("NYCC_LB_MAX_BODY_MB", "8")) * 2**20),
            "adopt_results": _flag("NYCC_LB_ADOPT_RESULTS"),
            "judges_source": env("NYCC_LB_JUDGES_SOURCE") or env("NYCC_BENCH_UPSTREAM_DIR") or None,
            "judges_reports": env("NYCC_LB_JUDGES_REPORTS", "auto").strip().lower() or "auto",
        }
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        if self.judges_reports not in ("auto", "start", "0"):
            raise ValueError(f"NYCC_LB_JUDGES_REPORTS: expected auto, start or 0, got {self.judges_reports!r}")

    def judges_source_dir(self) -> Path:
        """The folder the judges reports read: `judges_source`, else the embedded sample's upstream files."""
        from ..paths import SAMPLE_DIR

        return Path(self.judges_source) if self.judges_source else SAMPLE_DIR

    @property
    def hub(self) -> bool:
        """Whether requests and results live in Hub datasets."""
        return bool(self.requests_repo or self.results_repo)
