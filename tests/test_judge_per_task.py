"""Each task's judge, resolved once (`ResolvedJudge`): `--judge TASK=SPEC` gives tasks their own judges, the
recorded command names each task's judge and gives the same judges back, a judge that cannot play a task fails
before anything runs, and the run reads the resolved judge without parsing or filling it again."""

from __future__ import annotations

import itertools
import json
import shlex
from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply
from judge_helpers import group_inputs, use_fake_key

from nycc_bench import evaluate, judging
from nycc_bench.cli import main, parser
from nycc_bench.commands.options import judge_spec
from nycc_bench.errors import DryRun, NyccBenchError
from nycc_bench.judge import named
from nycc_bench.judge.named import load_judge
from nycc_bench.judging import JudgeSpec, ResolvedJudge, protocol_config, run_judge
from nycc_bench.task_judge import judge_words, judges_for, resolve_task_judge
from nycc_bench.tasks import get_task

GROUPS = "caption_generation"
ELEMENTS = "humorbench"
PLAIN = "matching"


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_fake_key(monkeypatch, tmp_path)


def _judges(*values: str, tasks: str = f"{GROUPS},{ELEMENTS},{PLAIN}") -> object:
    """What `nycc-bench evaluate --judge V ...` hands `evaluate` as its judge."""
    args = parser().parse_args(["evaluate", "--system", "random", "--out", "unused", "--tasks", tasks,
                                *[w for v in values for w in ("--judge", v)]])
    return judge_spec(args, dry_run=False)


def test_task_equals_spec_gives_a_task_its_own_judge() -> None:
    both = _judges("reward:/r", f"{ELEMENTS}=embedding:/g")
    assert {t: j.name for t, j in both.items()} == {GROUPS: "reward:/r", ELEMENTS: "embedding:/g", PLAIN: "reward:/r"}
    only = _judges(f"{GROUPS}=reward:/r", f"{ELEMENTS}=embedding:/g")
    assert {t: j and j.name for t, j in only.items()} == {GROUPS: "reward:/r", ELEMENTS: "embedding:/g", PLAIN: None}
    assert _judges("reward:/r").name == "reward:/r"  # a plain --judge is still one spec for every task
    assert _judges("reward:/runs/a=b").name == "reward:/runs/a=b"  # a path may hold `=`
    assert _judges() is None


@pytest.mark.parametrize(("values", "message"), [
    ([f"{GROUPS[:-1]}x=reward:/r"], f"is not a task run ({GROUPS}, {ELEMENTS}); --judge TASK=SPEC names one of "
                                    f"them: did you mean {GROUPS}=reward:/r?"),
    ([f"{PLAIN}=reward:/r"], "is not a task run"),
    (["reward:/r", "embedding:/g"], "2 judges for every task (reward:/r, embedding:/g); give one --judge SPEC"),
    ([f"{GROUPS}=reward:/r", f"{GROUPS}=reward:/s"], f"two judges for {GROUPS} (reward:/r, reward:/s)"),
    (["=reward:/r"], "expected SPEC or TASK=SPEC"),
    ([f"{GROUPS}="], "expected SPEC or TASK=SPEC"),
])
def test_a_bad_judge_is_one_line_naming_the_fix(values: list[str], message: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["evaluate", "--system", "random", "--tasks", f"{GROUPS},{ELEMENTS}", "--dataset", str(tmp_path / "none"),
            "--out", str(tmp_path / "run"), *[w for v in values for w in ("--judge", v)]]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("nycc-bench evaluate: error: judge: ") and message in err
    assert not (tmp_path / "run" / "predictions").exists()  # refused before anything ran


def test_a_mapping_that_names_no_task_is_refused_from_python(tmp_path: Path) -> None:
    with pytest.raises(NyccBenchError, match=f"judge: no task '{GROUPS}s' .*did you mean '{GROUPS}'") as refused:
        evaluate("random", [PLAIN], dataset=str(tmp_path / "none"), judge={f"{GROUPS}s": "reward:/r"},
                 out=tmp_path / "run", progress=False)
    assert "\n" not in str(refused.value)
    # a mapping of every judged task's judge (the offline set) serves any subset of the tasks
    assert judges_for({GROUPS: "reward:/r", ELEMENTS: "embedding:/g"}, [PLAIN, GROUPS]) == {
        PLAIN: None, GROUPS: JudgeSpec("reward", "/r")}


@pytest.mark.parametrize("judges", [
    {GROUPS: JudgeSpec("reward", "/r"), ELEMENTS: JudgeSpec("embedding", "/g"), PLAIN: None},
    {GROUPS: JudgeSpec("reward", "/r"), ELEMENTS: JudgeSpec("reward", "/r"), PLAIN: JudgeSpec("reward", "/r")},
    {GROUPS: JudgeSpec("reward", "/r"), ELEMENTS: None, PLAIN: JudgeSpec("reward", "/r")},
    {GROUPS: None, ELEMENTS: None, PLAIN: None},
])
def test_the_recorded_judge_words_give_the_same_judges_back(judges: dict) -> None:
    names = list(judges)
    words = judge_words(judges, names)
    given = [w for flag, w in itertools.pairwise(words) if flag == "--judge"]
    back = _judges(*given, tasks=",".join(names))
    if not any(judges.values()):
        assert words == [] and back is None
        return
    if len({j and j.name for j in judges.values()}) == 1:  # the same judge everywhere: one plain --judge
        assert words == ["--judge", "reward:/r"] and back == judges[GROUPS]
        return
    assert {t: j and j.name for t, j in back.items()} == {t: j and j.name for t, j in judges.items()}


def test_the_recorded_words_carry_the_endpoint_without_its_password() -> None:
    spec = JudgeSpec.parse("zhang_overall_gpt4turbo", base_url="https://u:secret@judge.example/v1", batch=True)
    words = judge_words({GROUPS: spec, PLAIN: None}, [GROUPS, PLAIN])
    assert words[:2] == ["--judge", f"{GROUPS}=zhang_overall_gpt4turbo"] and "--judge-batch" in words
    assert "secret" not in shlex.join(words) and "judge.example" in shlex.join(words)
    other = JudgeSpec.parse("humorbench_gpt4o", base_url="https://other.example/v1")
    with pytest.raises(NyccBenchError, match="2 endpoints"):
        judge_words({GROUPS: spec, ELEMENTS: other}, [GROUPS, ELEMENTS])


def test_a_named_judge_is_resolved_once_for_its_task() -> None:
    """The named judge chooses the protocol the task offers (recorded as the option it set), its parser is the
    rule unless the task's `rule` option says otherwise, and its engine config carries the paper's re-asks."""
    task = get_task(GROUPS)
    pick = JudgeSpec.parse("zhang_best_pick_gpt4o")
    resolved = resolve_task_judge(task, pick, {})
    assert (resolved.protocol, dict(resolved.task_options)) == ("best_pick", {"protocol": "best_pick"})
    assert resolved.rule == load_judge("zhang_best_pick_gpt4o").parser and resolved.config == protocol_config(
        pick, "best_pick")
    assert resolve_task_judge(task, resolved, {}) is resolved  # a resolved judge is never resolved again
    overall = resolve_task_judge(task, JudgeSpec.parse("zhang_overall_gpt4turbo"), {"rule": "letters_topk"})
    assert (overall.protocol, overall.rule) == ("overall", "letters_topk")
    assert dict(overall.task_options) == {"protocol": "overall"}
    with pytest.raises(NyccBenchError, match="zhang_best_pick_gpt4o is a best_pick judge, not overall"):
        resolve_task_judge(task, pick, {"protocol": "overall"})
    offline = resolve_task_judge(task, JudgeSpec("reward", "/r"), {})
    assert (offline.protocol, offline.config, offline.name) == (None, None, "reward:/r")
    assert resolve_task_judge(get_task(PLAIN), pick, {}).protocol is None  # a task without a judge protocol


def test_run_judge_reads_the_resolved_judge_without_filling_it_again(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = JudgeSpec.parse("zhang_overall_gpt4turbo", dry_run=True)
    resolved = ResolvedJudge.resolve(spec, "overall")

    def again(*_: object, **__: object) -> None:
        raise AssertionError("resolved again")

    monkeypatch.setattr(judging, "protocol_config", again)
    monkeypatch.setattr(judging, "load_judge", again)
    monkeypatch.setattr(named, "load_judge", again)
    model, human, descriptions = group_inputs([1, 2])
    with pytest.raises(DryRun) as stop:
        run_judge("overall", resolved, model_groups=model, human_groups=human, contest_numbers=[1, 2],
                  descriptions=descriptions)
    assert stop.value.estimate.n_calls == 4  # both orders of both contests, from the resolved config
    with pytest.raises(ValueError, match="resolved for overall, not best_pick"):
        run_judge("best_pick", resolved, model_groups=model, human_groups=human, contest_numbers=[1, 2],
                  descriptions=descriptions)


def test_evaluate_resolves_each_judge_once_and_refuses_a_misfit_before_running(
        sample_dataset: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    resolve = ResolvedJudge.resolve.__func__

    def counted(cls: type, spec: JudgeSpec, protocol: str | None, *args: object, **kwargs: object) -> ResolvedJudge:
        calls.append(f"{spec.name}@{protocol}")
        return resolve(cls, spec, protocol, *args, **kwargs)

    monkeypatch.setattr(ResolvedJudge, "resolve", classmethod(counted))
    with FakeChatServer(lambda body, attempt: Reply(text="A")) as server:
        judge = JudgeSpec.parse("zhang_overall_gpt4turbo", base_url=server.base_url, cache_dir=str(tmp_path / "c"))
        for module in (named, judging):
            monkeypatch.setattr(module, "load_judge", lambda *_: pytest.fail("a judge configuration parsed again"))
        run = evaluate("random", [GROUPS, PLAIN], dataset=sample_dataset, judge={GROUPS: judge}, limit=2,
                       out=tmp_path / "run", progress=False)
        assert server.requests
    assert calls == ["zhang_overall_gpt4turbo@overall"]  # once, for the judged task, before it ran
    assert f"--judge {GROUPS}=zhang_overall_gpt4turbo" in run.record["commands"][0]
    entry = run.record["tasks"][GROUPS]["config"]
    assert entry["judge"]["protocol"] == "overall" and entry["judge"]["settings"]["rule"] == "zhang_top2"
    assert run.record["tasks"][PLAIN]["config"]["judge"]["name"] is None
    monkeypatch.undo()
    use_fake_key(monkeypatch, tmp_path)
    with pytest.raises(NyccBenchError, match="humorbench_gpt4o is a humorbench_autograder judge, not overall"):
        evaluate("random", [PLAIN, GROUPS], dataset=sample_dataset, judge="humorbench_gpt4o",
                 out=tmp_path / "misfit", progress=False)
    assert not (tmp_path / "misfit" / "predictions").exists()  # refused before the first task ran


def test_the_dry_run_plans_each_tasks_own_judge(sample_dataset: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["evaluate", "--system", "openai:gpt-4o", "--tasks", f"{GROUPS},{ELEMENTS}", "--dataset", sample_dataset,
            "--out", str(tmp_path / "run"), "--limit", "2", "--dry-run"]
    assert main([*argv, "--judge", f"{GROUPS}=zhang_overall_gpt4turbo", "--judge", "humorbench_gpt4o"]) == 0
    plan = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["dry_run"]
    assert {t["task"]: t["stages"][-1]["who"] for t in plan["tasks"]} == {GROUPS: "zhang_overall_gpt4turbo",
                                                                          ELEMENTS: "humorbench_gpt4o"}
    assert all(t["stages"][-1]["calls"] for t in plan["tasks"]) and not (tmp_path / "run").exists()
    assert main([*argv, "--judge", "zhang_overall_gpt4turbo"]) == 2  # one judge cannot play both: refused at once
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.endswith(f"or give {ELEMENTS} its own judge: --judge {ELEMENTS}=SPEC"), err


def test_without_raising_a_misfit_judge_is_that_tasks_error_and_the_others_run(sample_dataset: str,
                                                                               tmp_path: Path) -> None:
    """The leaderboard worker's run (`raise_errors=False`): the task the judge cannot play is recorded as an
    error naming the fix, before it runs; the other tasks are scored."""
    run = evaluate("random", [PLAIN, ELEMENTS], dataset=sample_dataset, judge="zhang_overall_gpt4turbo", limit=2,
                   out=tmp_path / "run", progress=False, raise_errors=False)
    assert list(run.record["tasks"]) == [PLAIN] and list(run.record["errors"]) == [ELEMENTS]
    assert f"--judge {ELEMENTS}=SPEC" in run.record["errors"][ELEMENTS]
    assert not list((tmp_path / "run" / "predictions").glob(f"{ELEMENTS}*"))
