"""A submission from the form to a queued job: who submits, what model, which tasks, which settings."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from pathlib import Path
from typing import Any

from .settings import Settings
from .store import Job, Refused, Store
from .validate import check_facts, check_revision, check_tasks, resolve_model

DTYPES = ("default", "bfloat16", "float16", "float32")


def user_of(username: str | None, settings: Settings, visitor: str | None = None) -> str:
    """The rate-limit bucket: the signed-in Hugging Face user; else, where the operator allows signed-out
    submissions, one bucket per visitor (a hash of the client address), never one shared by all."""
    if username:
        return username
    if settings.anonymous_user and visitor:
        return f"{settings.anonymous_user}-{hashlib.sha256(visitor.encode()).hexdigest()[:12]}"
    raise Refused("sign in with Hugging Face to submit")


def concrete_dtype(dtype: str) -> str:
    """The dtype a model is loaded in: "default" resolved as the worker resolves it (bfloat16 or float16 on a
    GPU, float32 on CPU), so "default" and that dtype are one setting for the duplicate rule."""
    if dtype != "default":
        return dtype
    from ..systems.hf import placement

    return str(placement(None, None)[1]).removeprefix("torch.")


def new_job_id() -> str:
    """Sortable and unique: UTC time and random hex (a file name in the requests repo)."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(4)


def run_key(source: str, name: str, commit: str | None, options: dict[str, Any]) -> str:
    """Same model, same revision, same settings → same key (case-insensitive Hub ids)."""
    text = json.dumps([source, name.lower() if source == "hub" else name, commit, options], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


MAX_MODEL = 300
MAX_REVISION = 200


def submit(store: Store, settings: Settings, model: str, revision: str, tasks: list[str] | None,
           username: str | None, dtype: str = "default", api: Any = None, visitor: str | None = None) -> Job:
    """Validate a submission and queue it; raises `Refused` with the reason otherwise."""
    user = user_of(username, settings, visitor)
    if len(model) > MAX_MODEL:
        raise Refused(f"model: {len(model)} characters; a Hub id or path has at most {MAX_MODEL}")
    if len(revision or "") > MAX_REVISION:
        raise Refused(f"revision: {len(revision)} characters; a branch, tag or commit has at most {MAX_REVISION} "
                      "(a commit is 40 hex digits)")
    chosen = check_tasks(tasks)
    if dtype not in DTYPES:
        raise Refused(f"precision: one of {', '.join(DTYPES)}")
    facts = resolve_model(model, check_revision(revision or ""), settings, api)
    check_facts(facts, chosen, settings)
    options: dict[str, Any] = {} if facts.source == "api" else {"dtype": concrete_dtype(dtype)}
    if facts.remote_code:
        options["trust_remote_code"] = True
    name = Path(facts.name).name if facts.source == "local" else facts.name
    job = Job(id=new_job_id(), model=name, spec=facts.spec, source=facts.source, tasks=chosen, user=user,
              run_key=run_key(facts.source, facts.name, facts.commit, options), revision=facts.revision,
              commit=facts.commit, options=options, params=facts.params, license=facts.license)
    return store.add_job(job, settings.rate_limit, settings.rate_window_s)
