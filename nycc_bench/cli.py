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


def parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand, each added by its own module, in the order `--help` lists them."""
    from functools import partial

    from .arena.cli import add_arena_parsers
    from .cache_command import add_parser as add_cache_parser
    from .cli_parser import ForgivingParser
    from .commands import (
        build,
        cards,
        demo,
        evaluate,
        judges,
        leaderboard,
        publish,
        reliability,
        reward,
        run,
        score,
        seed,
        sources,
        submission,
        tasks,
    )
    from .commands.options import judge_options
    from .lmeval.cli import add_lmeval_parsers
    from .novelty.cli import add_novelty_parser
    from .reproducing.command import add_reproduce_parser
    from .show import add_show_parser
    from .viewer.cli import add_view_parser

    p = ForgivingParser(prog="nycc-bench", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    for add in (build.add_parser, sources.add_parser, tasks.add_parser, evaluate.add_parser, submission.add_parser,
                run.add_parser, score.add_parser, reliability.add_parser, reward.add_parser, leaderboard.add_parser,
                cards.add_parser, seed.add_parser, add_novelty_parser, add_lmeval_parsers, add_show_parser,
                add_view_parser, partial(add_arena_parsers, judge_options=judge_options), judges.add_parser,
                add_reproduce_parser,
                demo.add_parser, publish.add_parser, add_cache_parser):
        add(sub)
    return p


def family_main(family: str, argv: list[str] | None = None) -> int:
    """`dataset_scripts/<family>.py`: `nycc-bench build` restricted to one family's configs."""
    from .builders import ALL_CONFIGS

    configs = [name for name, key in ALL_CONFIGS.items() if key == family]
    args = list(sys.argv[1:] if argv is None else argv)
    return main(["build", *args, "--configs", *configs])


def main(argv: list[str] | None = None) -> int:
    """Entry point: bad input ends with one clear line on stderr and exit status 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["publish"]:  # upload.py's own parser takes every option that follows
        from .publish.cli import main as publish

        return publish(argv[1:])
    from .secrets import hold_argv, scrub_logs

    hold_argv(argv)  # an --api-key value and URL passwords or keys never echo back (stderr, logs, files)
    scrub_logs()
    args = parser().parse_args(argv)
    if getattr(args, "quiet", False):
        import datasets

        datasets.disable_progress_bars()
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
    except NyccBenchError as err:
        print(f"nycc-bench {args.command}: error: {_one_line(err)}", file=sys.stderr)
        return 2
    except ValueError as err:  # a library's bad-input error (datasets, evaluate): still one line
        print(f"nycc-bench {args.command}: error: {_one_line(err)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `nycc-bench tasks show X | head`
        sys.stderr.close()
        return 0
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
