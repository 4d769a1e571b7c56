"""No module outside `nycc_bench/tasks/` names a task: browse, cards, CLIP, scorers and the rest read task fields
(kind, letters, from_pixels, judge, display, ...), so a task is added or renamed in its task file alone. And the
generic run path (`GENERIC_PATH`) names no option or reference key of one family: what a family adds goes through
its module's hooks (`nycc_bench.kinds.Hooks`).

A string literal equal to a task name (from the registry) fails, except where the same word means something else:

- a dataset CONFIG name is not a task name (a task's `dataset.config` often shares its task's name). Modules that
  read or write dataset configs by name may use them: the config argument of a dataset loader call
  (`load_split(dataset, CONFIG, split)`, `load_dataset(path, CONFIG)`) anywhere, and the modules in
  `CONFIG_MODULES`;
- `OTHER_MEANINGS`: a row field or a module name that happens to be spelled like a task, per module.
"""

from __future__ import annotations

import ast
from pathlib import Path

from nycc_bench.tasks import all_tasks

PACKAGE = Path(__file__).resolve().parents[1] / "nycc_bench"

CONFIG_MODULES = {
    "builders/": "reads upstream files into dataset configs and writes them (config specs, sources, the card)",
    "sample_data/": "writes the embedded sample's upstream-format files, one per dataset config",
    "submission.py": "Hessel's leaderboard boards are the `matching`/`ranking` leaderboard configs",
    "novelty/corpus.py": "reads the `caption_ratings` and `caption_generation` configs' parquet files directly",
    "reward/data.py": "trains the reward model on the `caption_ratings`/`caption_generation` configs' rows",
    "reproducing/hessel.py": "counts the from-pixels configs' upstream parquet rows (Hessel's split sizes)",
    "systems/baselines.py": "the retrieval baselines' pools are the `caption_ratings` and `explanation` configs' "
                            "train splits (`pool_source`, which the preflight checks too)",
}
OTHER_MEANINGS = {
    "judge/protocols/humorbench.py": {"explanation", "humorbench"},  # output field; module name
    "reward/grader.py": {"explanation"},  # a labelled row's field (element, explanation, label)
    "judges_report.py": {"explanation"},  # a labelled or stored-verdict row's field (element, explanation, label)
    "textcheck.py": {"explanation"},  # the kind of text checked (a caption or an explanation)
    "reward/card.py": {"humorbench"},  # a Hub tag on the element grader's card
    "code_version.py": {"humorbench"},  # the module judge/protocols/humorbench.py, hashed into code_version
    "kinds/parsing.py": {"explanation"},  # a word in replies, cut off the captions it follows
    # a family's module: its registered names (the `explanation` scorer, the `humorbench` builder and the
    # `explanation` parser, named in task files' `scorer.name`, `instances:`, `parser:`) and Hessel's configs with a
    # leaderboard set (`matching`, `ranking`)
    "kinds/hessel2023.py": {"explanation", "matching", "ranking"},
    "kinds/humorbench.py": {"explanation", "humorbench"},
    "kinds/zhang2024.py": {"ranking"},  # Hessel's `ranking` config, whose card names the judge's shot-pool shards
    "reproducing/figures.py": {"humorbench"},  # a paper's id for `reproduce --only` (the family's key)
    "published/humorbench.py": {"explanation"},  # a column of upstream's stored verdict files
}
LOADERS = {"load_split", "read_rows", "load_dataset"}  # their second argument (or config=) is a dataset config


def _config_arguments(tree: ast.AST) -> set[int]:
    """ids of the literal nodes passed as a dataset loader's config."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in LOADERS:
                out |= {id(a) for a in node.args[1:2]} | {id(k.value) for k in node.keywords if k.arg == "config"}
    return out


def task_name_literals(rel: str, source: str, names: set[str]) -> list[str]:
    """`file:line: 'name'` for each literal of the module `rel` (under nycc_bench/) that names a task."""
    if any(rel.startswith(prefix) for prefix in CONFIG_MODULES):
        return []
    allowed = OTHER_MEANINGS.get(rel, set())
    tree = ast.parse(source)
    configs = _config_arguments(tree)
    return [f"nycc_bench/{rel}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
            and node.value not in allowed and id(node) not in configs]


def test_no_module_outside_tasks_names_a_task() -> None:
    names = set(all_tasks())
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if path.relative_to(PACKAGE).parts[0] != "tasks"
             for hit in task_name_literals(path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8"),
                                           names)]
    assert not found, "task names in code (read a task field instead, see tests/test_no_task_names.py):\n" + \
        "\n".join(found)


def test_the_check_finds_a_task_name_branch_and_lets_configs_through() -> None:
    names = set(all_tasks())
    source = 'def f(task, d):\n    return task.name == "ranking" or load_split(d, "ranking", "test")\n'
    assert task_name_literals("leaderboard/probe.py", source, names) == ["nycc_bench/leaderboard/probe.py:2: 'ranking'"]
    assert task_name_literals("builders/probe.py", source, names) == []  # a config module may name configs
    assert task_name_literals("reward/grader.py", 'x = {"explanation": 1, "humorbench": 2}', names) == \
        ["nycc_bench/reward/grader.py:1: 'humorbench'"]  # another meaning is allowed only where it is listed


GENERIC_PATH = ("score.py", "runner.py", "results.py", "evaluation.py", "standings.py", "wholeness.py", "checking.py",
                "dry_run.py", "kinds/instances.py", "kinds/scorer.py", "kinds/loader.py", "kinds/registry.py",
                "kinds/check.py")
"""The modules every task runs through (`kinds/<family>.py` and outside `kinds.py` files are the families' own)."""
SHARED_KEYS = {
    "parser": "a task option `parser` picks another registered parser, for any task (kinds/parsing.py)",
    "setting": "the option that picks a task file's `by_system_kind` settings (tasks/definition.py)",
    "protocol": "the judge protocol option of a judged task, read by the judge machinery",
    "rule": "the judge's verdict rule option, read by the judge machinery",
    "last_k_tokens": "`score --last-k-tokens`, a CLI argument recorded as the task option of that name",
    "data": "`reference['data']`: what any builder's rows say of their provenance (`effective.data`)",
    "label": "the gold answer `show` and lm-eval read (the Instance contract)",
    "contest_number": "a row field of every dataset config",
}
"""Keys one family happens to be the only user of today, but that the generic path reads for any task."""
FAMILY_DETAILS = {"element_verdicts": "humorbench"}  # keys a family's scorer adds to `details` (its verdicts)


def family_keys(dataset: str) -> dict[str, str]:
    """key -> family, for each task option and instance reference key that only one family's tasks have (the
    references read from one instance of every task built on `dataset`), and each family's `details` keys."""
    from nycc_bench.kinds.instances import build_instances

    options: dict[str, set[str]] = {}
    references: dict[str, set[str]] = {}
    for task in all_tasks().values():
        for key in task.options:
            options.setdefault(key, set()).add(task.family)
        for key in {k for i in build_instances(task, dataset)[:20] for k in i.reference}:
            references.setdefault(key, set()).add(task.family)
    found = {k: next(iter(f)) for owners in (references, options) for k, f in owners.items()
             if len(f) == 1 and k not in SHARED_KEYS}
    return {**found, **FAMILY_DETAILS}


def family_key_literals(rel: str, source: str, keys: dict[str, str]) -> list[str]:
    """`file:line: 'key' (family)` for each literal of the module `rel` that is one family's key."""
    literals = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return [f"nycc_bench/{rel}:{n.lineno}: {n.value!r} ({keys[n.value]})" for n in literals if n.value in keys]


def test_the_generic_path_names_no_familys_keys(sample_dataset: str) -> None:
    keys = family_keys(sample_dataset)
    assert {"description", "description_source", "judge_description_source", "element_verdicts", "unit",
            "elements"} <= set(keys)  # Zhang's description options and sources, HumorBench's verdicts and units
    found = [hit for rel in GENERIC_PATH
             for hit in family_key_literals(rel, (PACKAGE / rel).read_text(encoding="utf-8"), keys)]
    assert not found, "one family's keys in the generic path (declare them in the family's Hooks):\n" + \
        "\n".join(found)


def test_the_family_key_check_finds_a_description_option() -> None:
    source = 'def f(values):\n    return values.get("description") == "gpt4o"\n'
    assert family_key_literals("score.py", source, {"description": "zhang2024"}) == \
        ["nycc_bench/score.py:2: 'description' (zhang2024)"]
