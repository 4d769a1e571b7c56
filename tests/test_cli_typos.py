"""A mistyped flag, subcommand or choice is one line naming the nearest one that command takes (not the whole
top-level usage), with exit status 2, for every command, subcommands and `publish` included."""

from __future__ import annotations

import pytest

from nycc_bench.cli import main


@pytest.mark.parametrize(("argv", "expected"), [
    (["evaluate", "--system", "random", "--tasks", "matching", "--out", "runs/x", "--judge-timout", "5"],
     "nycc-bench evaluate: error: unrecognized argument --judge-timout; did you mean --judge-timeout?"),
    (["evaluate", "--system", "random", "--out", "runs/x", "--limt=4"],
     "nycc-bench evaluate: error: unrecognized argument --limt; did you mean --limit?"),
    (["tasks", "--jsn"], "nycc-bench tasks: error: unrecognized argument --jsn; did you mean --json?"),
    (["evaluat", "--system", "random"], "nycc-bench: error: argument command: invalid choice: 'evaluat'; "
                                        "did you mean 'evaluate'?"),
    (["tasks", "shw"], "nycc-bench tasks: error: argument action: invalid choice: 'shw'; did you mean 'show'?"),
    (["lm-eval", "export", "out", "--datset", "d"],
     "nycc-bench lm-eval: error: unrecognized argument --datset; did you mean --dataset?"),
    (["publish", "--dry-rn"], "upload.py: error: unrecognized argument --dry-rn; did you mean --dry-run?"),
])
def test_a_typo_is_one_line_naming_the_nearest(argv: list[str], expected: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(expected), lines[0]
    assert "usage:" not in captured.err


def test_a_flag_nothing_resembles_lists_the_commands_flags(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["sources", "--zzzzzz"])
    assert capsys.readouterr().err.startswith("nycc-bench sources: error: unrecognized argument --zzzzzz; "
                                              "nycc-bench sources takes --help, --resolve")


def test_a_missing_required_flag_is_one_line(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["evaluate", "--system", "random"])
    err = capsys.readouterr().err
    assert err == ("nycc-bench evaluate: error: the following arguments are required: --out "
                   "(see `nycc-bench evaluate --help`)\n")
