"""Every evaluate module: the Space faces under metrics/ and the package modules (files, offline loading from any
folder, doctest examples, signature, card, app, errors)."""

import ast
import doctest
import importlib.util
import inspect
import json
import math
import os
from pathlib import Path

import pytest
import yaml

from nycc_bench.metric_widget import compute
from nycc_bench.metrics import METRIC_NAMES, load_metric, metric_class, module_path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import evaluate  # after the offline switches

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = sorted(p for p in (ROOT / "metrics").iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
SPACE_KEYS = {
    "title",
    "emoji",
    "colorFrom",
    "colorTo",
    "sdk",
    "sdk_version",
    "app_file",
    "pinned",
    "tags",
    "description",
}
EXPECTED = {"nycc_accuracy", "crowd_ny_accuracy", "explanation_overlap", "group_win_rate", "ead_diversity",
            "element_autograder"}  # fmt: skip


@pytest.fixture(autouse=True)
def _offline_from_repo_root(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.chdir(ROOT)  # the examples load "metrics/<name>"


def load(name: str) -> evaluate.EvaluationModule:
    return evaluate.load(str(ROOT / "metrics" / name))


def test_every_specified_metric_exists():
    assert {f.name for f in FOLDERS} == EXPECTED == set(METRIC_NAMES)


@pytest.mark.parametrize("name", METRIC_NAMES)
class TestPackageModule:
    def test_loads_with_evaluate_from_another_folder(self, name, tmp_path, monkeypatch):
        # evaluate.load copies the file into its module cache and imports it on its own: no checkout needed
        monkeypatch.chdir(tmp_path)
        metric = evaluate.load(str(module_path(name)))
        assert type(metric).__name__ == metric_class(name).__name__ and metric.name == name
        assert module_path(name).parent.name == "metrics" and module_path(name).parent.parent.name == "nycc_bench"
        app = _app(ROOT / "metrics" / name)
        examples = [f.example for f in app.FIELDS]
        from_file = compute(str(module_path(name)), tuple(app.FIELDS), *examples)
        assert "error" not in from_file, from_file
        # the same numbers as the Space face and as load_metric
        assert from_file == compute(str(app.MODULE), tuple(app.FIELDS), *examples)
        kwargs = {f.name: json.loads(v) for f, v in zip(app.FIELDS, examples, strict=True) if v.strip()}
        assert json.loads(json.dumps(load_metric(name).compute(**kwargs), default=str)) == from_file

    def test_imports_are_absolute(self, name):
        tree = ast.parse(module_path(name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 0 and node.module.split(".")[0] in {"nycc_bench", "datasets", "evaluate"}

    def test_space_face_serves_the_package_class(self, name):
        assert issubclass(type(load(name)), metric_class(name))  # documented for evaluate, the same class otherwise
        assert type(load_metric(name)) is metric_class(name) and load_metric(name) is load_metric(name)


def test_unknown_metric_names_the_nearest():
    with pytest.raises(ValueError, match=r"metric: no metric named 'ead_diversty'; did you mean 'ead_diversity'\?"):
        load_metric("ead_diversty")
    with pytest.raises(ValueError, match="metric: no metric named"):
        module_path(["not", "a", "name"])


def test_a_failed_compute_leaves_the_shared_instance_clean():
    metric = load_metric("nycc_accuracy")
    with pytest.raises(ValueError, match="references"):
        metric.compute(predictions=["A", "B", "C"], references=["A", "B"])
    metric.add_batch(predictions=["A"], references=["A"])
    with pytest.raises(ValueError, match="invalid_as_wrong"):
        metric.compute(invalid_as_wrong="yes")
    assert metric.compute(predictions=["B", "A"], references=["A", "A"])["n"] == 2


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
class TestFolder:
    def test_four_files(self, folder):
        for file in (f"{folder.name}.py", "README.md", "app.py", "requirements.txt"):
            assert (folder / file).is_file(), file

    def test_loads_offline_and_package_examples_pass(self, folder):
        # the package class's examples (load_metric); the folder's own (evaluate.load) run in test_metric_conventions
        assert issubclass(type(evaluate.load(str(folder))), metric_class(folder.name))
        cls = metric_class(folder.name)
        tests = doctest.DocTestFinder().find(cls, cls.__name__, globs={})
        examples = [t for t in tests if t.examples]
        assert examples, "the inputs docstring has runnable examples"
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        for test in examples:
            runner.run(test)
        assert runner.summarize(verbose=False).failed == 0

    def test_compute_takes_no_var_kwargs(self, folder):
        cls = type(evaluate.load(str(folder)))
        kinds = {p.kind for p in inspect.signature(cls._compute).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds

    def test_info_has_features_description_citation(self, folder):
        info = evaluate.load(str(folder)).info
        assert info.features and info.description.strip() and info.citation.strip()
        assert "Examples:" in info.inputs_description

    def test_module_imports_are_scanner_safe(self, folder):
        # evaluate's import scanner misreads `import a, b` and treats a trailing comment as a pip hint
        for path in (folder / f"{folder.name}.py", module_path(folder.name)):
            self._scanner_safe(path)

    @staticmethod
    def _scanner_safe(path):
        for line in path.read_text().splitlines():
            if line.startswith(("import ", "from ")):
                assert "," not in line.split(" import ")[0] and "#" not in line, line

    def test_card_front_matter(self, folder):
        text = (folder / "README.md").read_text(encoding="utf-8")
        assert text.startswith("---\n")
        meta = yaml.safe_load(text.split("---\n")[1])
        assert set(meta) >= SPACE_KEYS
        assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py"
        assert {"evaluate", "metric"} <= set(meta["tags"])
        body = text.split("---\n", 2)[2]
        for section in ("## What it measures", "### Inputs", "### Outputs", "## Definition", "## Limitations",
                        "## Citation"):  # fmt: skip
            assert section in body, section

    def test_app_imports_without_launching(self, folder, monkeypatch):
        gr = pytest.importorskip("gradio")

        def refuse(*args, **kwargs):
            raise AssertionError("app.py launched at import")

        monkeypatch.setattr(gr.Blocks, "launch", refuse)
        module = _app(folder)
        assert isinstance(module.demo, gr.Blocks)
        result = compute(str(module.MODULE), tuple(module.FIELDS), *[f.example for f in module.FIELDS])
        assert "error" not in result, result


def _app(folder: Path):
    """The Space's app.py, imported (gradio builds the Blocks; nothing is launched)."""
    spec = importlib.util.spec_from_file_location(f"app_{folder.name}", folder / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BAD_INPUTS = [
    ("nycc_accuracy", {"predictions": ["A", "B"], "references": ["A"]}, "references"),
    ("nycc_accuracy", {"predictions": ["A", "F"], "references": ["A", "B"]}, "predictions"),
    ("nycc_accuracy", {"predictions": ["A", math.nan], "references": ["A", "B"]}, "predictions"),
    ("nycc_accuracy", {"predictions": ["A", "B"], "references": ["A", "B"], "folds": [0]}, "folds"),
    ("crowd_ny_accuracy", {"predictions": ["A"], "references": ["A"], "winner_sources": ["crowd"]}, "winner_sources"),
    (
        "crowd_ny_accuracy",
        {"predictions": ["A"], "references": ["C"], "winner_sources": ["crowd_winner"]},
        "references",
    ),
    ("explanation_overlap", {"predictions": ["x", None], "references": ["x", "y"]}, "predictions"),
    ("explanation_overlap", {"predictions": ["x", math.nan], "references": ["x", "y"]}, "predictions"),
    ("ead_diversity", {"predictions": [["a"], []]}, "predictions"),
    ("ead_diversity", {"predictions": [["a", "b"], ["c", math.nan]]}, "predictions"),
    ("ead_diversity", {"predictions": [["a", "b"], ["c", None]]}, "predictions"),
    ("ead_diversity", {"predictions": [["a"]], "max_n": 0}, "max_n"),
    ("group_win_rate", {"judgments": [{"contest_number": 1, "model_position": "A", "verdict": None}]}, "judgments"),
    ("group_win_rate", {"judgments": [{"contest_number": 1, "model_position": "A", "verdict": "C"}]}, "judgments"),
    ("element_autograder", {"predictions": ["e"], "references": ["x"], "judgments": ["MAYBE"]}, "judgments"),
    (
        "element_autograder",
        {"predictions": ["e"], "references": ["x"], "judgments": ["PASS"], "categories": [["puns"]]},
        "categories",
    ),
    (
        "element_autograder",
        {"predictions": ["e"], "references": ["x"], "judgments": ["PASS"], "hard": [1, 2]},
        "hard",
    ),
    (
        "element_autograder",
        {"predictions": ["e"], "references": ["x"], "judgments": ["PASS"], "human_labels": ["ERROR"]},
        "human_labels",
    ),
]


@pytest.mark.parametrize(("name", "kwargs", "argument"), BAD_INPUTS)
def test_bad_inputs_raise_value_error_naming_the_argument(name, kwargs, argument):
    metric = load(name)
    with pytest.raises(ValueError, match=argument):
        metric.compute(**kwargs)


def test_group_win_rate_accepts_judgments_with_extra_keys_and_add():
    metric = load("group_win_rate")
    metric.add(judgments={"contest_number": 1, "model_position": "B", "verdict": "B", "raw": "...", "human_group": 1})
    metric.add_batch(judgments=[{"contest_number": 1, "model_position": "A", "verdict": None, "delta_logprob": 3.1}])
    result = metric.compute()
    assert result["win_rate"] == 1.0 and result["n_contests"] == 1


def test_missing_predictions_reach_the_accuracy_rule_as_none():
    metric = load("nycc_accuracy")
    result = metric.compute(predictions=[None, "A", math.nan], references=["A", "A", "B"], invalid_as_wrong=True)
    assert result["n_invalid"] == 2 and result["accuracy"] == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match=r"predictions\[0\] is missing"):
        load("crowd_ny_accuracy").compute(predictions=[None], references=["A"], winner_sources=["crowd_winner"])


def test_element_autograder_groups_captions_by_explanation_unless_ids_are_given():
    metric = load("element_autograder")
    rows = {"predictions": ["e1", "e1", "e2"], "references": ["x", "y", "z"], "judgments": ["PASS", "FAIL", "PASS"]}
    assert metric.compute(**rows)["n_captions"] == 2
    assert metric.compute(**rows, caption_ids=[1, 2, 3])["n_captions"] == 3
