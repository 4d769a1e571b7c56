"""`nycc-bench --help` and `nycc-bench tasks` import no heavy library (datasets, evaluate, torch, transformers,
openai, gradio, pandas), which is what keeps them under 0.3 s; `benchmarks/startup.py` measures the time."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("datasets", "evaluate", "torch", "transformers", "openai", "gradio", "pandas", "pyarrow", "numpy")
PROBE = """
import json, sys
from nycc_bench.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize("argv", [["--help"], ["tasks"], ["tasks", "--json"]])
def test_cli_startup_imports_nothing_heavy(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), *argv], capture_output=True, text=True,
                          timeout=60, check=True)
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
    assert done.stdout.strip()
