"""Every reproduce command the project publishes runs as written: the commands of the committed leaderboard seed
(`leaderboard/seed/results/*.json`) and of the model cards (`model_cards/*/README.md`, "How it was run") name
each task's judge, hold no temporary path, and, with their placeholders filled in (the sample dataset, the
offline judges trained on it, a run folder), give back the committed record's judges, statuses and numbers."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from float_tolerance import assert_scores_match
from temporary_paths import TEMPORARY

from nycc_bench.cli import main, parser
from nycc_bench.paths import SEED_DIR

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER = re.compile(r"\b(SAMPLE_DATASET|SAMPLE_JUDGES|SAMPLE_RUN|DATASET|RUN)\b")
"""What the seed (`SAMPLE_*`) and the cards (`DATASET`, `RUN`, the judges under `RUN/judges/`) write in place
of the folders of the run that made them."""


def recorded_commands() -> list[tuple[str, str, dict | None]]:
    """(where, command, the record it reproduces or None) for every published reproduce command."""
    found: list[tuple[str, str, dict | None]] = []
    for path in sorted((SEED_DIR / "results").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        found += [(path.relative_to(ROOT).as_posix(), command, record) for command in record.get("commands") or []]
    for path in sorted((ROOT / "model_cards").glob("*/README.md")):
        section = path.read_text(encoding="utf-8").split("## How it was run", 1)
        if len(section) == 2 and (block := re.search(r"```bash\n(.*?)```", section[1], re.DOTALL)):
            found += [(path.relative_to(ROOT).as_posix(), line.strip(), None)
                      for line in block.group(1).splitlines() if line.startswith("nycc-bench ")]
    return found


def test_the_commands_are_found() -> None:
    commands = recorded_commands()
    seeds = {where for where, _, record in commands if record is not None}
    cards = {where for where, _, record in commands if record is None}
    assert seeds == {p.relative_to(ROOT).as_posix() for p in (SEED_DIR / "results").glob("*.json")}
    assert cards == {p.relative_to(ROOT).as_posix() for p in (ROOT / "model_cards").glob("*/README.md")}
    assert all(any(c.startswith("nycc-bench evaluate ") for w, c, _ in commands if w == where)
               for where in seeds | cards)


def test_no_recorded_command_names_a_temporary_path() -> None:
    temporary = [f"{where}: {command}" for where, command, _ in recorded_commands() if TEMPORARY.search(command)]
    assert not temporary, temporary


def test_every_recorded_command_parses() -> None:
    for where, command, _ in recorded_commands():
        words = shlex.split(command)
        assert words[0] == "nycc-bench", where
        parser().parse_args(words[1:])  # exits 2 on an option the CLI does not take


def _filled(command: str, paths: dict[str, str]) -> list[str]:
    """The command's words with its placeholders replaced by this test's folders."""
    return shlex.split(PLACEHOLDER.sub(lambda m: paths[m.group(1)], command))


def _compared(record: dict, fill: dict[str, str]) -> dict:
    """What a reproduction must give back of a record besides its numbers: each task's judge and status; skipped
    tasks."""
    record = json.loads(PLACEHOLDER.sub(lambda m: fill[m.group(1)], json.dumps(record)))
    return {"tasks": {t: {"judge": e["config"]["judge"].get("name"), "status": e.get("status")}
                      for t, e in record["tasks"].items()},
            "skipped": sorted(record.get("skipped") or {})}


def _assert_reproduced(got: dict, record: dict, fill: dict[str, str], where: str) -> None:
    """The reproduction gives back the committed record's judges, statuses and numbers (each float at its source's
    tolerance: the record was written on another CPU, tests/float_tolerance.py)."""
    assert _compared(got, fill) == _compared(record, fill), where
    for task, entry in record["tasks"].items():
        assert_scores_match(got["tasks"][task]["scores"], entry["scores"], f"{where}: {task}")


def test_every_recorded_command_runs_on_the_sample(sample_dataset: str, sample_judges: dict, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    judges = Path(next(iter(sample_judges.values())).model).parent
    run = tmp_path / "run"
    run.mkdir()
    (run / "judges").symlink_to(judges, target_is_directory=True)
    paths = {"SAMPLE_DATASET": sample_dataset, "SAMPLE_JUDGES": str(judges), "SAMPLE_RUN": str(run),
             "DATASET": sample_dataset, "RUN": str(run)}
    done: dict[tuple[str, ...], dict] = {}  # a seed's and a card's command of one baseline run once
    for where, command, record in recorded_commands():
        words = _filled(command, paths)
        if words[1] != "evaluate":  # the dataset the build makes is the session's sample
            continue
        out = words.index("--out")
        key = tuple(words[:out] + words[out + 2:])
        if key not in done:
            assert main(words[1:]) == 0, f"{where}: {command}\n{capsys.readouterr().err[-2000:]}"
            done[key] = json.loads((Path(words[out + 1]) / "results.json").read_text(encoding="utf-8"))
        if record is not None:
            _assert_reproduced(done[key], record, paths, where)
