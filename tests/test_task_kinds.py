"""Task kinds beside their YAML, variants as a few keys, and tasks from outside the package: CONTRIBUTING.md's
worked examples ("How to add a task") are written out of the document and run, so the document cannot drift."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from nycc_bench import evaluate
from nycc_bench.cli import main, parser
from nycc_bench.errors import NyccBenchError
from nycc_bench.kinds import Built, Instance, builders, parsers, register_hooks, scorers
from nycc_bench.tasks import get_task, include_tasks, list_tasks

ROOT = Path(__file__).resolve().parents[1]
_FILE = re.compile(r"^\*\*`mytasks/([^`]+)`\*\*\n```\w*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def contributing_files() -> dict[str, str]:
    """Path inside the example folder -> text, for every file CONTRIBUTING.md shows as `mytasks/...`."""
    return dict(_FILE.findall((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")))


def write_example(folder: Path, prefix: str) -> Path:
    """Write CONTRIBUTING's files under `prefix` into `folder`; the folder."""
    for rel, text in contributing_files().items():
        if rel.startswith(prefix):
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text, encoding="utf-8")
    return folder


def test_contributing_shows_the_examples() -> None:
    files = contributing_files()
    assert set(files) == {"hessel2023/ranking_3shot.yaml", "pairwise/funnier.yaml", "pairwise/funnier.txt",
                          "pairwise/kinds.py", "families.yaml"}
    assert len(files["hessel2023/ranking_3shot.yaml"].splitlines()) <= 10
    assert sum(rel.endswith(".py") for rel in files if rel.startswith("pairwise/")) <= 2


def test_the_3shot_variant_runs_with_its_computed_deviation(sample_dataset: str, tmp_path: Path) -> None:
    folder = write_example(tmp_path / "mytasks", "hessel2023/")
    run = evaluate(system="random", tasks="ranking_3shot", dataset=sample_dataset, folds=[0], limit=3,
                   out=tmp_path / "run", progress=False, include_path=folder)
    entry = run.record["tasks"]["ranking_3shot"]
    assert entry["n"] == 3 and "accuracy" in entry["scores"]
    assert entry["config"]["task_file"] == "hessel2023/ranking_3shot.yaml"
    assert "3 worked examples per item; the paper used 0 or 5." in entry["config"]["deviations"]
    assert get_task("ranking").deviations[0] in entry["config"]["deviations"]  # inherited along base:
    assert "--include-path" in run.record["commands"][0]
    with pytest.raises(NyccBenchError, match="unknown task 'ranking_3shot'"):
        get_task("ranking_3shot")  # the include path does not outlive the call


def test_deviations_accumulate_along_base(tmp_path: Path) -> None:
    folder = tmp_path / "more" / "hessel2023"
    folder.mkdir(parents=True)
    (folder / "a.yaml").write_text("base: ranking\nname: ranking_a\ndeviations: [\"A's own deviation.\"]\n")
    (folder / "b.yaml").write_text("base: ranking_a\nname: ranking_b\ndeviations: [\"B's own deviation.\"]\n")
    with include_tasks(tmp_path / "more"):
        b = get_task("ranking_b")
    assert b.deviations == (*get_task("ranking").deviations, "A's own deviation.", "B's own deviation.")


def test_the_funnier_task_from_an_outside_folder(sample_dataset: str, tmp_path: Path, capsys) -> None:
    folder = write_example(tmp_path / "mytasks", "pairwise/")
    assert main(["tasks", "check", "funnier", "--include-path", str(folder), "--dataset", sample_dataset]) == 0
    assert "ok   funnier:" in capsys.readouterr().out
    assert main(["tasks", "show", "funnier", "--include-path", str(folder)]) == 0
    shown = capsys.readouterr().out
    assert "task_file: pairwise/funnier.yaml" in shown and "family: pairwise" in shown
    run = evaluate(system="random", tasks="funnier", dataset=sample_dataset, out=tmp_path / "run", progress=False,
                   include_path=str(folder))
    entry = run.record["tasks"]["funnier"]
    assert entry["status"] == "complete" and entry["n"] >= 1
    assert 0.0 <= entry["scores"]["accuracy"]["value"] <= 1.0
    assert entry["config"]["task_file"] == "pairwise/funnier.yaml"
    assert "funnier" not in list_tasks() and "funnier_pairs" not in builders()  # nothing leaks past the call
    predictions = str(tmp_path / "run" / entry["predictions"][0])
    assert main(["score", "--task", "funnier", "--predictions", predictions, "--dataset", sample_dataset,
                 "--include-path", str(folder), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert scored["scores"]["accuracy"]["value"] == entry["scores"]["accuracy"]["value"]
    assert parser().parse_args(["leaderboard", "--include-path", str(folder)]).include_path == [str(folder)]



def test_the_report_reads_the_score_registry_when_asked(sample_dataset: str, tmp_path: Path) -> None:
    """The score columns are read from the task files of the include path in use when asked, not at import: after
    `evaluate(include_path=...)` from Python, the report shows the outside task's score, not "—"."""
    from nycc_bench.report import render_report, score_lines
    from nycc_bench.standings import build_frame
    from nycc_bench.tasks.scores import family_metrics, metrics

    folder = write_example(tmp_path / "mytasks", "pairwise/")
    run = evaluate(system="random", tasks="funnier", dataset=sample_dataset, out=tmp_path / "run", progress=False,
                   include_path=folder, limit=3)
    value = run.record["tasks"]["funnier"]["scores"]["accuracy"]["value"]
    [line] = score_lines(run.record, include_path=folder)
    assert f"Funnier of two {100 * value:.1f} [" in line and "—" not in line
    assert "<th>Funnier of two</th>" in render_report([run.record], include_path=folder)
    with include_tasks(folder):
        assert [m.key for m in family_metrics("pairwise")] == ["funnier:accuracy"]
        assert build_frame([run.record]).loc[0, "funnier:accuracy"] == round(100 * value, 1)
    assert "funnier:accuracy" not in {m.key for m in metrics()}  # read again once the include path is gone
    assert score_lines(run.record)[0].rstrip().endswith("—")


def test_a_task_path_folder_from_the_environment(tmp_path: Path, monkeypatch, capsys) -> None:
    folder = write_example(tmp_path / "mytasks", "pairwise/")
    monkeypatch.setenv("NYCC_BENCH_TASK_PATH", str(folder))
    assert "funnier" in list_tasks("pairwise") and get_task("funnier").family == "pairwise"
    assert builders()["funnier_pairs"].__name__ == "funnier_pairs"
    monkeypatch.delenv("NYCC_BENCH_TASK_PATH")
    assert "funnier" not in list_tasks() and "funnier_pairs" not in builders()


def test_outside_names_may_not_shadow_built_in_ones(tmp_path: Path, capsys) -> None:
    clash = tmp_path / "clash" / "hessel2023"
    clash.mkdir(parents=True)
    (clash / "matching.yaml").write_text("base: ranking\nname: matching\n")
    assert main(["tasks", "list", "--include-path", str(tmp_path / "clash")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("name 'matching' is already used by a built-in task; rename it") and "\n" not in err
    kinds = tmp_path / "kinds" / "mine"
    kinds.mkdir(parents=True)
    (kinds / "kinds.py").write_text("from nycc_bench.kinds import register_parser\n\n\n"
                                    "@register_parser('choice')\ndef mine(raw, letters):\n    return raw\n")
    with (pytest.raises(NyccBenchError, match="registers the built-in parser 'choice'; choose another name"),
          include_tasks(tmp_path / "kinds")):
        parsers()  # read when asked: listing the tasks imports no kinds.py
    assert parsers()["choice"].__module__ == "nycc_bench.kinds.parsing"
    with pytest.raises(NyccBenchError, match=r"include-path: .*nowhere is not a folder"), \
            include_tasks(tmp_path / "nowhere"):
        pass


def test_each_family_registers_its_kinds_in_its_module() -> None:
    assert builders()["hessel"].__module__ == "nycc_bench.kinds.hessel2023"
    assert builders()["zhang_generation"].__module__ == "nycc_bench.kinds.zhang2024"
    assert parsers()["explanation"].__module__ == scorers()["elements"].__module__ == "nycc_bench.kinds.humorbench"
    assert scorers()["metric"].__module__ == "nycc_bench.kinds.scorer"
    assert get_task("caption_generation").outputs.count == 10 and get_task("matching").outputs.count == 1


def test_the_caption_scorer_calls_the_task_files_metric() -> None:
    task = get_task("caption_generation")
    insts = [Instance(instance_id=str(c), user="", reference={"contest_number": c}) for c in (1, 2)]
    preds = [["a cat", "a dog at work"], ["the boss is a bear", "coffee again"]]
    scores = scorers()[task.scorer](task, insts, preds, [0, 0], None, {})
    assert scores["n_missing"] == 0 and "average_ead" in scores
    with pytest.raises(NyccBenchError, match="no_such_argument"):
        scorers()[task.scorer](replace(task, metric_options={"no_such_argument": 1}), insts, preds, [0, 0], None, {})


def test_a_builder_returns_its_skipped_rows(sample_dataset: str) -> None:
    from nycc_bench.kinds.instances import build

    built = build(get_task("caption_generation"), sample_dataset, options={"prompt": "caption_gen"})
    assert isinstance(built, Built) and built.instances
    assert all(isinstance(i, Instance) for i in built.instances)
    assert not {i.instance_id for i in built.instances} & {str(c) for c in built.skipped}


def test_an_outside_family_file_gives_a_group_and_a_tab(tmp_path: Path, capsys) -> None:
    from nycc_bench.tasks.families import families
    from nycc_bench.tasks.registry import resolve_tasks

    folder = write_example(tmp_path / "mytasks", "pairwise/")
    (folder / "families.yaml").write_text(contributing_files()["families.yaml"], encoding="utf-8")
    with include_tasks(folder):
        assert families()["pairwise"].title == "Pairwise preferences"
        assert resolve_tasks("pairwise") == ["funnier"]
    assert "pairwise" not in families()
    assert main(["tasks", "--include-path", str(folder)]) == 0
    assert "groups: all, hessel, zhang, humorbench, pairwise" in capsys.readouterr().out
    clash = tmp_path / "clash"
    clash.mkdir()
    (clash / "families.yaml").write_text(contributing_files()["families.yaml"].replace("pairwise:", "zhang2024:", 1),
                                         encoding="utf-8")
    with pytest.raises(NyccBenchError, match="family 'zhang2024' is already defined"), include_tasks(clash):
        families()


def test_an_outside_family_declares_its_hooks(sample_dataset: str, tmp_path: Path) -> None:
    """A family's additions to the generic path are its hooks: an option alias, settings recorded in
    `config.effective` with their deviation, a check of its task files; a built-in family's hooks are not
    redeclared."""
    folder = write_example(tmp_path / "mytasks", "pairwise/")
    task_file = folder / "pairwise" / "funnier.yaml"
    task_file.write_text(task_file.read_text() + "options: {order: {default: seeded, values: [seeded, best_first]}}\n")
    kinds = folder / "pairwise" / "kinds.py"
    kinds.write_text(kinds.read_text() + """

from nycc_bench.errors import NyccBenchError
from nycc_bench.kinds import register_hooks


def _check(task):
    if task.letters != "AB":
        raise NyccBenchError(f"task file {task.source}: letters must be AB for a pair")


register_hooks("pairwise", option_aliases=("order",), check=_check,
               effective=lambda task, instances, options, judge: {"pairs": len(instances)},
               deviations=lambda task, instances, options, judge, effective: [f"{effective['pairs']} pairs only."])
""")
    run = evaluate(system="random", tasks="funnier", dataset=sample_dataset, out=tmp_path / "run", progress=False,
                   include_path=folder, limit=2, order="best_first")  # a system option that is the task's
    config = run.record["tasks"]["funnier"]["config"]
    assert config["effective"]["pairs"] == 2 and "2 pairs only." in config["deviations"]
    assert config["options"]["order"] == "best_first"
    other = tmp_path / "other"  # task files are read once per include path: the edited copy is another one
    shutil.copytree(folder, other)
    (other / "pairwise" / "funnier.yaml").write_text(task_file.read_text().replace("letters: AB", "letters: ABC"))
    with pytest.raises(NyccBenchError, match="letters must be AB for a pair"):
        evaluate(system="random", tasks="funnier", dataset=sample_dataset, out=tmp_path / "run2", progress=False,
                 include_path=other)
    clash = tmp_path / "clash" / "mine"
    clash.mkdir(parents=True)
    (clash / "kinds.py").write_text("from nycc_bench.kinds import register_hooks\n\n"
                                    "register_hooks('humorbench', option_aliases=('unit',))\n")
    with pytest.raises(NyccBenchError, match="registers the built-in hooks 'humorbench'"), \
            include_tasks(tmp_path / "clash"):
        builders()
    with pytest.raises(NyccBenchError, match="declares an unknown hook 'efective'; did you mean 'effective'"):
        register_hooks("pairwise", efective=len)


def test_humorbench_checks_its_scorer_arguments() -> None:
    """HumorBench's hook refuses, before anything runs, a task scored by `elements` that does not map an argument
    the autograder reads."""
    from nycc_bench.kinds.check import check_task

    task = get_task("humorbench")
    check_task(task)
    lean = replace(task, arguments={k: v for k, v in task.arguments.items() if k != "captions"})
    with pytest.raises(NyccBenchError, match=r"scorer\.arguments lacks captions; the elements scorer grades"):
        check_task(lean)


def test_a_report_shows_an_outside_task_from_its_record(sample_dataset: str, tmp_path: Path) -> None:
    """The record's command names its task folder: a report rendered without it still shows the task's scores."""
    from nycc_bench.report import render_report

    folder = write_example(tmp_path / "mytasks", "hessel2023/")
    run = evaluate(system="random", tasks="ranking_3shot", dataset=sample_dataset, folds=[0], limit=3,
                   out=tmp_path / "run", progress=False, include_path=folder)
    page = render_report([run.record])
    assert "No task was scored" not in page and "Ranking (3-shot)" in page
