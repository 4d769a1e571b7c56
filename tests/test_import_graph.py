"""No import cycle among nycc_bench modules, counting every import in a file (lazy ones inside functions too);
a package's `__init__` importing its own submodules (re-exports) is not an edge. And the layering: the task model
(`tasks/`) imports only the ground floor, so reading task files never imports what runs them (`kinds/`)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "nycc_bench"


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(current: str, is_package: bool, node: ast.ImportFrom | ast.Import, known: set[str]) -> set[str]:
    """The nycc_bench modules one import statement reaches (a `from x import name` reaches x.name if a module)."""
    out: set[str] = set()
    if isinstance(node, ast.Import):
        for alias in node.names:
            name = alias.name
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name.startswith("nycc_bench"):
                out.add(name)
        return out
    base_parts = current.split(".") if is_package else current.split(".")[:-1]
    if node.level:
        base_parts = base_parts[: len(base_parts) - (node.level - 1)]
        base = ".".join(base_parts + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    if not base.startswith("nycc_bench"):
        return out
    for alias in node.names:
        if f"{base}.{alias.name}" in known:
            out.add(f"{base}.{alias.name}")
        elif base in known:
            out.add(base)
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> the nycc_bench modules it imports anywhere in its file."""
    files = {_module(p): p for p in PACKAGE.rglob("*.py")}
    known = set(files)
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        named: set[str] = set()  # "module:function" strings: imported when called (`commands.COMMANDS`)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value.partition(":")[0] in known and node.value.partition(":")[2].isidentifier():
                named.add(node.value.partition(":")[0])
            elif isinstance(node, ast.Import | ast.ImportFrom):
                edges |= _resolve(name, is_package, node, known)
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module" and node.args \
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                target = node.args[0].value
                if target.startswith("."):
                    target = (name if is_package else name.rpartition(".")[0]) + target
                if target in known:
                    edges.add(target)
        if is_package:  # re-exporting its own submodules is fine
            edges = {e for e in edges if not e.startswith(name + ".")}
        graph[name] = (edges | named) - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a list of modules, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " → ".join(cycle or [])


def test_the_checker_finds_a_lazy_cycle() -> None:
    """The checker itself: a cycle closed by an import inside a function is found."""
    graph = {"nycc_bench.a": {"nycc_bench.b"}, "nycc_bench.b": {"nycc_bench.a"}, "nycc_bench.c": set()}
    assert find_cycle(graph) == ["nycc_bench.a", "nycc_bench.b", "nycc_bench.a"]
    tree = ast.parse("def f():\n    from .cli import main\n")
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom))
    assert _resolve("nycc_bench.builders", True, node, {"nycc_bench.builders.cli", "nycc_bench.cli"}) == \
        {"nycc_bench.builders.cli"}


def test_only_the_faces_import_the_leaderboard() -> None:
    """Scores are a `tasks/` concept (`tasks/scores.py`) and ranked tables (and the pooled columns) live in
    `standings.py`: the report and the cards never import the leaderboard; only the CLI (which serves and seeds
    it), the demo and the run viewer's page (built from the leaderboard's run detail, issue 35) do."""
    faces = {"nycc_bench.cli", "nycc_bench.demo", "nycc_bench.viewer.page"}
    found = sorted(f"{module} → {target}" for module, targets in import_graph().items()
                   if not module.startswith(("nycc_bench.leaderboard", "nycc_bench.commands."))
                   and module not in faces
                   for target in targets if target.startswith("nycc_bench.leaderboard"))
    assert not found, found


def test_the_cli_is_the_top() -> None:
    """`cli.py` assembles the command modules (`commands/`, one per command) and nothing imports either: the
    command line is the top of the graph, so no library module depends on how a command parses its options."""
    graph = import_graph()
    commands = {m for m in graph if m.startswith("nycc_bench.commands")}
    assert len(commands) > 10, sorted(commands)
    found = sorted(f"{module} → {target}" for module, targets in graph.items()
                   if module != "nycc_bench.cli" and not module.startswith("nycc_bench.commands")
                   for target in targets & (commands | {"nycc_bench.cli"}))
    assert not found, found
    assert {t for t in graph["nycc_bench.cli"] | graph["nycc_bench.commands"] if t.startswith("nycc_bench.commands.")} \
        >= commands - {"nycc_bench.commands", "nycc_bench.commands.options"}  # cli.py imports what COMMANDS names


GROUND_FLOOR = {"nycc_bench.errors", "nycc_bench.yaml_files", "nycc_bench.images", "nycc_bench.groups"}
"""Modules that import no other part of the package but each other: what the task model may stand on."""


def layering_violations(graph: dict[str, set[str]]) -> list[str]:
    """`module → target` for each import from `tasks/` to anything but `tasks/` and the ground floor, and from the
    ground floor to anything above it."""
    model = lambda m: m == "nycc_bench.tasks" or m.startswith("nycc_bench.tasks.")  # noqa: E731
    found = [f"{m} → {t}" for m, targets in graph.items() if model(m)
             for t in targets if not model(t) and t not in GROUND_FLOOR]
    found += [f"{m} → {t}" for m in GROUND_FLOOR for t in graph.get(m, ()) if t not in GROUND_FLOOR]
    return sorted(found)


def test_the_task_model_imports_only_the_ground_floor() -> None:
    """`tasks/` is the model (task files, families, scores, display): no builder, scorer, kind, system or judge."""
    graph = import_graph()
    assert set(graph) >= GROUND_FLOOR
    assert layering_violations(graph) == []


def test_the_layering_check_finds_an_upward_import() -> None:
    graph = {"nycc_bench.tasks.registry": {"nycc_bench.errors", "nycc_bench.kinds.loader"},
             "nycc_bench.tasks": {"nycc_bench.tasks.registry"}, "nycc_bench.errors": set(),
             "nycc_bench.images": {"nycc_bench.systems.api"}, "nycc_bench.kinds.loader": {"nycc_bench.tasks"}}
    assert layering_violations(graph) == ["nycc_bench.images → nycc_bench.systems.api",
                                          "nycc_bench.tasks.registry → nycc_bench.kinds.loader"]


def test_reading_task_files_imports_no_kinds(tmp_path: Path) -> None:
    """`import nycc_bench.tasks; list_tasks()` in a fresh interpreter imports no `nycc_bench.kinds` module, nor
    what runs (systems, judges, metrics, builders), nor an outside folder's `kinds.py` (this one would fail)."""
    folder = tmp_path / "outside" / "mine"
    folder.mkdir(parents=True)
    (folder / "kinds.py").write_text("raise RuntimeError('imported while reading task files')\n")
    code = ("import json, sys; import nycc_bench.tasks; nycc_bench.tasks.list_tasks(); nycc_bench.tasks.all_tasks(); "
            "from nycc_bench.tasks.scores import metrics; metrics(); "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('nycc_bench'))))")
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent), "NYCC_BENCH_TASK_PATH": str(tmp_path / "outside")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert "nycc_bench.tasks.registry" in loaded
    running = ("nycc_bench.kinds", "nycc_bench.systems", "nycc_bench.judg", "nycc_bench.metrics", "nycc_bench.builders",
               "nycc_bench.scor", "nycc_bench_task_kinds")
    assert [m for m in loaded if m.startswith(running)] == []
