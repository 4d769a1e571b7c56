"""The task model (`nycc_bench/tasks/`) on its own: reading task files, `base:` variants, the schema, names and
groups, folds. Nothing here runs a task, so nothing here imports `nycc_bench.kinds`."""

from __future__ import annotations

from pathlib import Path

import pytest

from nycc_bench.errors import NyccBenchError
from nycc_bench.tasks import all_tasks, config_name, get_task, list_tasks, resolve_tasks
from nycc_bench.tasks.path import ENV_TASK_PATH


def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> Path:
    """An outside task folder holding `files` (path -> text), put on the include path."""
    root = tmp_path / "mytasks"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    monkeypatch.setenv(ENV_TASK_PATH, str(root))
    return root


def test_every_built_in_task_reads_with_its_prompts_and_scores() -> None:
    tasks = all_tasks()
    assert len(tasks) >= 9
    for name, task in tasks.items():
        assert task.name == name and task.built_in
        assert task.prompts and all(text.strip() for text in task.prompts.values()), name
        assert task.scores and len({s.key for s in task.scores}) == len(task.scores), name
        assert task.prompt_version.startswith(f"{name}-") and len(task.prompt_version) == len(name) + 13


def test_a_variant_merges_mappings_replaces_lists_and_adds_deviations(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    outside(tmp_path, monkeypatch, {"hessel2023/ranking_3shot.yaml": (
        "base: ranking\nname: ranking_3shot\nsummary: three shots\noptions: {shots: {default: 3}}\n"
        "deviations: [\"A hand-written sentence.\"]\n"
        "scores:\n  - {key: accuracy, label: Ranking (3-shot), path: accuracy, headline: true}\n")})
    base, variant = get_task("ranking"), get_task("ranking_3shot")
    assert not variant.built_in and variant.source == "hessel2023/ranking_3shot.yaml"
    assert variant.options["shots"].default == 3 and base.options["shots"].default != 3
    assert set(variant.options) == set(base.options)  # the other options are the base's (mappings merge)
    assert variant.options["shots"].values == base.options["shots"].values  # and so is the rest of `shots`
    assert [s.key for s in variant.scores] == ["accuracy"] and len(base.scores) == 3  # lists replace
    assert variant.deviations == (*base.deviations, "A hand-written sentence.")  # added to the base's
    assert variant.prompts == base.prompts and variant.prompt_version != base.prompt_version  # named per task
    assert variant.config == base.config and variant.metric == base.metric


def test_an_empty_mapping_clears_what_the_base_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside(tmp_path, monkeypatch, {"hessel2023/ranking_plain.yaml": (
        "base: ranking\nname: ranking_plain\nsummary: no options\noptions: {}\n")})
    assert get_task("ranking").options and dict(get_task("ranking_plain").options) == {}


@pytest.mark.parametrize(("text", "said"), [
    ("base: ranking\nname: typo_task\nsummary: s\noptons: {shots: {default: 3}}\n", "options"),
    ("base: ranking\nname: typo_score\nsummary: s\nscores:\n  - {key: a, lable: A, path: accuracy}\n", "label"),
    ("base: ranking\nname: typo_dataset\nsummary: s\ndataset: {confg: ranking}\n", "config"),
])
def test_an_unknown_key_is_refused_with_the_nearest_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        text: str, said: str) -> None:
    outside(tmp_path, monkeypatch, {"hessel2023/bad.yaml": text})
    with pytest.raises(NyccBenchError) as err:
        all_tasks()
    message = str(err.value)
    assert "\n" not in message and "bad.yaml" in message and said in message


def test_a_base_that_loops_or_is_missing_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside(tmp_path, monkeypatch, {"mine/a.yaml": "base: b\nname: a\n", "mine/b.yaml": "base: a\nname: b\n"})
    with pytest.raises(NyccBenchError, match="is not a task \\(or loops\\)"):
        all_tasks()
    outside(tmp_path / "2", monkeypatch, {"mine/c.yaml": "base: no_such_task\nname: c\n"})
    with pytest.raises(NyccBenchError, match="base 'no_such_task' is not a task"):
        all_tasks()


def test_an_outside_task_may_not_take_a_built_in_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside(tmp_path, monkeypatch, {"hessel2023/ranking.yaml": "base: matching\nname: ranking\n"})
    with pytest.raises(NyccBenchError, match="already used by a built-in task; rename it"):
        all_tasks()


def test_names_groups_and_typos() -> None:
    assert resolve_tasks("matching,matching,ranking") == ["matching", "ranking"]
    assert resolve_tasks("hessel") == list_tasks("hessel2023") and "matching" in resolve_tasks("hessel")
    assert resolve_tasks("humorbench") == list_tasks("humorbench")  # the group, which holds the task
    assert set(resolve_tasks("all")) == set(all_tasks())
    with pytest.raises(NyccBenchError, match="Did you mean 'matching'"):
        get_task("matchin")
    with pytest.raises(NyccBenchError, match="name at least one task"):
        resolve_tasks(" , ")
    with pytest.raises(NyccBenchError, match="unknown family or group 'hesel'"):
        list_tasks("hesel")


def test_folds_name_their_configs() -> None:
    matching, caption = get_task("matching"), get_task("caption_generation")
    assert [config_name(matching, f) for f in matching.folds] == ["matching", *(f"matching_{f}" for f in (1, 2, 3, 4))]
    assert config_name(caption, 0) == caption.config
    with pytest.raises(NyccBenchError, match="no cross-validation folds"):
        config_name(caption, 1)
    with pytest.raises(NyccBenchError, match="expected one of 0, 1, 2, 3, 4"):
        config_name(matching, 5)


def test_options_are_checked_against_the_task_file() -> None:
    ranking = get_task("ranking")
    values = ranking.option_values({"shots": 3})
    assert values["shots"] == 3 and set(values) == set(ranking.options)
    with pytest.raises(NyccBenchError, match="has no option 'shot'"):
        ranking.option_values({"shot": 3})
