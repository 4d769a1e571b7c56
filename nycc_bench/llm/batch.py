"""Calls through the OpenAI Batch API, at half the price: one JSONL upload, polling, answers joined through the cache.

`LLMEngine.arun` comes here (`fetch_answers`) when its config has ``batch``; jobs the cache answers are not sent.
The others go out as one batch (``POST /files`` with ``purpose=batch``, then ``POST /batches`` on
``/v1/chat/completions``), each line's ``custom_id`` its cache key and its body the one a synchronous call would
send. The batch's id is written to ``<batch_dir>/llm_batches.json`` before the first poll, so a run stopped while
it is pending (Ctrl-C, a killed process, ``batch_wait_s`` spent: :class:`BatchPending`) picks it up when run
again instead of paying twice. Polling shows a bar with the batch's own counts and an ETA. When a batch ends,
its answers are first written beside its id (``answers`` in ``llm_batches.json``, fsynced), then handed to the
engine, which reads each with the same reply parser as a synchronous call and commits a usable one to the cache,
and only then forgotten there: a run stopped at any point after a batch ended (another batch still pending,
``batch_wait_s``, Ctrl-C, a kill) finds the answers in the cache or in the file, and never pays for them again.
The engine builds the records as a synchronous run does. An answer that failed or could not be used is an ERROR record
(never cached); the next run sends it in a new batch. Cost is counted at the batch rate (``LLMConfig.price``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from filelock import FileLock

from ..errors import BatchPending, NyccBenchError

log = logging.getLogger("nycc_bench.judge")

STATE_FILE = "llm_batches.json"
ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
FIRST_POLL_S = 2.0
"""The wait before the second poll (the first is at once): a small batch can end within seconds."""
POLL_GROWTH = 1.5
"""Each later wait is this much longer than the last, up to `batch_poll_s` (a day-long batch is polled rarely)."""


def poll_delay(previous: float | None, cap: float, eta_s: float | None = None) -> float:
    """The wait before the next poll: FIRST_POLL_S, then POLL_GROWTH times the last wait, never past `cap` (the
    config's `batch_poll_s`) nor much past the time the ETA says the batch ends."""
    delay = FIRST_POLL_S if previous is None else previous * POLL_GROWTH
    if eta_s is not None:
        delay = min(delay, max(eta_s, FIRST_POLL_S))
    return min(delay, cap)


def batch_eta(done: int, total: int, elapsed_s: float) -> float | None:
    """Seconds until `total` calls are answered at the rate observed (`done` in `elapsed_s` seconds since the first
    poll), None while nothing has been observed (a guess would be a made-up figure)."""
    if done <= 0 or elapsed_s <= 0:
        return None
    return max(0.0, (total - done) * elapsed_s / done)


def eta_text(done: int, total: int, elapsed_s: float, polls: int) -> str:
    """What the batch bar says of the time left, and what it is based on."""
    eta = batch_eta(done, total, elapsed_s)
    if eta is None:
        return f"ETA unknown: no call answered yet ({polls} poll{'s' if polls != 1 else ''})"
    minutes, seconds = divmod(round(eta), 60)
    return f"ETA {minutes // 60}:{minutes % 60:02d}:{seconds:02d} ({done} of {total} answered in {elapsed_s:.0f} s)"


class BatchState:
    """The pending batches of one folder (``llm_batches.json``), read and written under a file lock."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / STATE_FILE
        self._lock = FileLock(str(self.path) + ".lock")

    def pending(self) -> list[dict[str, Any]]:
        """Every batch submitted from here and not yet collected: id, keys, model, endpoint, submitted."""
        with self._lock:
            return self._read()

    def add(self, entry: Mapping[str, Any]) -> None:
        """Remember a submitted batch (before it is polled, so a stop loses nothing)."""
        with self._lock:
            self._write([*self._read(), dict(entry)])

    def remove(self, batch_id: str) -> None:
        """Forget a batch whose answers are collected (or that the server no longer knows)."""
        with self._lock:
            self._write([b for b in self._read() if b["id"] != batch_id])

    def keep(self, batch_id: str, bodies: Mapping[str, str]) -> None:
        """Keep an ended batch's usable answers (reply bodies by key) beside its id, before anything uses them."""
        with self._lock:
            self._write([{**b, "answers": dict(bodies)} if b["id"] == batch_id else b for b in self._read()])

    def forget(self, batch_id: str, keys: list[str]) -> None:
        """Drop the kept answers of ``keys`` (now in the cache); the batch goes when none of its answers is left."""
        gone = set(keys)
        with self._lock:
            batches = []
            for b in self._read():
                if b["id"] == batch_id:
                    b = {**b, "answers": {k: v for k, v in (b.get("answers") or {}).items() if k not in gone}}
                    if not b["answers"]:
                        continue
                batches.append(b)
            self._write(batches)

    def _read(self) -> list[dict[str, Any]]:
        if not self.path.is_file():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise NyccBenchError(f"batch: cannot read {self.path} ({exc}); delete it to forget its pending "
                                 "batches (their answers are then asked again)") from None
        return list(data.get("batches", []))

    def _write(self, batches: list[dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps({"batches": batches}, indent=1))
            f.flush()
            os.fsync(f.fileno())  # the answers it keeps were paid for: on disk before they are relied on
        tmp.replace(self.path)


Commit = Callable[[dict[str, dict[str, Any]]], None]
"""What the engine does with an ended batch's answers (key -> answer) before they are forgotten: cache them."""


async def fetch_answers(config: Any, session: Any, todo: Mapping[str, Any], identity: Mapping[str, Any],
                        desc: str, commit: Commit | None = None, cached: frozenset[str] = frozenset(),
                        ) -> dict[str, dict[str, Any]]:
    """key -> {"body": reply bytes} or {"error": reason} for each of ``todo``'s calls (key -> job), from the kept
    answers or a pending batch of an earlier run that holds it, else from one new batch; polled with a bar until
    every batch ends. Each ended batch's answers go through ``commit`` as soon as they are kept on disk; kept
    answers of ``cached`` keys (committed by a run stopped just after) are forgotten."""
    from tqdm.auto import tqdm

    state = BatchState(config.batch_folder())
    client = session.client()
    answers: dict[str, dict[str, Any]] = {}
    waiting = []
    for entry in await _batches_for(state, {**dict.fromkeys(cached), **todo}, identity):
        if done := [k for k in entry.get("answers") or {} if k in cached]:
            state.forget(entry["id"], done)
        if "answers" in entry:  # ended in an earlier run that stopped before using them: paid for, use them
            _deliver(state, entry["id"], {k: {"body": v.encode("utf-8")} for k, v in entry["answers"].items()
                                          if k in todo}, commit, answers)
        elif set(entry["keys"]) & set(todo):
            waiting.append(entry)
    covered = set(answers) | {k for b in waiting for k in b["keys"]}
    waiting += await _submit(state, client, session, todo, identity, desc, covered)
    bar = tqdm(total=len(todo), desc=f"{desc} (batch)", unit="call", file=sys.stderr, disable=not config.progress,
               bar_format="{desc}: {n_fmt}/{total_fmt} calls [{elapsed}]{postfix}")  # the ETA: eta_text
    bar.update(len(answers))
    try:
        await _collect(state, client, session, waiting, todo, bar, config, commit, answers)
        return answers
    finally:
        bar.close()


def _deliver(state: BatchState, batch_id: str, got: dict[str, dict[str, Any]], commit: Commit | None,
             answers: dict[str, dict[str, Any]]) -> None:
    """Hand an ended batch's answers to ``commit``, then forget the kept ones it took (they are in the cache)."""
    if commit is not None:
        commit(got)
    answers.update(got)
    state.forget(batch_id, list(got))


async def _batches_for(state: BatchState, todo: Mapping[str, Any], identity: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The pending batches (from an earlier, stopped run) that hold some of ``todo``'s calls."""
    found = []
    for entry in state.pending():
        if {"model": entry.get("model"), "endpoint": entry.get("endpoint")} != dict(identity):
            continue
        if set(entry.get("answers") or entry["keys"]) & set(todo):
            log.info("batch %s: submitted %s, still pending; collecting it", entry["id"], entry.get("submitted"))
            found.append(entry)
    return found


async def _submit(state: BatchState, client: Any, session: Any, todo: Mapping[str, Any],
                  identity: Mapping[str, Any], desc: str, covered: set[str]) -> list[dict[str, Any]]:
    """One new batch of the calls no pending batch holds (none when every call is covered)."""
    keys = [key for key in todo if key not in covered]
    if not keys:
        return []
    lines = [json.dumps({"custom_id": key, "method": "POST", "url": ENDPOINT, "body": session.body(todo[key].request)},
                        ensure_ascii=False) for key in keys]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    try:
        upload = await client.files.create(file=("nycc-bench-batch.jsonl", data), purpose="batch")
        batch = await client.batches.create(input_file_id=upload.id, endpoint=ENDPOINT,
                                            completion_window=COMPLETION_WINDOW, metadata={"nycc_bench": desc[:500]})
    except Exception as exc:  # openai's errors: one line, never the key
        raise session.failure(exc, "batch: submitting the batch failed") from None
    entry = {"id": batch.id, "input_file_id": upload.id, "keys": keys, **identity,
             "submitted": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "desc": desc}
    state.add(entry)
    log.info("batch %s: %d calls submitted (ids kept in %s)", batch.id, len(keys), state.path)
    return [entry]


async def _collect(state: BatchState, client: Any, session: Any, batches: list[dict[str, Any]],
                   todo: Mapping[str, Any], bar: Any, config: Any, commit: Commit | None,
                   answers: dict[str, dict[str, Any]]) -> None:
    """Poll every batch until it ends; each ended batch's answers are kept on disk, then committed, into
    ``answers``: a stop while another batch is pending loses none of them."""
    open_batches = {b["id"]: b for b in batches}
    done: dict[str, int] = {}
    started = time.monotonic()
    first: tuple[float, int] | None = None  # (time, calls done) at the first poll: the ETA's rate counts from it
    polls, delay = 0, None
    total = sum(len(set(b["keys"]) & set(todo)) for b in batches)
    while open_batches:
        polls += 1
        for batch_id, entry in list(open_batches.items()):
            try:
                batch = await client.batches.retrieve(batch_id)
            except Exception as exc:
                if getattr(exc, "status_code", None) == 404:  # the server forgot it: ask again in a new batch
                    log.warning("batch %s: unknown to the server; its calls are asked again", batch_id)
                    state.remove(batch_id)
                    del open_batches[batch_id]
                    continue
                raise session.failure(exc, f"batch: polling {batch_id} failed") from None
            counts = batch.request_counts
            mine = len(set(entry["keys"]) & set(todo))
            finished = 0 if counts is None else min(mine, int(counts.completed or 0) + int(counts.failed or 0))
            bar.update(finished - done.get(batch_id, 0))
            done[batch_id] = finished
            if batch.status in ENDED:
                got = await _read_answers(client, session, batch, entry)
                state.keep(batch_id, {k: a["body"].decode("utf-8") for k, a in got.items() if "body" in a})
                _deliver(state, batch_id, {k: a for k, a in got.items() if k in todo}, commit, answers)
                bar.update(mine - done[batch_id])
                done[batch_id] = mine
                del open_batches[batch_id]
        if not open_batches:
            break
        now, finished = time.monotonic(), sum(done.values())
        first = first or (now, finished)
        eta = batch_eta(finished - first[1], total - first[1], now - first[0])
        bar.set_postfix_str(eta_text(finished - first[1], total - first[1], now - first[0], polls))
        if config.batch_wait_s is not None and time.monotonic() - started >= config.batch_wait_s:
            ids = ", ".join(open_batches)
            raise BatchPending(f"batch: {ids} still pending after {config.batch_wait_s:g} s ({sum(done.values())} of "
                               f"{len(todo)} calls answered); its id is kept in {state.path}: run the same command "
                               "again to collect it")
        delay = poll_delay(delay, config.batch_poll_s, eta)
        await asyncio.sleep(delay)


async def _read_answers(client: Any, session: Any, batch: Any, entry: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """key -> {"body": bytes} or {"error": reason} for every call of an ended batch (one without a line: an error)."""
    answers: dict[str, dict[str, Any]] = {}
    for file_id in (batch.output_file_id, batch.error_file_id):
        if not file_id:
            continue
        try:
            content = (await client.files.content(file_id)).content
        except Exception as exc:
            raise session.failure(exc, f"batch: reading the answers of {batch.id} failed") from None
        for line in content.decode("utf-8", errors="replace").splitlines():
            if line.strip():
                key, answer = _answer(json.loads(line), batch.id)
                answers.setdefault(key, answer)
    reason = batch.status
    if batch.status == "failed" and getattr(batch, "errors", None) and batch.errors.data:
        reason += f": {batch.errors.data[0].message}"
    for key in entry["keys"]:
        answers.setdefault(key, {"error": f"batch {batch.id} ended ({reason}) without an answer to this call"})
    return answers


def _answer(line: Mapping[str, Any], batch_id: str) -> tuple[str, dict[str, Any]]:
    """One output or error line: its key and the reply body, or the reason it has none."""
    key = str(line.get("custom_id"))
    response = line.get("response") or {}
    if line.get("error"):
        error = line["error"]
        message = error.get("message") if isinstance(error, Mapping) else str(error)
        return key, {"error": f"batch {batch_id}: {message}"}
    if response.get("status_code") != 200:
        body = response.get("body") or {}
        message = (body.get("error") or {}).get("message") if isinstance(body, Mapping) else None
        return key, {"error": f"batch {batch_id}: HTTP {response.get('status_code')}: {message or 'no message'}"}
    return key, {"body": json.dumps(response.get("body")).encode("utf-8")}


def pending_batches(folder: str | Path) -> list[dict[str, Any]]:
    """The batches submitted from ``folder`` (a run folder) whose answers have not been collected yet."""
    return BatchState(Path(folder)).pending()


__all__ = ["BatchPending", "BatchState", "fetch_answers", "pending_batches"]
