"""The systems registry is the one list: the README's systems table is generated from it, and CONTRIBUTING's
one-file baseline (read from CONTRIBUTING.md itself) shows in `--help`, `SPECS`, `BASELINES`, the README table,
the cards, and runs through `nycc_bench.evaluate`. `NYCC_UPDATE_README=1` rewrites the README's table."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nycc_bench.cli import main
from nycc_bench.errors import NyccBenchError
from nycc_bench.systems import registry
from nycc_bench.tasks import all_tasks

ROOT = Path(__file__).resolve().parents[1]
TABLE = re.compile(r"^\| spec \| what it is .*?(?=\n\n)", re.MULTILINE | re.DOTALL)


def contributing_example() -> str:
    """The python block of CONTRIBUTING's "How to add a system"."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## How to add a system\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"^```python\n(.*?)^```", section, re.MULTILINE | re.DOTALL).group(1)  # type: ignore[union-attr]


@pytest.fixture
def own_registry(monkeypatch: pytest.MonkeyPatch) -> dict:
    """A copy of the registry for one test, so what it registers does not outlive it."""
    copy = dict(registry.REGISTRY)
    monkeypatch.setattr(registry, "REGISTRY", copy)
    return copy


def load_file(path: Path, name: str) -> None:
    """Import a file by path, as `--include-path` imports a task folder's `kinds.py`."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]


def test_the_readme_systems_table_is_the_registry() -> None:
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    found = TABLE.search(text)
    assert found, "README.md has no systems table (a '| spec | what it is ...' header)"
    if os.environ.get("NYCC_UPDATE_README") and found.group(0) != registry.markdown_table():
        readme.write_text(text[:found.start()] + registry.markdown_table() + text[found.end():], encoding="utf-8")
        text = readme.read_text(encoding="utf-8")
    assert registry.markdown_table() in text, \
        "README.md's systems table is stale: NYCC_UPDATE_README=1 pytest tests/test_readme_systems.py"
    for entry in registry.REGISTRY.values():
        assert f"| `{entry.form}` | {entry.help}" in text


def test_contributings_one_file_baseline_is_listed_everywhere_and_runs(
        tmp_path: Path, own_registry: dict, sample_dataset: str, capsys: pytest.CaptureFixture[str]) -> None:
    from nycc_bench import evaluate
    from nycc_bench.publish.cards import describe, is_ours, slug
    from nycc_bench.systems import BASELINES, SPECS

    source = contributing_example()
    assert len(source.splitlines()) <= 20  # one short file
    (tmp_path / "shortest.py").write_text(source, encoding="utf-8")
    assert "shortest" not in SPECS
    load_file(tmp_path / "shortest.py", "nycc_user_shortest")

    assert SPECS["shortest"] == "the shortest caption (multiple choice only)"
    assert BASELINES["shortest"] == "Shortest-caption baseline" and list(BASELINES)[-1] == "shortest"
    assert "| `shortest` | the shortest caption (multiple choice only) (a baseline) | — |" in registry.markdown_table()
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "shortest" in " ".join(capsys.readouterr().out.split())
    assert is_ours("shortest") and slug("shortest") == "baseline-shortest"
    assert describe("shortest").startswith("Pick the shortest caption")

    run = evaluate(system="shortest", tasks=["matching", "explanation"], dataset=sample_dataset,
                   out=tmp_path / "run", progress=False)
    assert run.record["model"]["spec"] == "shortest"
    matching = run.record["tasks"]["matching"]
    assert matching["n"] > 0 and matching["n_unparsed"] == 0 and 0 <= matching["scores"]["accuracy"]["value"] <= 1
    assert "explanation" not in run.record["tasks"]  # it cannot answer: skipped, as `length` is
    assert registry.baseline_matrix()["shortest"] == [n for n, t in all_tasks().items() if t.kind == "choice"]


def test_registration_errors_are_one_line(own_registry: dict) -> None:
    from nycc_bench.systems import System, make_system
    from nycc_bench.systems.baselines import LengthSystem

    with pytest.raises(NyccBenchError, match=r"^system: 'length' is already registered by "
                                             r"nycc_bench\.systems\.baselines\.LengthSystem; register Other under"):
        @registry.register_system("length", help="x")
        class Other(LengthSystem):
            """Another."""
    with pytest.raises(NyccBenchError, match=r"goes on a subclass of nycc_bench\.systems\.System"):
        registry.register_system("plain", help="x")(dict)  # type: ignore[type-var]
    with pytest.raises(NyccBenchError, match="lower-case letters"):
        registry.register_system("Has Space", help="x")

    @registry.register_system("echo", form="echo:<text>", help="says its argument back")
    class Echo(System):
        """Answers with the spec's text."""

        def __init__(self, text: str, repeat: int = 1, *, loud: bool = False) -> None:
            self.spec, self.text, self.repeat, self.loud = f"echo:{text}", text, repeat, loud

        @classmethod
        def from_spec(cls, arg: str, dataset: str, base_url: str | None = None, **options: object) -> Echo:
            return cls(arg, **options)  # type: ignore[arg-type]

        def generate(self, task, instances):  # type: ignore[no-untyped-def]
            return []

    assert own_registry["echo"].options == ("repeat", "loud") and Echo.system_kind == "echo"
    assert make_system("echo:hi", "unused", repeat=2).repeat == 2
    with pytest.raises(NyccBenchError, match=r"^system-option: echo takes no option 'reapeat' \(did you mean "
                                             r"'repeat'\?\); it takes: repeat, loud$"):
        make_system("echo:hi", "unused", reapeat=2)
    with pytest.raises(NyccBenchError, match=r"(?s)^system: cannot read 'echo'; a system is one of:\n.*"
                                             r"  echo:<text> +says its argument back"):
        make_system("echo", "unused")
    with pytest.raises(NyccBenchError, match="cannot read 'length:7'"):
        make_system("length:7", "unused")
    with pytest.raises(NyccBenchError, match=r"system-option: openai takes no option 'batch_size' \(did you mean "
                                             r"'batch'\?\); it takes: max_concurrency, cache_dir, timeout_s, retries, "
                                             r"batch, batch_wait_s, deadline_s, temperature"):
        make_system("openai:gpt-4o", "unused", batch_size=2)
    assert make_system("random:7", "unused").spec == "random:7"


def test_the_registry_and_the_systems_import_nothing_heavy() -> None:
    """The decorator and every built-in system module load without numpy, torch, transformers or the LLM
    engine, so `--help` lists them all at once and a task folder's `kinds.py` may register one cheaply."""
    heavy = ("numpy", "torch", "transformers", "openai", "datasets", "sentence_transformers", "nycc_bench.llm")
    code = ("import json, sys; from nycc_bench.systems.registry import REGISTRY; "
            f"print(json.dumps([sorted(REGISTRY), [m for m in {heavy!r} if m in sys.modules]]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    names, loaded = json.loads(done.stdout)
    assert names == sorted(["random", "length", "sbert", "openai", "hf", "vllm-server", "vllm", "vlm", "clip"])
    assert loaded == []
