"""Operator input fails safely: a hand-edited published record is refused on the board with the reason; a
`sys.exit()` in an outside `kinds.py` is an error naming the file, never an exit 0 with nothing written; YAML
bombs and oversized task, judge and family files are refused in one line; prompt files resolve inside their task
folder (no absolute path, no `..`, no symlink out to `/proc/self/environ`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_task_kinds import write_example

from nycc_bench.cli import main
from nycc_bench.leaderboard import Settings, create_app

ROOT = Path(__file__).resolve().parents[1]
BOMB = "\n".join(["a: &a [x, x, x, x, x, x, x, x, x]"]
                 + [f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]"
                    for p, c in zip("abcdefgh", "bcdefghi", strict=True)]) + "\nname: bomb\n"


def one_line_error(capsys: pytest.CaptureFixture, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err and "Traceback" not in err
    return err


def test_a_hand_edited_published_record_is_refused_with_the_reason(tmp_path: Path) -> None:
    _, app = create_app(Settings(data_dir=tmp_path / "data", dataset=str(tmp_path / "none")), start_worker=False)
    store = app.store
    seeded = store.results()
    path = sorted((store.root / "results").glob("*.json"))[0]
    record = json.loads(path.read_text())
    task, entry = next((t, e) for t, e in record["tasks"].items() if e["predictions"] and e["n"])
    entry["n"] *= 10  # ten times the items it was run on; the predictions files say otherwise
    path.write_text(json.dumps(record))
    results, error = app.results()
    assert len(results) == len(seeded) - 1 and error is None
    (problem,) = store.problems()
    assert problem.startswith(f"results/{path.name}: refused: ") and f"tasks.{task}.n" in problem
    assert "the predictions files hold" in problem
    banner = app.banner_html(error, results)
    assert path.name in banner and "refused" in banner


def test_sys_exit_in_an_outside_kinds_py_is_an_error_naming_the_file(sample_dataset: str, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture) -> None:
    folder = write_example(tmp_path / "mytasks", "pairwise/")
    kinds = folder / "pairwise" / "kinds.py"
    kinds.write_text(kinds.read_text() + "\nimport sys\nsys.exit(0)\n")
    out = tmp_path / "run"
    err = one_line_error(capsys, ["evaluate", "--system", "random", "--tasks", "funnier", "--dataset", sample_dataset,
                                  "--include-path", str(folder), "--out", str(out), "--quiet"])
    assert str(kinds.resolve()) in err and "sys.exit(0)" in err
    kinds.write_text(kinds.read_text().replace("\nimport sys\nsys.exit(0)\n", "") .replace(
        "    return Built(out)", "    import sys\n    sys.exit(0)"))  # at run time, inside the builder
    err = one_line_error(capsys, ["evaluate", "--system", "random", "--tasks", "funnier", "--dataset", sample_dataset,
                                  "--include-path", str(folder), "--out", str(out), "--quiet"])
    assert f"{kinds.resolve()}, line" in err and "sys.exit(0)" in err
    from nycc_bench import evaluate  # the leaderboard's way: the task's error is recorded, the others run

    run = evaluate("random", ["funnier", "matching"], dataset=sample_dataset, include_path=str(folder),
                   out=tmp_path / "lb", progress=False, raise_errors=False)
    assert "kinds.py, line" in run.record["errors"]["funnier"] and "matching" in run.record["tasks"]


@pytest.mark.parametrize("kind", ["task", "judge", "families"])
def test_yaml_bombs_and_huge_files_are_refused_in_one_line(kind: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture) -> None:
    folder = tmp_path / "mine"
    target = {"task": folder / "pairwise" / "bomb.yaml", "judge": tmp_path / "judges" / "bomb.yaml",
              "families": folder / "families.yaml"}[kind]
    target.parent.mkdir(parents=True)
    (folder / "pairwise").mkdir(parents=True, exist_ok=True)
    code = ("import resource, sys\n"  # a 1 GB address-space cap: a bomb that expands dies of MemoryError
            "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
            "from nycc_bench.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    argv = (["judge-check", str(target)] if kind == "judge" else ["tasks", "list", "--include-path", str(folder)])
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NYCC_BENCH_JUDGE_PATH": str(target.parent)}
    for text, expected in ((BOMB, "aliases"), ("x: " + "y" * 1_100_000 + "\n", "byte limit")):
        target.write_text(text)
        if kind == "judge":
            done = subprocess.run([sys.executable, "-c", "import resource, sys\n"
                                   "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
                                   "from nycc_bench.judging import JudgeSpec\n"
                                   "from nycc_bench.errors import NyccBenchError\n"
                                   "try:\n    JudgeSpec.parse(sys.argv[1])\n"
                                   "except NyccBenchError as err:\n    print(err, file=sys.stderr); sys.exit(2)\n",
                                   str(target)], env=env, capture_output=True, text=True, timeout=300)
        else:
            done = subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True,
                                  timeout=300)
        err = done.stderr.strip()
        assert done.returncode == 2, err[-2000:]
        assert "\n" not in err and str(target.name) in err and expected in err


def test_prompt_paths_stay_inside_their_task_folder(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "secret.txt").write_text("sk-do-not-read")
    cases = (("/proc/self/environ", "must be a path relative"), ("../../secret.txt", "leads out"),
             ("pairwise/leak.txt", "leads out"))
    for k, (prompt, said) in enumerate(cases):
        folder = write_example(tmp_path / f"mytasks{k}", "pairwise/")
        (folder / "pairwise" / "leak.txt").symlink_to("/proc/self/environ")
        task = folder / "pairwise" / "funnier.yaml"
        task.write_text(task.read_text().replace("prompts: {user: pairwise/funnier.txt}",
                                                 f"prompts: {{user: {prompt}}}"))
        err = one_line_error(capsys, ["tasks", "show", "funnier", "--include-path", str(folder)])
        assert said in err and "prompts.user" in err and "sk-do-not-read" not in err
    folder = write_example(tmp_path / "mykinds", "pairwise/")
    (folder / "pairwise" / "kinds.py").rename(tmp_path / "kinds.py")
    (folder / "pairwise" / "kinds.py").symlink_to(tmp_path / "kinds.py")  # code from outside the folder
    # kinds.py is imported only when a task runs or is checked (showing a task reads its files, imports no code)
    err = one_line_error(capsys, ["evaluate", "--system", "random", "--tasks", "funnier", "--include-path",
                                  str(folder), "--out", str(tmp_path / "run"), "--quiet"])
    assert "leads out" in err and "kinds.py" in err
