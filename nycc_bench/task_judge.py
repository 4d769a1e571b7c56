"""Each task's judge, resolved once: which judge a task gets (one for every task, or a mapping task -> judge) and
the `ResolvedJudge` it plays there (a named judge choosing the protocol a task offers, the reply rule, the
engine config). `evaluate` resolves every task's judge before running anything, so a judge that cannot play a
task fails in one line before any call is spent; `score` resolves a bare spec the same way."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import NyccBenchError
from .judging import JudgeSpec, ResolvedJudge
from .tasks import Task, all_tasks

JudgeArg = str | JudgeSpec | None
"""A judge as callers give it: a spec string (`reward:DIR`, a configuration's name), a parsed spec, or none."""


def judges_for(judge: JudgeArg | Mapping[str, JudgeArg], names: Sequence[str]) -> dict[str, JudgeSpec | None]:
    """The judge of each task run: one for all, or a mapping task -> judge (a task it leaves out: none). A key
    that names no task is one line with the nearest name; a task not run now is ignored (a mapping of every
    judged task's judge, such as `offline_judges`, serves any subset)."""
    def spec(j: JudgeArg) -> JudgeSpec | None:
        return JudgeSpec.parse(j) if isinstance(j, str) else j

    if not isinstance(judge, Mapping):
        return dict.fromkeys(names, spec(judge))
    known = set(all_tasks())
    for key in judge:
        if key not in known:
            near = difflib.get_close_matches(str(key), sorted(known), n=1)
            hint = f"did you mean {near[0]!r}?" if near else f"name one of {', '.join(names)}"
            raise NyccBenchError(f"judge: no task {key!r} (TASK=SPEC gives one task its own judge); {hint}")
    return {n: spec(judge.get(n)) for n in names}


def resolve_task_judge(task: Task, judge: JudgeSpec | ResolvedJudge | None,
                       chosen: Mapping[str, Any] | None = None) -> ResolvedJudge | None:
    """``judge`` as it plays ``task`` with the options ``chosen``: a named judge plays its protocol when the task
    offers it and the options leave it unset (`--judge zhang_best_pick_gpt4o` plays Best Pick; a protocol the
    user set wins, and a judge that cannot play it says so in one line). A resolved judge is returned as is."""
    if judge is None or isinstance(judge, ResolvedJudge):
        return judge
    chosen = dict(chosen or {})
    sets: dict[str, Any] = {}
    option = task.options.get("protocol")
    if judge.named is not None and option is not None and "protocol" not in chosen \
            and judge.named.protocol in option.values:
        sets["protocol"] = judge.named.protocol
    values = task.option_values({**chosen, **sets})
    protocol = values.get("protocol") or task.judge.get("protocol")
    try:
        return ResolvedJudge.resolve(judge, protocol, rule=values.get("rule"), task_options=sets)
    except NyccBenchError as err:  # the run's other tasks may keep this judge: this one can have its own
        raise NyccBenchError(f"{err}; or give {task.name} its own judge: --judge {task.name}=SPEC") from None


def judge_words(judges: Mapping[str, JudgeSpec | ResolvedJudge | None], names: Sequence[str]) -> list[str]:
    """The `--judge` words that give each task of ``names`` its judge: one `--judge SPEC` when every task has the
    same one, else `--judge TASK=SPEC` per judged task; then the judges' one endpoint and `--judge-batch`."""
    given = {n: j for n in names if (j := judges.get(n)) is not None}
    if not given:
        return []
    specs = [j.spec if isinstance(j, ResolvedJudge) else j for j in given.values()]
    if len(given) == len(names) and len({s.name for s in specs}) == 1:
        words = ["--judge", specs[0].name]
    else:
        words = [w for n, s in zip(given, specs, strict=True) for w in ("--judge", f"{n}={s.name}")]
    from .urls import redact_url

    urls = list(dict.fromkeys(str(redact_url(s.base_url)) for s in specs if s.base_url))
    if len(urls) > 1:  # the command line takes one judge endpoint
        raise NyccBenchError(f"judge: the tasks' judges call {len(urls)} endpoints ({', '.join(urls)}); the recorded "
                             "command takes one --judge-base-url: run them as separate evaluate calls")
    return [*words, *(["--judge-base-url", urls[0]] if urls else []),
            *(["--judge-batch"] if any(s.batch for s in specs) else [])]
