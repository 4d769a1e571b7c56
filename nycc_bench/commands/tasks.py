"""`nycc-bench tasks`: list the tasks, show one task's whole definition, or check task files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..errors import NyccBenchError
from .options import include_path


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `tasks` command and its options."""
    t = sub.add_parser("tasks", help="list the tasks; `tasks show NAME [--json]` prints one task's definition")
    t.add_argument("action", nargs="?", choices=["list", "show", "check"], default="list")
    t.add_argument("name", nargs="?", help="the task to show or check (check: default every task)")
    t.add_argument("--dataset",
                   help="check: the dataset of the random run (default: the sample, built once into the cache)")
    t.add_argument("--offline-judges", action="store_true",
                   help="check: train the offline judges on the sample so judged scores are checked too (slower)")
    t.add_argument("--json", action="store_true", help="as JSON")
    include_path(t)
    t.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List the tasks, or print one task's whole definition."""
    from ..tasks import all_tasks, get_task
    from ..tasks.families import groups

    if args.action == "show":
        if not args.name:
            raise NyccBenchError("name: `nycc-bench tasks show NAME`; `nycc-bench tasks` lists the names")
        task = get_task(args.name)
        described = task.describe()
        for role, prompt in described["prompts"].items():
            prompt["text"] = task.prompts[role]
        from ..runner import for_system_kind
        from ..systems.api import OpenAISystem

        api = OpenAISystem("gpt-4o")
        api_task, api_options = for_system_kind(task, api, task.default_effective()["options"])
        effective = {**task.default_effective(), "options": api_options,
                     "system": {"kind": "openai", **api.effective(api_task)}}
        described["deviations"] = task.computed_deviations(effective)  # those of a default run of an API system
        described["deviations_of"] = "a default run of an OpenAI-compatible system (nycc-bench evaluate --system " \
                                     "openai:MODEL)"
        if protocol := described["judge"].get("protocol"):
            from ..judge.protocols.settings import protocol_settings
            from ..judging import PAPER_PARSE_RETRIES

            settings = protocol_settings(protocol)  # with the paper's judge
            described["judge"]["settings"] = settings
            described["judge"]["default_parse_retries"] = PAPER_PARSE_RETRIES.get(protocol, 2)
            described["deviations"] += settings["deviations"]
        if args.json:
            print(json.dumps(described, indent=2, ensure_ascii=False))
        else:
            print(_show(described))
        return 0
    if args.action == "check":
        return _check_tasks(args)
    tasks = all_tasks()
    if args.json:
        print(json.dumps({n: t.describe() for n, t in tasks.items()}, ensure_ascii=False))
        return 0
    print(f"{'task':<26}{'family':<12}{'kind':<12}{'judge':<7}summary")
    for name, task in tasks.items():
        print(f"{name:<26}{task.family:<12}{task.kind:<12}{'yes' if task.needs_judge else '-':<7}{task.summary}")
    print(f"\ngroups: {', '.join(groups())}   (`nycc-bench tasks show NAME [--json]` for a definition)")
    return 0


def _check_tasks(args: argparse.Namespace) -> int:
    """Check one or every task file: schema (on load), names, and a random run whose scores all resolve."""
    import tempfile

    from ..progress import working

    with working("tasks check: loading the task files"):  # the first line at once
        from ..checking import check_run
        from ..paths import SAMPLE_DIR
        from ..tasks import all_tasks, get_task

        names = [get_task(args.name).name] if args.name else list(all_tasks())  # loading a task checks its file
    with tempfile.TemporaryDirectory(prefix="nycc-check-") as tmp:
        dataset = args.dataset
        if dataset is None:
            with working("tasks check: the sample dataset (built once into the cache)"):
                from ..sample_build import sample_dataset_dir

                dataset = str(sample_dataset_dir())
        judges = None
        if args.offline_judges:
            from ..offline_judges import train_offline_judges

            judges = train_offline_judges(dataset, Path(tmp) / "judges",
                                          SAMPLE_DIR / "humorbench_reubennarad" / "rubric")
        failed = 0
        for name in names:
            try:
                with working(f"tasks check: {name} (its file, then a random run)"):
                    found = check_run(name, dataset, judges)
            except NyccBenchError as err:
                failed += 1
                print(f"FAIL {name}: {err}")
                continue
            unchecked = f"; not checked without a judge: {', '.join(found['unchecked'])}" if found["unchecked"] else ""
            print(f"ok   {name}: {found['n']} instances, scores {', '.join(found['scores'])}{unchecked}")
    return 1 if failed else 0


def _show(d: dict[str, Any], indent: str = "") -> str:
    """A task definition as indented text."""
    lines = []
    for key, value in d.items():
        if isinstance(value, dict) and value:
            lines.append(f"{indent}{key}:")
            lines.append(_show(value, indent + "  "))
        elif isinstance(value, list) and value and any(isinstance(v, str) and len(v) > 40 for v in value):
            lines.append(f"{indent}{key}:")
            lines += [f"{indent}  - {v}" for v in value]
        else:
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            lines.append(f"{indent}{key}: {shown}")
    return "\n".join(lines)
