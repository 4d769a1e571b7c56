"""The judge engine: cached, deduplicated, concurrent, resumable execution of judge jobs, with accounting.

A protocol turns its inputs into :class:`Job` s (a request, a parser, the fields to copy into the output);
the engine runs them and returns one record per job, in order::

    engine = LLMEngine(LLMConfig(model="gpt-4o"))
    print(engine.estimate(jobs))          # dry run: calls still to make, estimated cost; spends nothing
    records = engine.run(jobs)            # sync entry (also inside a running event loop)
    records = await engine.arun(jobs)     # async entry
    print(engine.last_stats.summary())    # calls, cached, failed, tokens, USD, wall time

Rules: identical requests in a run are sent once; a cached success is never re-sent; each success is
committed to the cache as soon as it arrives (a killed run resumes where it stopped); a run sharing the cache
folder with another (another process, or another engine) waits for the other's answer to a request it has
claimed instead of paying for it again (see :mod:`nycc_bench.llm.cache`).

Failures, from the backend's typed errors (:mod:`nycc_bench.llm.errors`):

* an endpoint that cannot be connected to before its first reply is tried twice, quickly, then the run stops
  (:class:`FatalJudgeError` naming the host); a missing key for api.openai.com stops it before any request;
* a transient failure (timeout, connection error, truncated body, 408/409/429/5xx) is retried ``retries``
  times with tenacity — jittered exponential backoff from ``retry_backoff_s``, or the server's
  ``retry-after`` capped at ``max_retry_wait_s`` — and then recorded as ERROR with the (key-redacted) reason;
* a run has an overall deadline (``deadline_s``): a retry whose wait would pass it is not waited for, and no
  request starts after it; the call is an ERROR naming the deadline (a resumed run asks again);
* a reply that arrived but cannot be used — a malformed body (invalid JSON, ``choices: [null]``, bad
  ``usage``…) or a verdict the parser rejects (``verdict == "ERROR"``) — is asked again up to
  ``parse_retries`` times, then recorded as ERROR with its reason and raw text. It still counts as a call
  made (``n_calls``, and ``n_unusable``): the provider may bill it;
* any other exception from a backend is recorded as an ERROR naming it: one bad reply never loses the run;
* errors that doom the whole run (bad key, unknown model, an endpoint without the log-probabilities a protocol
  needs) raise :class:`FatalJudgeError`, whose message is one line.

No failure is cached, so a re-run asks again. ``n_requests`` counts every HTTP attempt (retries included).
"""

from __future__ import annotations

import asyncio
import logging
import random
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    retry_if_result,
    stop_after_attempt,
    wait_random_exponential,
)

from ..secrets import scrub
from .backends import Backend, Session, make_backend
from .cache import LLMCache, cache_key, new_owner
from .chat import UNSET_MAX_TOKENS, ChatRequest, Completion
from .config import LLMConfig
from .errors import FatalJudgeError, MalformedReply, RequestFailed, TransientError, Unreachable
from .pricing import PRICE_UNKNOWN, cost_usd, estimate_prompt_tokens
from .sync import run_sync

log = logging.getLogger("nycc_bench.judge")

Record = dict[str, Any]
ERROR = "ERROR"
CLAIM_POLL_S = 0.1
"""How often a run waiting on another run's claim looks for the answer."""
BACKOFF_MAX_S = 30.0
"""The longest backoff between retries when the server names no wait."""
UNREACHABLE_WAIT_S = 0.25
"""The wait before asking an endpoint that could not be connected to once more (then the backend gives up)."""


@dataclass(frozen=True)
class Job:
    """One judge call: the request, how to read the reply, and what to copy into its output record.

    ``parse(completion)`` returns the record's fields; ``"verdict": "ERROR"`` among them means the reply is
    unusable (it is retried, never cached). ``failure`` holds the fields of a record whose call failed.
    ``expected_output_tokens`` feeds the dry-run estimate (``None``: ``request.max_tokens``).
    """

    request: ChatRequest
    parse: Callable[[Completion], Record]
    prompt_version: str
    meta: Mapping[str, Any] = field(default_factory=dict)
    failure: Mapping[str, Any] = field(default_factory=lambda: {"verdict": ERROR})
    expected_output_tokens: int | None = None


@dataclass
class RunStats:
    """Accounting of one run (or, in ``LLMEngine.stats``, of all runs of an engine)."""

    n_jobs: int = 0
    n_unique: int = 0
    n_cached: int = 0
    n_shared: int = 0
    n_calls: int = 0
    n_unusable: int = 0
    n_requests: int = 0
    n_failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    n_replaced: int = 0  # characters of replies that could not be encoded, replaced by U+FFFD
    cost_usd: float | None = 0.0
    wall_s: float = 0.0

    def add(self, other: RunStats) -> None:
        """Accumulate another run into this one."""
        for name in ("n_jobs", "n_unique", "n_cached", "n_shared", "n_calls", "n_unusable", "n_requests",
                     "n_failed", "prompt_tokens", "completion_tokens", "n_replaced", "wall_s"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if self.cost_usd is None or other.cost_usd is None:
            self.cost_usd = None
        else:
            self.cost_usd += other.cost_usd

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a results file."""
        return asdict(self)

    def summary(self) -> str:
        """One line: jobs, cache hits, calls (and how many were unusable), failures, tokens, cost, time.

        ``n_calls`` counts replies received (each may be billed), ``n_unusable`` those that could not be used,
        ``n_requests`` every HTTP attempt including those that failed in transit, ``n_shared`` answers
        another run sharing the cache paid for while this one waited.
        """
        cost = f"{PRICE_UNKNOWN} (model not in price table)" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        shared = f" ({self.n_shared} from a concurrent run)" if self.n_shared else ""
        replaced = (f"; {self.n_replaced} characters that could not be encoded (invalid UTF-8, lone surrogates) "
                    "replaced by U+FFFD" if self.n_replaced else "")
        return (
            f"{self.n_jobs} jobs ({self.n_unique} unique): {self.n_cached} cached{shared}, "
            f"{self.n_calls} calls made ({self.n_unusable} unusable, {self.n_requests} requests sent), "
            f"{self.n_failed} failed; tokens in {self.prompt_tokens}, out {self.completion_tokens}; "
            f"cost {cost}; {self.wall_s:.1f} s{replaced}"
        )


@dataclass(frozen=True)
class Estimate:
    """Dry-run result: what a run would still cost. Token counts are estimates (≈4 characters a token)."""

    model: str
    n_jobs: int
    n_unique: int
    n_cached: int
    n_calls: int
    prompt_tokens: int
    completion_tokens: int
    max_completion_tokens: int
    cost_usd: float | None
    max_cost_usd: float | None
    batch: bool = False  # priced at the Batch API's rate (the calls would go through it)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        if self.cost_usd is None:
            cost = f"{PRICE_UNKNOWN} (no price for {self.model!r} in the price table)"
        else:
            cost = f"≈ ${self.cost_usd:.4f} (at most ${self.max_cost_usd:.4f} if every reply hits max_tokens)"
            cost += ", at the Batch API's rate" if self.batch else ""
        return (
            f"dry run, {self.model}: {self.n_jobs} jobs, {self.n_unique} unique, {self.n_cached} cached -> "
            f"{self.n_calls} calls; ≈ {self.prompt_tokens} input + {self.completion_tokens} output tokens; "
            f"cost {cost}"
        )


def accepted(record: Mapping[str, Any]) -> bool:
    """Whether a parsed reply is usable (anything but ``verdict == "ERROR"``)."""
    return record.get("verdict") != ERROR


class DeadlineReached(RequestFailed):
    """A call not sent because its run's deadline (``deadline_s``) has passed."""


class LLMEngine:
    """Runs jobs for one :class:`LLMConfig`; keeps its backend (a loaded local model) and cache open."""

    def __init__(self, config: LLMConfig, backend: Backend | None = None) -> None:
        self.config = config
        self.backend: Backend = backend if backend is not None else make_backend(config)
        self.stats = RunStats()
        self.last_stats: RunStats | None = None
        self._cache: LLMCache | None = None
        self._identity: dict[str, Any] | None = None  # the backend's, with the served model's once known
        self._fingerprints: set[str] = set()  # `system_fingerprint`s the endpoint reported in this engine's calls

    def __repr__(self) -> str:
        return f"LLMEngine(backend={self.backend!r})"

    @property
    def cache(self) -> LLMCache:
        """The persistent cache (opened on first use)."""
        if self._cache is None:
            self._cache = LLMCache(self.config.resolved_cache_dir())
        return self._cache

    def identity(self) -> dict[str, Any]:
        """The backend identity a key is made of: backend, model, full endpoint, extra body, and the model the
        endpoint says it serves (asked once per engine by :meth:`arun`; before that, what it said last time, as
        the cache recorded it, so a dry run looks up the same keys without a call)."""
        if self._identity is None:
            base = self.backend.identity()
            served = self.cache.served(base) if self.config.use_cache and hasattr(self.backend, "served_model") \
                else None
            self._identity = {**base, **({"served": served} if served else {})}
            if self.config.use_cache and (last := self.cache.fingerprint(base)):
                self._fingerprints.add(last)
        return self._identity

    async def _ask_served(self) -> None:
        """Ask the endpoint what it serves (`/v1/models`; nothing for a local model) and key by it from now on."""
        ask = getattr(self.backend, "served_model", None)
        if ask is None:
            return
        base = self.backend.identity()
        served = await ask()
        if self.config.use_cache:
            self.cache.remember_served(base, served)
            if last := self.cache.fingerprint(base):
                self._fingerprints.add(last)
        self._identity = {**base, **({"served": served} if served else {})}

    def key(self, job: Job) -> str:
        """The cache key of a job."""
        return cache_key(self.identity(), job.prompt_version, job.request)

    def close(self) -> None:
        """Close the cache."""
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def estimate(self, jobs: Iterable[Job]) -> Estimate:
        """Dry run: how many calls are still needed after the cache, and their estimated cost. No calls."""
        jobs = list(jobs)
        first: dict[str, Job] = {}
        for job in jobs:
            first.setdefault(self.key(job), job)
        cached = self.cache.cached_keys(first) if self.config.use_cache and self.config.read_cache else set()
        todo = [job for key, job in first.items() if key not in cached]
        prompt = sum(estimate_prompt_tokens(job.request) for job in todo)
        expected = sum(
            (job.request.max_tokens or UNSET_MAX_TOKENS) if job.expected_output_tokens is None
            else job.expected_output_tokens
            for job in todo
        )
        most = sum(job.request.max_tokens or UNSET_MAX_TOKENS for job in todo)
        price = self.config.price()
        return Estimate(
            model=self.config.model,
            n_jobs=len(jobs),
            n_unique=len(first),
            n_cached=len(first) - len(todo),
            n_calls=len(todo),
            prompt_tokens=prompt,
            completion_tokens=expected,
            max_completion_tokens=most,
            cost_usd=cost_usd(prompt, expected, price),
            max_cost_usd=cost_usd(prompt, most, price),
            batch=self.config.batch,
        )

    def run(self, jobs: Iterable[Job], desc: str = "judge") -> list[Record]:
        """Synchronous :meth:`arun`; works from scripts and from inside a running event loop."""
        jobs = list(jobs)
        return run_sync(lambda: self.arun(jobs, desc))

    async def arun(self, jobs: Iterable[Job], desc: str = "judge") -> list[Record]:
        """Run the jobs; one record per job, in order (see the module docstring for the rules)."""
        from tqdm.auto import tqdm

        jobs = list(jobs)
        if self.config.batch:  # through the OpenAI Batch API, joined back through the same cache
            return await self._arun_batch(jobs, desc)
        start = time.perf_counter()
        if jobs:
            await self._ask_served()
        groups: dict[str, list[int]] = {}
        for index, job in enumerate(jobs):
            groups.setdefault(self.key(job), []).append(index)
        stats = RunStats(n_jobs=len(jobs), n_unique=len(groups))
        records: list[Record | None] = [None] * len(jobs)
        owner = new_owner()
        bar = tqdm(total=len(jobs), desc=desc, unit="job", disable=not self.config.progress, file=sys.stderr)

        async def resolve_group(key: str, indices: list[int]) -> None:
            outcome = await self._resolve(key, jobs[indices[0]], run)
            for index in indices:
                records[index] = self._record(jobs[index], outcome)
                if outcome.error:
                    stats.n_failed += 1
            bar.update(len(indices))

        heartbeat = asyncio.create_task(self._heartbeat(owner)) if self.config.use_cache else None
        try:
            async with self.backend.session() as session:
                run = _Run(session, asyncio.Semaphore(self.config.max_concurrency), stats, owner)
                if self.config.deadline_s is not None:
                    run.deadline = time.monotonic() + self.config.deadline_s
                tasks = [asyncio.create_task(resolve_group(k, idx)) for k, idx in groups.items()]
                try:
                    await asyncio.gather(*tasks)
                except BaseException:
                    for task in tasks:
                        task.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                    raise
        finally:
            if heartbeat is not None:
                heartbeat.cancel()
                await asyncio.gather(heartbeat, return_exceptions=True)
            bar.close()
            self._finish(stats, start, desc)
        return [record for record in records if record is not None]

    def _finish(self, stats: RunStats, start: float, desc: str, how: str = "") -> None:
        """Close a run's accounting: wall time, cost at the config's price, the engine's totals, the summary."""
        stats.wall_s = time.perf_counter() - start
        stats.cost_usd = cost_usd(stats.prompt_tokens, stats.completion_tokens, self.config.price())
        self.last_stats = stats
        self.stats.add(stats)
        log.info("%s: %s", desc, stats.summary())
        if self.config.progress:
            print(f"{desc}: {stats.summary()}{how}", file=sys.stderr)

    async def _arun_batch(self, jobs: list[Job], desc: str) -> list[Record]:
        """:meth:`arun` through the OpenAI Batch API (:mod:`nycc_bench.llm.batch`): the cache first, then one batch
        (or an earlier run's pending one) for the rest; each answer read as a synchronous reply and cached."""
        from .batch import fetch_answers

        start = time.perf_counter()
        groups: dict[str, list[int]] = {}
        for index, job in enumerate(jobs):
            groups.setdefault(self.key(job), []).append(index)
        stats = RunStats(n_jobs=len(jobs), n_unique=len(groups))
        outcomes: dict[str, Outcome] = {}
        for key, indices in groups.items():
            cached = self._cached(key, jobs[indices[0]]) if self.config.use_cache else None
            if cached is not None:
                outcomes[key] = Outcome(cached)
                stats.n_cached += 1
        todo = {key: jobs[indices[0]] for key, indices in groups.items() if key not in outcomes}
        identity = self.backend.identity()
        try:
            if todo:
                async with self.backend.session() as session:
                    def commit(got: Mapping[str, Mapping[str, Any]]) -> None:  # each ended batch, at once
                        for key, answer in got.items():
                            outcomes[key] = self._batch_outcome(session, key, todo[key], answer, stats)

                    answers = await fetch_answers(self.config, session, todo, {
                        "model": identity.get("model"), "endpoint": identity.get("endpoint")}, desc, commit,
                        frozenset(outcomes))
                    for key, job in todo.items():
                        if key not in outcomes:
                            outcomes[key] = self._batch_outcome(session, key, job, answers.get(key), stats)
            records: list[Record | None] = [None] * len(jobs)
            for key, indices in groups.items():
                for index in indices:
                    records[index] = self._record(jobs[index], outcomes[key])
                    stats.n_failed += bool(outcomes[key].error)
        finally:
            self._finish(stats, start, desc, " (Batch API, at its rate)")
        return [record for record in records if record is not None]

    def _batch_outcome(self, session: Any, key: str, job: Job, answer: Mapping[str, Any] | None,
                       stats: RunStats) -> Outcome:
        """One call's outcome from its batch answer; a usable reply is committed to the cache."""
        if answer is None or "error" in answer:
            reason = "no answer" if answer is None else answer["error"]
            return Outcome(None, error=" ".join(f"request failed: {reason}".split()))
        try:
            completion = session.read_reply(answer["body"], job.request)
        except MalformedReply as exc:
            stats.n_calls += 1
            stats.n_unusable += 1
            stats.prompt_tokens += exc.prompt_tokens
            stats.completion_tokens += exc.completion_tokens
            return Outcome(None, raw=exc.raw, error=f"malformed reply: {exc.reason}", received=True)
        stats.n_calls += 1
        stats.n_requests += 1
        stats.prompt_tokens += completion.prompt_tokens
        stats.completion_tokens += completion.completion_tokens
        if not accepted(_safe_parse(job, completion)):
            stats.n_unusable += 1
            return Outcome(completion, error="unparseable reply", received=True)
        if self.config.use_cache:
            self.cache.put(key, completion, self.config.model, job.prompt_version)
        return Outcome(completion)

    async def _heartbeat(self, owner: str) -> None:
        """Keep this run's claims alive while it works (another run takes over a claim left to expire)."""
        while True:
            await asyncio.sleep(self.cache.claim_ttl_s / 3)
            self.cache.refresh_claims(owner)

    def _cached(self, key: str, job: Job) -> Completion | None:
        """The cached completion of ``key`` if there is one the job's parser accepts, unless reading the cache is off
        (``read_cache``) or the endpoint has reported another ``system_fingerprint`` in this engine's calls."""
        if not self.config.read_cache:
            return None
        cached = self.cache.get(key)
        if cached is not None and cached.system_fingerprint and self._fingerprints \
                and cached.system_fingerprint not in self._fingerprints:
            return None  # answered under another configuration of the served model (`system_fingerprint`): ask again
        return cached if cached is not None and accepted(_safe_parse(job, cached)) else None

    async def _resolve(self, key: str, job: Job, run: _Run) -> Outcome:
        """A usable completion (cached, another run's, or fresh), or a failure with its reason."""
        if not self.config.use_cache:
            return await self._ask(job, run)
        stats, owner = run.stats, run.owner
        cached = self._cached(key, job)
        if cached is not None:
            stats.n_cached += 1
            return Outcome(cached)
        while not self.cache.claim(key, owner):  # another run is asking: wait for its answer
            await asyncio.sleep(CLAIM_POLL_S * (0.5 + random.random()))
            cached = self._cached(key, job)
            if cached is not None:
                stats.n_cached += 1
                stats.n_shared += 1
                return Outcome(cached)
        try:
            cached = self._cached(key, job)  # answered between the first look and the claim
            if cached is not None:
                stats.n_cached += 1
                return Outcome(cached)
            outcome = await self._ask(job, run)
            if outcome.error is None and outcome.completion is not None:
                self.cache.put(key, outcome.completion, self.config.model, job.prompt_version, owner,
                               identity=self.identity())
            return outcome
        finally:
            self.cache.release(key, owner)

    async def _ask(self, job: Job, run: _Run) -> Outcome:
        """Call until a usable reply, re-asking an unusable one up to ``parse_retries`` times."""
        attempts = 1 + self.config.parse_retries
        retrying = AsyncRetrying(
            stop=stop_after_attempt(attempts),
            retry=retry_if_result(lambda outcome: outcome.received and outcome.error is not None),
            retry_error_callback=lambda state: state.outcome.result(),
        )
        outcome: Outcome = await retrying(self._call, job, run)
        if outcome.received and outcome.error is not None and attempts > 1:
            outcome.error += f" (asked {attempts} times)"
        return scrubbed(outcome)  # a key the server echoed never reaches the cache, predictions or verdicts

    async def _call(self, job: Job, run: _Run) -> Outcome:
        """One reply, through transient-failure retries; never raises except :class:`FatalJudgeError`."""
        stats = run.stats

        deadline = f"this run's deadline (deadline_s={self.config.deadline_s} s)"
        past: list[float] = []  # the wait a retry would have needed, when it would pass the deadline

        async def send() -> Completion:
            async with run.semaphore:
                if run.fatal is not None:  # another call already doomed the run: send nothing more
                    raise run.fatal
                if run.left() <= 0:
                    raise DeadlineReached(f"not sent: {deadline} has passed; run again to resume from the cache, or "
                                          "raise deadline_s")
                stats.n_requests += 1
                return await run.session.complete(job.request)

        def past_deadline(state: RetryCallState) -> bool:
            if state.upcoming_sleep > run.left():
                past.append(state.upcoming_sleep)
                return True
            return False

        retrying = AsyncRetrying(
            stop=stop_after_attempt(1 + self.config.retries) | past_deadline,
            retry=retry_if_exception_type(TransientError),
            wait=self._wait,
            before_sleep=_log_retry,
            reraise=True,
        )
        try:
            completion = await retrying(send)
        except FatalJudgeError as exc:
            run.fatal = run.fatal or exc
            raise
        except MalformedReply as exc:
            stats.n_calls += 1
            stats.n_unusable += 1
            stats.prompt_tokens += exc.prompt_tokens
            stats.completion_tokens += exc.completion_tokens
            return Outcome(None, raw=exc.raw, error=f"malformed reply: {exc.reason}", received=True)
        except RequestFailed as exc:
            if past:
                return Outcome(None, error=f"request failed: {exc}; not retried: a wait of {past[-1]:.0f} s would "
                                           f"pass {deadline}, {max(run.left(), 0):.0f} s left; run again to resume "
                                           "from the cache, or raise deadline_s")
            tries = f" (after {1 + self.config.retries} attempts)" if isinstance(exc, TransientError) else ""
            return Outcome(None, error=f"request failed: {exc}{tries}")
        except Exception as exc:  # a backend bug must not lose the run; the record names it
            log.warning("backend raised %s: %s", type(exc).__name__, exc)
            return Outcome(None, error=f"backend error: {type(exc).__name__}: {' '.join(str(exc).split())}")
        stats.n_calls += 1
        stats.prompt_tokens += completion.prompt_tokens
        stats.completion_tokens += completion.completion_tokens
        if completion.system_fingerprint and completion.system_fingerprint not in self._fingerprints:
            self._fingerprints = {completion.system_fingerprint}  # the endpoint's configuration now
            if self.config.use_cache:
                self.cache.remember_fingerprint(self.backend.identity(), completion.system_fingerprint)
        if completion.replaced:
            stats.n_replaced += completion.replaced
            log.warning("a reply held %d characters that cannot be encoded; replaced by U+FFFD", completion.replaced)
        if not accepted(_safe_parse(job, completion)):
            stats.n_unusable += 1
            return Outcome(completion, error="unparseable reply", received=True)
        return Outcome(completion)

    def _wait(self, state: RetryCallState) -> float:
        """Seconds before the next attempt: the server's ``retry-after`` (capped), else jittered backoff."""
        cap = self.config.max_retry_wait_s
        exc = state.outcome.exception() if state.outcome is not None else None
        if isinstance(exc, Unreachable):  # nothing to wait out: the backend declares it fatal on the next failure
            return min(UNREACHABLE_WAIT_S, cap)
        asked = getattr(exc, "retry_after", None)
        if asked is not None:
            if asked > cap:
                log.info("server asked to wait %.0f s; waiting max_retry_wait_s=%g s, then retrying", asked, cap)
            return min(float(asked), cap)
        backoff = wait_random_exponential(multiplier=self.config.retry_backoff_s, max=min(cap, BACKOFF_MAX_S))
        return float(backoff(state))

    def _record(self, job: Job, outcome: Outcome) -> Record:
        completion = outcome.completion
        fields = dict(job.failure) if completion is None else _safe_parse(job, completion)
        return {
            **job.meta,
            **fields,
            "raw": outcome.raw if completion is None else completion.text,
            "prompt_version": job.prompt_version,
            "error": outcome.error,
        }


@dataclass
class _Run:
    """What the calls of one run share: the backend session, the concurrency bound, the stats, the claim
    owner, and the first fatal error (once set, no further request is sent)."""

    session: Session
    semaphore: asyncio.Semaphore
    stats: RunStats
    owner: str
    fatal: FatalJudgeError | None = None
    deadline: float = float("inf")  # time.monotonic() past which nothing is sent or waited for

    def left(self) -> float:
        """Seconds until the run's deadline."""
        return self.deadline - time.monotonic()


@dataclass
class Outcome:
    """How one request ended: a completion (None when nothing usable arrived), the raw text, the error.

    ``received`` marks a reply that arrived but was unusable (it is re-asked, and counted as a call).
    """

    completion: Completion | None
    raw: str = ""
    error: str | None = None
    received: bool = False


def scrubbed(outcome: Outcome) -> Outcome:
    """The outcome with every secret this process holds taken out of its text, raw reply and error."""
    completion = outcome.completion
    if completion is not None and (clean := scrub(completion.text)) != completion.text:
        completion = replace(completion, text=clean)
    return Outcome(completion, scrub(outcome.raw), scrub(outcome.error) if outcome.error else outcome.error,
                   outcome.received)


def _log_retry(state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome is not None else None
    log.info("retrying after attempt %d: %s", state.attempt_number, exc)


def _safe_parse(job: Job, completion: Completion) -> Record:
    try:
        return dict(job.parse(completion))
    except Exception as exc:  # a parser bug must not lose the run; the record says what happened
        log.warning("parser raised %s: %s", type(exc).__name__, exc)
        return {**job.failure, "parse_exception": f"{type(exc).__name__}: {exc}"}


def as_engine(judge: LLMConfig | LLMEngine) -> LLMEngine:
    """Accept either a config (a fresh engine) or an engine (reused: its stats accumulate)."""
    return judge if isinstance(judge, LLMEngine) else LLMEngine(judge)


def run_jobs(jobs: Iterable[Job], judge: LLMConfig | LLMEngine, desc: str = "judge") -> list[Record]:
    """Run jobs with a config or an engine (sync; safe inside a running loop)."""
    engine = as_engine(judge)
    try:
        return engine.run(jobs, desc)
    finally:
        if engine is not judge:
            engine.close()


def estimate_jobs(jobs: Iterable[Job], judge: LLMConfig | LLMEngine, echo: bool = True) -> Estimate:
    """Dry run with a config or an engine; prints the estimate when ``echo``."""
    engine = as_engine(judge)
    try:
        estimate = engine.estimate(jobs)
    finally:
        if engine is not judge:
            engine.close()
    if echo:
        print(estimate)
    return estimate
