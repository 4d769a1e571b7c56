"""Each extra installs what its commands import: the distributions a command's process imports are among those
`nycc-bench` and the extra require (with everything they require in turn)."""

from __future__ import annotations

import importlib.metadata as md
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import json, sys
before = {m.split(".")[0] for m in sys.modules}
from nycc_bench.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted({m.split(".")[0] for m in list(sys.modules)} - before)))
"""


def _pyproject_requirements(extra: str | None) -> list[str]:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return list(project["dependencies"]) + (list(project["optional-dependencies"][extra]) if extra else [])


def _closure(requirements: list[str]) -> set[str]:
    """The normalised names of these requirements and of everything they require (extras' markers left out)."""
    seen: set[str] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        if name in seen:
            continue
        seen.add(name)
        try:
            below = md.requires(req.name) or []
        except md.PackageNotFoundError:
            continue
        for line in below:
            sub = Requirement(line)
            wanted = ["", *sorted(req.extras)]  # no extra, or one the requirement asked for
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in wanted):
                todo.append(sub)
    return seen


@pytest.mark.parametrize(("extra", "argv"), [
    ("lm-eval", ["lm-eval", "export", "{tmp}/export"]),
    (None, ["--help"]),
])
def test_a_command_imports_only_what_its_extra_installs(extra: str | None, argv: list[str], tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, *(a.format(tmp=tmp_path) for a in argv)],
                          capture_output=True, text=True, check=True)
    modules = json.loads(done.stdout.strip().splitlines()[-1])
    by_module = md.packages_distributions()
    imported = {re.sub(r"[-_.]+", "-", d).lower() for m in modules for d in by_module.get(m, [])} - {"nycc-bench"}
    missing = imported - _closure(_pyproject_requirements(extra))
    assert not missing, f"{' '.join(argv)} imports {sorted(missing)}, which nycc-bench[{extra}] does not install"
