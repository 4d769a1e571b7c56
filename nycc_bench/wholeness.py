"""The one rule for "is this result whole?": decided once, when a task is scored, into `status` and `status_reason`.

`judge_status` decides; everything else reads what it recorded (`status_of`, `shows_numbers`, `record_problems`):
`evaluate` (its exit status), the leaderboard worker (what it publishes), the standings and the leaderboard cells,
the HTML report, the model cards and the pooled "Hard, leaderboard rule" column. A task entry is

- `complete`: every item answered, the task file's thresholds met (`completeness:`), every expected score there;
- `no judge`: as complete, but the judged scores were not computed because no judge was given (the reason names
  the `--judge` to add); its other numbers are shown, its judged cells say "no judge";
- `partial`: a published run (`nycc-bench import published`) whose source covers only some items
  (`coverage.partial`): whole on what it covers by every other check, shown and ranked on those items only, and
  marked so (the reason says "n of N");
- `incomplete`: items failed after retries, fewer scored instances than the task's `min_coverage` share, more
  unparsed answers than its `max_unparsed` share, more judge ERROR verdicts than its `max_judge_errors` share,
  or a headline score missing. Its numbers are never shown, ranked, pooled or published.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .tasks.completeness import Completeness

COMPLETE, INCOMPLETE, NO_JUDGE, PARTIAL = "complete", "incomplete", "no judge", "partial"
STATUSES = (COMPLETE, INCOMPLETE, NO_JUDGE, PARTIAL)
SHOWN = (COMPLETE, NO_JUDGE, PARTIAL)
"""The statuses whose numbers are shown, ranked, pooled and published."""


@dataclass(frozen=True)
class Status:
    """A task entry's verdict: `status` (one of STATUSES) and, unless complete, why (`reason`)."""

    status: str
    reason: str | None = None

    @property
    def shown(self) -> bool:
        """Whether its numbers may be shown, ranked, pooled and published."""
        return self.status in SHOWN

    def fields(self) -> dict[str, str]:
        """The entry's `status` and `status_reason` keys."""
        return {"status": self.status, **({"status_reason": self.reason} if self.reason else {})}


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.0f}%)" if whole else f"{part} of 0"


def judge_flag(task: Any) -> str:
    """The `--judge` to add for a task's judged scores: the named judges of its protocol, else backend:model."""
    from .judge.named import judge_names, load_judge

    protocol = task.judge.get("protocol")
    names = [n for n in judge_names() if protocol and load_judge(n).protocol == protocol]
    return "--judge " + (" or --judge ".join(names) if names else "openai:MODEL")


def judge_status(task: Any, entry: Mapping[str, Any], judge: Any, files: Sequence[Path] = ()) -> Status:
    """THE rule: the status of one scored task entry (`score`'s output) for a run with `judge` (None: none).

    Incomplete beats no judge; the reason lists every problem found, each with its counts.
    """
    from .predictions import first_error

    rule: Completeness = getattr(task, "completeness", None) or Completeness()
    problems = []
    n = int(entry.get("n") or 0)
    if failed := int(entry.get("n_failed") or 0):
        error = first_error(list(files)) if files else None
        problems.append(f"{failed} of {n} items failed" + (f": {error}" if error else ""))
    coverage = entry.get("coverage") or {}
    asked = int(coverage.get("of") or 0)
    partial = bool(coverage.get("partial"))  # the source published only these items: judged on what it covers
    if asked and not partial and (scored := int(coverage.get("n") or 0)) < rule.min_coverage * asked:
        problems.append(f"{_share(scored, asked)} instances scored, below the task's min_coverage "
                        f"{rule.min_coverage:.0%}" + (f" ({coverage['why']})" if coverage.get("why") else ""))
    unparsed = int(entry.get("n_unparsed") or 0)
    if n and unparsed > rule.max_unparsed * n:
        cap = ((entry.get("config") or {}).get("effective") or {}).get("reply_cap_chars")
        problems.append(f"{_share(unparsed, n)} answers unparsed, above the task's max_unparsed "
                        f"{rule.max_unparsed:.0%}" + (f" (replies over {cap} characters are cut and count as "
                                                      "unparsed)" if cap else ""))
    errors = int(entry.get("n_error") or 0)
    verdicts = _verdicts(entry.get("details"))
    if errors and errors > rule.max_judge_errors * max(verdicts, errors):
        allowed = f"max_judge_errors {rule.max_judge_errors:.0%}" if rule.max_judge_errors else "none allowed"
        problems.append(f"{errors} of {max(verdicts, errors)} judge verdicts failed ({allowed})")
    scores = entry.get("scores") or {}
    expected = [s.key for s in task.scores if s.headline and (not s.judged or judge is not None)]
    if not scores:
        problems.append("no scores")
    elif missing := [k for k in expected if k not in scores]:
        problems.append(f"no {', '.join(missing)} score")
    if problems:
        return Status(INCOMPLETE, "; ".join(problems))
    if partial and int(coverage.get("n") or 0) < asked:
        return Status(PARTIAL, f"covers {int(coverage.get('n') or 0)} of {asked}"
                      + (f" ({coverage['why']})" if coverage.get("why") else "") + "; ranked on what it covers")
    unjudged = [s.label for s in task.scores if s.judged and s.key not in scores]
    if judge is None and unjudged:
        verb = "needs" if len(unjudged) == 1 else "need"
        return Status(NO_JUDGE, f"{', '.join(unjudged)} {verb} a judge; add {judge_flag(task)}")
    return Status(COMPLETE)


def _verdicts(details: Any) -> int:
    """How many judge verdicts a metric's output holds (`n_judgments`, or PASS + FAIL + ERROR), summed."""
    if not isinstance(details, Mapping):
        return 0
    if isinstance(details.get("n_judgments"), int):
        return int(details["n_judgments"])
    if all(isinstance(details.get(k), int) for k in ("n_pass", "n_fail", "n_error")):
        return int(details["n_pass"] + details["n_fail"] + details["n_error"])
    return sum(_verdicts(v) for v in details.values() if isinstance(v, Mapping))


def status_of(entry: Mapping[str, Any] | None) -> Status:
    """What a recorded task entry says of itself (a record written before `status` existed: failed items make it
    incomplete). Every reader goes through here; none decides again."""
    if not entry:
        return Status(INCOMPLETE, "not scored")
    status = entry.get("status")
    if status is None:
        failed = int(entry.get("n_failed") or 0)
        return Status(INCOMPLETE, f"{failed} of {entry.get('n')} items failed") if failed else Status(COMPLETE)
    if status == INCOMPLETE:
        return Status(INCOMPLETE, entry.get("status_reason") or "incomplete")
    return Status(str(status), entry.get("status_reason"))


def shows_numbers(entry: Mapping[str, Any] | None) -> bool:
    """Whether a task entry's numbers may be shown, ranked, pooled and published (complete, or no judge)."""
    return status_of(entry).shown


def record_problems(record: Mapping[str, Any], redact: Callable[[str], str] = str) -> str | None:
    """Why a whole results record must not be published (a task errored, an entry not whole, nothing scored), or
    None when it may be: what the leaderboard worker refuses a job with."""
    reasons = [f"{task}: {error}" for task, error in (record.get("errors") or {}).items()]
    for task, entry in (record.get("tasks") or {}).items():
        status = status_of(entry)
        if not status.shown:
            reasons.append(f"{task}: {status.reason}")
    if not reasons and not record.get("tasks"):
        skipped = "; ".join(f"{t}: {why}" for t, why in (record.get("skipped") or {}).items())
        reasons.append("no task was scored" + (f" ({skipped})" if skipped else ""))
    return redact("; ".join(reasons))[:1000] or None
