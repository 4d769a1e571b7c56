"""The `nycc-bench` command line: build the dataset, list tasks, evaluate systems, score, judge, publish.

Heavy libraries are imported inside the commands that use them, so `nycc-bench --help` and `nycc-bench tasks`
answer at once. Bad input ends with one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from collections.abc import Iterator

from .errors import BatchPending, DryRun, NyccBenchError


@contextlib.contextmanager
def _outside_tasks(args: argparse.Namespace) -> Iterator[None]:
    """The command's `--include-path` folders are known inside, to child processes too (the leaderboard's
    worker) through NYCC_BENCH_TASK_PATH, restored afterwards."""
    from .tasks.path import ENV_TASK_PATH, include_tasks

    with include_tasks(getattr(args, "include_path", None)) as folders:
        if not folders:
            yield
            return
        old = os.environ.get(ENV_TASK_PATH)
        os.environ[ENV_TASK_PATH] = os.pathsep.join([*([old] if old else []), *map(str, folders)])
        try:
            yield
        finally:
            if old is None:
                os.environ.pop(ENV_TASK_PATH, None)
            else:
                os.environ[ENV_TASK_PATH] = old


def _command_word(argv: list[str]) -> str | None:
    """The command a command line names: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


def parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser, in the order `--help` lists the commands (`commands.COMMANDS`). Given the command line, only
    the command it names has its module imported and its options added; the others are listed by name and help
    (so `--help` and a mistyped command import no command module). Without `argv`, every command is added whole."""
    from importlib import import_module

    from .cli_parser import ForgivingParser
    from .commands import COMMANDS

    p = ForgivingParser(prog="nycc-bench", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    if argv is None:
        wanted = {adder for adder, _ in COMMANDS.values()}
    else:
        first = _command_word(argv)
        wanted = {COMMANDS[first][0]} if first in COMMANDS else set()
    for name, (adder, help_line) in COMMANDS.items():
        if name in sub.choices:  # added by an earlier command's module (`push` with `evaluate`)
            continue
        if adder in wanted:
            module, function = adder.split(":")
            getattr(import_module(module), function)(sub)
            wanted.discard(adder)
        else:
            sub.add_parser(name, help=help_line, add_help=False)
    return p


def family_main(family: str, argv: list[str] | None = None) -> int:
    """`dataset_scripts/<family>.py`: `nycc-bench build` restricted to one family's configs."""
    from .builders import ALL_CONFIGS

    configs = [name for name, key in ALL_CONFIGS.items() if key == family]
    args = list(sys.argv[1:] if argv is None else argv)
    return main(["build", *args, "--configs", *configs])


KEPT = ("what was written before stays whole (records and predictions are written whole or not at all), and the "
        "same command resumes from it")


SERVES = frozenset({"leaderboard", "view", "hub"})
"""Commands that keep running (servers): they keep Python's garbage collector as it is (`heap`)."""


def main(argv: list[str] | None = None) -> int:
    """Entry point: bad input ends with one clear line on stderr and exit status 2. Without `argv` this is the
    console script: one command, then exit, so it settles its heap (`heap`) unless the command serves; a caller
    passing `argv` (a test, a script) keeps its collector as it is."""
    if argv is None:
        from . import heap

        argv = sys.argv[1:]
        if _command_word(argv) not in SERVES:
            heap.one_shot()
        try:
            return main(argv)
        finally:
            heap.before_exit()
    argv = list(argv)
    if argv[:1] == ["publish"]:  # upload.py's own parser takes every option that follows
        from .progress import working

        with working("publish: loading the libraries"):  # the first line at once
            from .publish.cli import main as publish
        return publish(argv[1:])
    from .secrets import hold_argv, scrub_logs

    hold_argv(argv)  # an --api-key value and URL passwords or keys never echo back (stderr, logs, files)
    scrub_logs()
    args = parser(argv).parse_args(argv)
    if getattr(args, "quiet", False):
        if "datasets" in sys.modules:
            sys.modules["datasets"].disable_progress_bars()
        else:  # read when datasets is imported (if this command imports it at all)
            os.environ["HF_DATASETS_DISABLE_PROGRESS_BARS"] = "1"
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from .cache_command import cache_reads

    try:
        with _outside_tasks(args), _quiet(args), cache_reads(not getattr(args, "no_cache", False)):
            return args.func(args)
    except DryRun as stop:
        print(stop)
        estimate = stop.estimate
        print(json.dumps({"dry_run": estimate.to_dict() if hasattr(estimate, "to_dict") else str(estimate)}))
        return 0
    except BatchPending as pending:  # not an error: the batch is being answered; the same command collects it
        print(f"nycc-bench {args.command}: {_one_line(pending)}", file=sys.stderr)
        return 3
    except NyccBenchError as err:  # a preflight's problems (`problems`): every one, one line each
        for problem in getattr(err, "problems", None) or [err]:
            print(f"nycc-bench {args.command}: error: {_one_line(problem)}", file=sys.stderr)
        return 2
    except ValueError as err:  # a library's bad-input error (datasets, evaluate): still one line
        print(f"nycc-bench {args.command}: error: {_one_line(err)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `nycc-bench tasks show X | head`
        sys.stderr.close()
        return 0
    except Exception as err:  # a full disk anywhere (a run, a resume, a score): one line naming the folder
        from .disk import disk_full, is_disk_full

        if not is_disk_full(err):
            raise
        folder = next((getattr(args, name) for name in ("out", "run_dir", "run", "data_dir")
                       if isinstance(getattr(args, name, None), str)), ".")
        full = disk_full(folder, f"nycc-bench {args.command}", kept=KEPT)
        print(f"nycc-bench {args.command}: error: {_one_line(full)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"nycc-bench {args.command}: interrupted; re-run the same command to resume", file=sys.stderr)
        return 130


@contextlib.contextmanager
def _quiet(args: argparse.Namespace) -> Iterator[None]:
    """With --quiet, none of nycc-bench's own step and byte bars while the command runs."""
    if not getattr(args, "quiet", False):
        yield
        return
    from .progress import quiet

    with quiet():
        yield


def _one_line(err: BaseException) -> str:
    """An error message on one line (a multi-line message keeps its first line and says how many follow)."""
    from .secrets import scrub

    lines = scrub(str(err)).strip().splitlines() or [type(err).__name__]
    return lines[0] if len(lines) == 1 else f"{lines[0]} (+{len(lines) - 1} lines: " + " | ".join(lines[1:4]) + ")"


if __name__ == "__main__":
    sys.exit(main())
