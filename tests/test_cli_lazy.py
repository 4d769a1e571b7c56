"""The CLI imports a command's module only when that command runs: `--help` lists every command from
`commands.COMMANDS` (name and help line) without importing one; a command line parses the same through the lazy
parser as through the whole one."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from nycc_bench.cli import parser
from nycc_bench.commands import COMMANDS

PROBE = """
import json, sys
from nycc_bench.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("nycc_bench.commands.", "nycc_bench.viewer",
      "nycc_bench.leaderboard", "nycc_bench.arena", "nycc_bench.lmeval", "nycc_bench.novelty", "nycc_bench.systems",
      "nycc_bench.reproducing", "nycc_bench.publish", "nycc_bench.show")))), file=sys.stderr)
"""


def _listing(p: argparse.ArgumentParser) -> list[tuple[str, str]]:
    (sub,) = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    return [(c.dest, c.help) for c in sub._choices_actions]


def _imported(argv: list[str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True)
    return json.loads(done.stderr.strip().splitlines()[-1])


def test_the_table_is_the_whole_parser_in_order_with_its_help() -> None:
    """Every command the modules add is in COMMANDS, in --help's order, with the help its module gives it."""
    assert _listing(parser()) == [(name, help_line) for name, (_, help_line) in COMMANDS.items()]
    assert _listing(parser(["--help"])) == _listing(parser())


def test_help_imports_no_command_module() -> None:
    assert _imported(["--help"]) == []
    assert _imported(["evalute"]) == []  # a mistyped command: one line naming the nearest, nothing imported


def test_a_command_imports_only_its_own_module() -> None:
    assert _imported(["tasks"]) == ["nycc_bench.commands.options", "nycc_bench.commands.tasks"]  # shared options
    assert "nycc_bench.viewer" not in _imported(["score", "--help"])
    assert not [m for m in _imported(["judges", "--help"]) if m.startswith("nycc_bench.commands.")
                and m != "nycc_bench.commands.arena" and m != "nycc_bench.commands.options"]


@pytest.mark.parametrize("argv", [
    ["evaluate", "--system", "random", "--tasks", "hessel", "--dataset", "D", "--out", "O", "--quiet"],
    ["push", "RUN", "user/repo", "--private"],
    ["score", "--task", "matching", "--predictions", "p.jsonl"],
    ["import", "lm-eval", "R", "--out", "O"],
])
def test_a_command_line_parses_the_same_lazily(argv: list[str]) -> None:
    whole, lazy = parser().parse_args(argv), parser(argv).parse_args(argv)
    assert vars(lazy).keys() == vars(whole).keys()
    assert {k: v for k, v in vars(lazy).items() if not callable(v)} == \
        {k: v for k, v in vars(whole).items() if not callable(v)}
    assert lazy.func.__qualname__ == whole.func.__qualname__
