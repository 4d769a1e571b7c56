"""Named judge configurations: every shipped one loads against a registered protocol and parser and is the
paper's judge; bad files and unknown names are one-line errors; CONTRIBUTING's worked example runs end to end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fake_openai import FakeChatServer, Reply
from judge_helpers import group_inputs, use_fake_key

from nycc_bench import evaluate
from nycc_bench.cli import main
from nycc_bench.errors import DryRun, NyccBenchError
from nycc_bench.judge import get_protocol, protocol_names
from nycc_bench.judge.named import CONFIGS_DIR, judge_names, load_judge
from nycc_bench.judge.parsers import PARSERS
from nycc_bench.judge.prompts import read_prompt
from nycc_bench.judging import (
    JudgeSpec,
    ResolvedJudge,
    group_judgments,
    judge_from_kwargs,
    protocol_config,
    run_judge,
)
from nycc_bench.llm import LLMConfig
from nycc_bench.llm.chat import Completion

CONTRIBUTING = Path(__file__).resolve().parents[1] / "CONTRIBUTING.md"
SHIPPED = sorted(path.stem for path in CONFIGS_DIR.glob("*.yaml"))


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_fake_key(monkeypatch, tmp_path)


def test_the_papers_judges_ship_as_configurations() -> None:
    assert {"zhang_overall_gpt4turbo", "zhang_best_pick_gpt4o", "humorbench_gpt4o"} <= set(SHIPPED)
    assert judge_names() == SHIPPED
    assert {load_judge(name).protocol for name in SHIPPED} == set(protocol_names())


@pytest.mark.parametrize("name", SHIPPED)
def test_every_configuration_loads_with_an_existing_protocol_and_parser(name: str) -> None:
    named = load_judge(name)
    protocol = get_protocol(named.protocol)
    assert named.name == name and named.prompt in protocol.versions
    parser = named.parser or protocol.paper["rule"]
    assert parser in PARSERS and parser in protocol.parsers
    assert dict(named.parser_args).keys() <= set(protocol.parser_args)
    spec = JudgeSpec.parse(name)
    assert (spec.backend, spec.model, spec.name) == (named.backend, named.model, name)
    settings = ResolvedJudge.resolve(spec, named.protocol).settings()
    assert settings["deviations"] == [], settings["deviations"]  # each shipped judge is the paper's own setting
    assert settings["model"] == named.model and settings["prompt_version"] == named.prompt
    record = spec.describe()
    assert record["config"] == name and record["config_settings"]["protocol"] == named.protocol


def test_an_unknown_name_is_one_line_naming_the_nearest() -> None:
    with pytest.raises(NyccBenchError, match=r"did you mean 'zhang_overall_gpt4turbo'\?") as typo:
        JudgeSpec.parse("zhang_overal_gpt4turbo")
    with pytest.raises(NyccBenchError, match=r"the nearest is 'humorbench_gpt4o'") as unknown:
        load_judge("humorbench_claude")
    assert "\n" not in str(typo.value) + str(unknown.value)
    assert JudgeSpec.parse("gpt-4o").name == "openai:gpt-4o"  # a bare model name still means openai:


def test_an_unknown_name_on_the_command_line_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reliability", "--dataset", "unused", "--judge", "zhang_best_pik_gpt4o"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "zhang_best_pick_gpt4o" in err


@pytest.mark.parametrize(("text", "message"), [
    ("backend: openai\nmodel: m\nprotocol: overall\napi_key: sk-1\n", "unknown key 'api_key'"),
    ("backend: openai\nmodel: m\nprotocol: overal\n", "did you mean 'overall'"),
    ("backend: openai\nmodel: m\nprotocol: overall\nparser: exact_letter\n", "parser: overall reads replies with"),
    ("backend: openai\nmodel: m\nprotocol: best_pick\nthreshold: 2.0\n", "threshold: best_pick has no"),
    ("backend: openai\nmodel: m\nprotocol: overall\nprompt: v9\n", "prompt: 'v9' is not a version of overall"),
    ("backend: openai\nmodel: m\nprotocol: overall\nparser_args: {top_logprobs: 99}\n", "top_logprobs: expected"),
    ("backend: openai\nmodel: m\nprotocol: humorbench_autograder\nparser_args: {top_logprobs: 5}\n",
     "humorbench_autograder takes parse_retries"),
    ("backend: openai\nmodel: m\nprotocol: overall\nbase_url: https://u:pw@example.org/v1\n",
     "base_url: a URL without"),
    ("backend: reward\nmodel: m\nprotocol: overall\n", "backend: expected one of openai, transformers"),
    ("model: m\nprotocol: overall\n", "backend: required"),
])
def test_a_bad_configuration_is_refused_naming_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(NyccBenchError, match=re.escape(message)) as refused:
        JudgeSpec.parse(str(path))
    assert str(path) in str(refused.value) and "\n" not in str(refused.value)


def test_a_judge_runs_only_its_own_protocol() -> None:
    with pytest.raises(NyccBenchError, match="humorbench_gpt4o is a humorbench_autograder judge, not overall; pass "
                                             "zhang_overall_gpt4turbo"):
        run_judge("overall", JudgeSpec.parse("humorbench_gpt4o"), model_groups=[])


def test_the_configurations_parser_arguments_and_threshold_reach_the_run(tmp_path: Path) -> None:
    path = tmp_path / "topk.yaml"
    path.write_text("base: zhang_overall_gpt4turbo\nparser: letters_topk\nparser_args: {top_logprobs: 5, "
                    "parse_retries: 1}\nthreshold: 2.5\n", encoding="utf-8")
    spec = JudgeSpec.parse(str(path), base_url="http://127.0.0.1:9/v1")
    config = protocol_config(spec, "overall")
    assert (config.top_logprobs, config.parse_retries, config.prompt_version) == (5, 1, "zhang2024-overall-v2")
    resolved = ResolvedJudge.resolve(spec, "overall")
    assert resolved.config == config and resolved.rule == "letters_topk"
    assert resolved.win_rate_kwargs() == {"threshold": 2.5}
    deviations = " ".join(resolved.settings()["deviations"])
    assert "'letters_topk' rule" in deviations and "threshold is 2.5" in deviations
    assert "top_logprobs is 5" in deviations
    assert judge_from_kwargs(**spec.metric_kwargs()) == spec  # the judged metrics load the same judge by name


def _worked_example() -> str:
    """The YAML block of CONTRIBUTING's "How to add a judge"."""
    section = CONTRIBUTING.read_text(encoding="utf-8").split("## How to add a judge", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)


def test_contributing_worked_example_runs_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "my_judges"
    folder.mkdir()
    (folder / "overall_mini.yaml").write_text(_worked_example(), encoding="utf-8")
    assert len(_worked_example().splitlines()) <= 5
    monkeypatch.setenv("NYCC_BENCH_JUDGE_PATH", str(folder))
    assert "overall_mini" in judge_names()
    contests = [1, 2, 3]
    model, human, descriptions = group_inputs(contests)
    with FakeChatServer(lambda body, attempt: Reply(text="A", top_logprobs=[("A", -0.1), ("B", -4.0)])) as server:
        options = {"base_url": server.base_url, "cache_dir": str(tmp_path / "cache")}
        dry = JudgeSpec.parse("overall_mini", dry_run=True, **options)
        with pytest.raises(DryRun) as stop:
            group_judgments(dry, model, human, contests, descriptions, "overall")
        assert stop.value.estimate.n_calls == 2 * len(contests) and server.count() == 0  # the same jobs, estimated
        spec = JudgeSpec.parse("overall_mini", **options)
        records = group_judgments(spec, model, human, contests, descriptions, "overall")
    assert {r.body["model"] for r in server.requests} == {"gpt-4o-mini"}
    assert {r.body["top_logprobs"] for r in server.requests} == {2}  # the base's parser: upstream's zhang_top2
    assert len(records) == 6 and {r["rule"] for r in records} == {"zhang_top2"}
    assert all(r["delta_logprob"] == pytest.approx(3.9) for r in records)
    record = spec.describe()
    assert (record["name"], record["config"], record["model"]) == ("overall_mini", "overall_mini", "gpt-4o-mini")
    assert record["config_settings"]["threshold"] == 3.003349167
    assert record["config_settings"]["parser"] == "zhang_top2"
    assert ResolvedJudge.resolve(spec, "overall").settings()["deviations"] == [
        "The judge is gpt-4o-mini; the paper's is gpt-4-turbo."]


@pytest.mark.parametrize("name", protocol_names())
def test_every_protocol_object_is_whole(name: str) -> None:
    """Its parsers are named ones, each version's prompt files exist, and `parse` reads a reply as its jobs do."""
    protocol = get_protocol(name)
    assert set(protocol.parsers) <= set(PARSERS) and protocol.paper["rule"] in protocol.parsers
    for version in protocol.versions:
        for vision in (True, False):
            assert all(read_prompt(file) for file in protocol.prompts(version, vision).values())
    job = protocol.jobs(LLMConfig(model="m"), **protocol.probe)[0]
    reply = Completion(text="<judgement>PASS</judgement>\nA", top_logprobs=(("A", -0.5), ("B", -2.0)))
    context = {"rule": protocol.paper["rule"], "model_position": "A"} if protocol.takes_rule else {}
    assert protocol.parse(reply, **context) == job.parse(reply)
    assert get_protocol(name) is protocol and protocol.modules


def test_evaluate_with_a_named_judge_records_the_configuration(sample_dataset: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "overall_mini.yaml").write_text(_worked_example(), encoding="utf-8")
    monkeypatch.setenv("NYCC_BENCH_JUDGE_PATH", str(tmp_path))
    with FakeChatServer(lambda body, attempt: Reply(text="A")) as server:
        judge = JudgeSpec.parse("overall_mini", base_url=server.base_url, cache_dir=str(tmp_path / "cache"))
        run = evaluate("random", ["caption_generation"], dataset=sample_dataset, judge=judge, out=tmp_path / "run",
                       progress=False)
    assert {r.body["model"] for r in server.requests} == {"gpt-4o-mini"}
    record = run.record
    assert record["judge"]["config"] == "overall_mini"
    assert record["judge"]["config_settings"]["model"] == "gpt-4o-mini"
    assert "--judge overall_mini" in record["commands"][0]
    config = record["tasks"]["caption_generation"]["config"]
    assert config["judge"]["config"] == "overall_mini" and config["judge"]["config_settings"]["parser"] == "zhang_top2"
    assert config["judge"]["settings"]["rule"] == "zhang_top2"  # the protocol's settings, as the run applied them
    assert "The judge is gpt-4o-mini; the paper's is gpt-4-turbo." in config["deviations"]


def test_a_named_judge_plays_its_own_protocol_unless_the_task_option_is_set(sample_dataset: str, tmp_path: Path
                                                                            ) -> None:
    """`--judge zhang_best_pick_gpt4o` on caption_generation plays Best Pick without `protocol=best_pick`; a
    protocol the user sets wins, and the judge then refuses it in one line."""
    with FakeChatServer(lambda body, attempt: Reply(text="A")) as server:
        judge = JudgeSpec.parse("zhang_best_pick_gpt4o", base_url=server.base_url, cache_dir=str(tmp_path / "cache"))
        run = evaluate("random", ["caption_generation"], dataset=sample_dataset, judge=judge, out=tmp_path / "run",
                       progress=False)
        config = run.record["tasks"]["caption_generation"]["config"]
        assert config["options"]["protocol"] == "best_pick" and config["judge"]["protocol"] == "best_pick"
        assert server.requests and {r.body["model"] for r in server.requests} == {"gpt-4o"}
        with pytest.raises(NyccBenchError, match="best_pick"):
            evaluate("random", ["caption_generation"], dataset=sample_dataset, judge=judge, out=tmp_path / "run2",
                     task_options={"caption_generation": {"protocol": "overall"}}, progress=False)
