"""The CLI's argument parser: a mistyped flag is one line naming the nearest flag of that command, not the whole
top-level usage, and every other parse error is one line too (with where to read the usage)."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn


class ForgivingParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line; an unknown flag names the nearest one its command takes.

    Subcommand parsers made with `add_subparsers().add_parser` are of this class too (argparse makes them of
    the parent's class), so each command's own errors read the same way.
    """

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """Parse like argparse; leftover arguments end with one line naming the command and its nearest flag."""
        argv = list(sys.argv[1:] if args is None else args)
        parsed, extras = self.parse_known_args(argv, namespace)
        if extras:
            command = self.command_parser(argv)
            command.error(unknown_message(command, extras))
        return parsed

    def command_parser(self, argv: Sequence[str]) -> argparse.ArgumentParser:
        """The parser of the (sub)command argv names: subcommands followed down as far as argv goes."""
        current: argparse.ArgumentParser = self
        for token in argv:
            choices = _subcommands(current)
            if token in choices:
                current = choices[token]
        return current

    def error(self, message: str) -> NoReturn:
        """One line on stderr, exit status 2 (argparse's status), with the nearest choice for a mistyped one and
        where to read the usage."""
        choice = re.fullmatch(r"(argument .*: invalid choice: )'(.*)' \(choose from (.*)\)", message)
        if choice:
            offered = re.findall(r"'([^']*)'", choice.group(3))
            near = difflib.get_close_matches(choice.group(2), offered, n=1, cutoff=0.6)
            message = f"{choice.group(1)}{choice.group(2)!r}; " + (
                f"did you mean {near[0]!r}?" if near else f"choose from {', '.join(offered)}")
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def unknown_message(parser: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """The first leftover argument and, for a flag, the nearest flag `parser` takes."""
    flags = [extra for extra in extras if extra.startswith("-") and extra != "-"]
    if not flags:
        return f"unrecognized argument {extras[0]!r}"
    flag = flags[0].split("=", 1)[0]
    near = nearest_flag(parser, flag)
    hint = f"; did you mean {near}?" if near else f"; {parser.prog} takes {', '.join(long_flags(parser)) or 'no flags'}"
    return f"unrecognized argument {flag}{hint}"


def nearest_flag(parser: argparse.ArgumentParser, flag: str) -> str | None:
    """The flag of `parser` closest in spelling to `flag`, or None when none is close."""
    near = difflib.get_close_matches(flag, long_flags(parser), n=1, cutoff=0.6)
    return near[0] if near else None


def long_flags(parser: argparse.ArgumentParser) -> list[str]:
    """Every `--flag` the parser takes (help included), in the order they were added."""
    return [s for action in parser._actions for s in action.option_strings if s.startswith("--")]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}
