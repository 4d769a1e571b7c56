"""No module outside `nycc_bench/tasks/` names a task: browse, cards, CLIP, scorers and the rest read task fields
(kind, letters, from_pixels, judge, display, ...), so a task is added or renamed in its task file alone.

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
}
OTHER_MEANINGS = {
    "judge/protocols/humorbench.py": {"explanation", "humorbench"},  # output field; module name
    "reward/grader.py": {"explanation"},  # a labelled row's field (element, explanation, label)
    "reward/card.py": {"humorbench"},  # a Hub tag on the element grader's card
    "code_version.py": {"humorbench"},  # the module judge/protocols/humorbench.py, hashed into code_version
    "kinds/parsing.py": {"explanation"},  # a word in replies, cut off the captions it follows
    # a family's module: its registered names (the `explanation` scorer, the `humorbench` builder and the
    # `explanation` parser, named in task files' `scorer.name`, `instances:`, `parser:`) and Hessel's configs with a
    # leaderboard set (`matching`, `ranking`)
    "kinds/hessel2023.py": {"explanation", "matching", "ranking"},
    "kinds/humorbench.py": {"explanation", "humorbench"},
    "reproducing/figures.py": {"humorbench"},  # a paper's id for `reproduce --only` (the family's key)
}
LOADERS = {"load_split", "load_dataset"}  # their second argument (or config=) is a dataset config


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
