"""The `metrics/<name>/<name>.py` Space files, generated from the package modules so the logic has one home.

Each file carries what `evaluate` expects of a metric module (its own test, `tests/test_metric_common.py`, runs
the module's doctests and checks `_compute`): the module docstring, `_KWARGS_DESCRIPTION` with examples that
load the metric through `evaluate.load("<name>")` (on the Hub: `nycc-bench/<name>`), and a class defined in the
file that those docs describe. The class subclasses the package's and changes nothing but its documentation.
Regenerate with `python -m nycc_bench.metrics._faces [ROOT]`; `tests/test_metric_conventions.py` checks sync.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

from nycc_bench.metrics import _CLASS_NAMES, METRIC_NAMES, module_path

LOAD_LINE = '    >>> {var} = load_metric("{name}")  # or evaluate.load("nycc-bench/{name}")\n'
EVALUATE_LINE = '    >>> {var} = evaluate.load("{name}")  # the Space: evaluate.load("nycc-bench/{name}")\n'


def _assigned_string(source: str, name: str) -> str:
    """The literal text of a module-level string assignment (`_KWARGS_DESCRIPTION = \"\"\"...\"\"\"`)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
    raise ValueError(f"metric module: no string {name} at module level")


def _class_doc(source: str, name: str) -> str:
    """The first paragraph of a class's own docstring (without what add_start_docstrings put before it)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return " ".join((ast.get_docstring(node) or name).split("\n\n")[0].split())
    raise ValueError(f"metric module: no class {name}")


def evaluate_examples(kwargs_description: str, name: str) -> str:
    """The package's inputs description with its examples loading the metric through `evaluate.load`."""
    lines = kwargs_description.splitlines(keepends=True)
    out, replaced = [], False
    for line in lines:
        if line.strip() == ">>> from nycc_bench.metrics import load_metric":
            out.append("    >>> import evaluate\n")
            continue
        stripped = line.strip()
        if stripped.startswith(">>> ") and f'load_metric("{name}")' in stripped:
            var = stripped[4:].split("=")[0].strip()
            out.append(EVALUATE_LINE.format(var=var, name=name))
            replaced = True
            continue
        out.append(line)
    if not replaced:
        raise ValueError(f"metric module {name}: its examples do not load the metric with load_metric({name!r})")
    return "".join(out)


def space_module(name: str) -> str:
    """The text of `metrics/<name>/<name>.py`."""
    source = module_path(name).read_text(encoding="utf-8")
    module = importlib.import_module(f"nycc_bench.metrics.{name}")
    cls = getattr(module, _CLASS_NAMES[name])
    summary = (module.__doc__ or "").strip()
    kwargs = evaluate_examples(_assigned_string(source, "_KWARGS_DESCRIPTION"), name)
    if '"""' in kwargs:
        raise ValueError(f"metric module {name}: _KWARGS_DESCRIPTION holds a triple quote")
    return f'''"""{summary}

The Space face of `nycc_bench.metrics.{name}` (generated from it: do not edit; regenerate with
`python -m nycc_bench.metrics._faces`). The rule and the class live in the package; this file carries evaluate's
conventions: this docstring, `_KWARGS_DESCRIPTION` with examples that run through `evaluate.load`, and the class
they document.
"""

import evaluate

import nycc_bench.metrics.{name} as package

_DESCRIPTION = package._DESCRIPTION
_CITATION = package._CITATION

_KWARGS_DESCRIPTION = """{kwargs}"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class {cls.__name__}(package.{cls.__name__}):
    """{_class_doc(source, cls.__name__)}"""

    def _info(self):
        info = super()._info()
        info.inputs_description = _KWARGS_DESCRIPTION
        return info
'''


def write_space_modules(root: Path) -> list[Path]:
    """Write every metric's Space module under `root/metrics/`; returns the files."""
    out = []
    for name in METRIC_NAMES:
        path = root / "metrics" / name / f"{name}.py"
        path.write_text(space_module(name), encoding="utf-8")
        out.append(path)
    return out


if __name__ == "__main__":
    for written in write_space_modules(Path(sys.argv[1] if len(sys.argv) > 1 else ".")):
        print(written)
