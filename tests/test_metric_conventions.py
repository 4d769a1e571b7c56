"""evaluate's conventions for a metric module, checked on every `metrics/<name>/<name>.py` as evaluate's own
`tests/test_metric_common.py` checks its metrics: the module loads through evaluate's module factory, its main
class is defined in the module, its doctests run (loading the metric by name through `evaluate.load`, which maps
to the folder), `_compute` takes no `**kwargs`, and the declared features are the documented inputs. The files
are generated from the package modules (`nycc_bench.metrics._faces`) and must be in sync with them."""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
from pathlib import Path

import pytest

evaluate = pytest.importorskip("evaluate")

from nycc_bench.metrics import METRIC_NAMES, metric_class  # noqa: E402
from nycc_bench.metrics._faces import evaluate_examples, space_module  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = sorted(p for p in (ROOT / "metrics").iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


def _module(folder: Path):
    """The folder's module as evaluate imports it (copied into its module cache), and its main class."""
    factory = evaluate.loading.evaluation_module_factory(str(folder), module_type="metric")
    module = importlib.import_module(factory.module_path)
    return module, evaluate.loading.import_main_class(module.__name__)


def _documented(text: str) -> set[str]:
    """The argument names the `Args:` section documents (`name (`type`...)`, several may share a line)."""
    args = text.split("Args:", 1)[1].split("Returns:", 1)[0]
    return set(re.findall(r"(?:^ {4}|, )(\w+) \(`", args, flags=re.M))


def test_every_metric_has_a_folder() -> None:
    assert [f.name for f in FOLDERS] == sorted(METRIC_NAMES)


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
class TestEvaluateConventions:
    def test_doctests_run_through_evaluate_load_of_the_folder(self, folder: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
        module, cls = _module(folder)
        assert cls.__module__ == module.__name__, "the documented class is defined in the module"
        assert module.__doc__.strip() and module._KWARGS_DESCRIPTION.strip() and "Examples:" in module.__doc__ + \
            module._KWARGS_DESCRIPTION
        loaded: list[str] = []
        real = evaluate.load

        def load_folder(name: str, *args, **kwargs):
            loaded.append(name)
            return real(str(ROOT / "metrics" / name), *args, **kwargs)

        monkeypatch.setattr(evaluate, "load", load_folder)
        results = doctest.testmod(module, raise_on_error=False, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert results.failed == 0 and results.attempted > 1
        assert loaded and set(loaded) == {folder.name}

    def test_compute_takes_no_var_kwargs(self, folder: Path) -> None:
        _, cls = _module(folder)
        kinds = {p.kind for p in inspect.signature(cls._compute).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds and inspect.Parameter.VAR_POSITIONAL not in kinds

    def test_declared_features_are_the_documented_inputs(self, folder: Path) -> None:
        module, cls = _module(folder)
        info = cls()._info()
        features = set(info.features) if not isinstance(info.features, list) else set().union(*info.features)
        documented = _documented(module._KWARGS_DESCRIPTION)
        assert features <= documented, features - documented
        parameters = set(inspect.signature(cls._compute).parameters) - {"self"}
        assert parameters <= documented, parameters - documented  # every argument of _compute is documented
        assert info.inputs_description == module._KWARGS_DESCRIPTION

    def test_generated_from_the_package_module(self, folder: Path) -> None:
        assert (folder / f"{folder.name}.py").read_text(encoding="utf-8") == space_module(folder.name), \
            "regenerate: python -m nycc_bench.metrics._faces ."
        _, cls = _module(folder)
        assert issubclass(cls, metric_class(folder.name)) and cls.__name__ == metric_class(folder.name).__name__
        # documentation only: the subclass overrides nothing but _info's inputs description
        own = {k for k in vars(cls) if not k.startswith("__")}
        assert own == {"_info"}


def test_examples_rewrite_needs_the_metric_loaded() -> None:
    with pytest.raises(ValueError, match="load_metric"):
        evaluate_examples("Examples:\n    >>> 1 + 1\n    2\n", "nycc_accuracy")
