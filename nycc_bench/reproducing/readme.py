"""The README's printed `reproduce` run, written from the command's own output (`make reproduce-readme`) or compared
with it (`--check`), so the page cannot drift from HEAD.

    NYCC_BENCH_UPSTREAM_DIR=MIRROR python -m nycc_bench.reproducing.readme README.md          # rewrite the block
    NYCC_BENCH_UPSTREAM_DIR=MIRROR python -m nycc_bench.reproducing.readme README.md --check  # exit 1 if it drifted
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path

from ..errors import NyccBenchError
from .command import add_reproduce_parser, cmd_reproduce

BEGIN = "<!-- reproduce-run:begin (written by `make reproduce-readme`; do not edit by hand) -->"
END = "<!-- reproduce-run:end -->"
ARGS = ("reproduce", "--no-sbert", "--quiet")  # the printed run: `--source upstream` read from the mirror


def run() -> tuple[int, str]:
    """Run `nycc-bench reproduce --no-sbert` through its own handler; its exit status and what it printed."""
    if not os.environ.get("NYCC_BENCH_UPSTREAM_DIR"):
        raise NyccBenchError("NYCC_BENCH_UPSTREAM_DIR: not set; point it at an offline mirror of the pinned upstream "
                             "files (the README's run is of that mirror)")
    parser = argparse.ArgumentParser(prog="nycc-bench")
    add_reproduce_parser(parser.add_subparsers())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cmd_reproduce(parser.parse_args(list(ARGS)))
    return status, out.getvalue()


def block(status: int, printed: str) -> str:
    """The README block: the command, its exit status, and its output as printed."""
    command = " ".join(a for a in ARGS if a != "--quiet")
    return (f"{BEGIN}\n`NYCC_BENCH_UPSTREAM_DIR=MIRROR nycc-bench {command}` (exit {status}):\n\n"
            f"```text\n{printed.rstrip()}\n```\n{END}")


def current(text: str, path: Path) -> tuple[int, int]:
    """Where the block is in the README's text (start, end); one line naming the markers when it is not there."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise NyccBenchError(f"{path}: no reproduce-run block; put the lines {BEGIN!r} and {END!r} where the run goes")
    return start, end + len(END)


def update(path: Path, check: bool = False) -> bool:
    """Rewrite the block from a fresh run (or, with `check`, only compare); whether it was already today's output."""
    text = path.read_text(encoding="utf-8")
    start, end = current(text, path)
    fresh = block(*run())
    same = text[start:end] == fresh
    if not same and not check:
        path.write_text(text[:start] + fresh + text[end:], encoding="utf-8")
    return same


def main(argv: list[str] | None = None) -> int:
    """`python -m nycc_bench.reproducing.readme README.md [--check]`: 0 when the block is (now) today's output."""
    parser = argparse.ArgumentParser(prog="python -m nycc_bench.reproducing.readme", description=__doc__)
    parser.add_argument("readme", type=Path)
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 if the block is not today's run")
    args = parser.parse_args(argv)
    try:
        same = update(args.readme, check=args.check)
    except NyccBenchError as err:
        print(f"reproduce-readme: {err}", file=sys.stderr)
        return 2
    if args.check and not same:
        print(f"{args.readme}: the reproduce run differs from today's output; run `make reproduce-readme "
              "UPSTREAM=MIRROR`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
