"""The release: one version everywhere, a wheel and an sdist that carry the package data and work outside the
checkout, Spaces pinned to that version, and the whole publication (dataset, metric Spaces, leaderboard Space,
model cards) pushed to the local Hub stand-in, then pushed again without a single commit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from local_hub import LocalHub
from local_index import released

import nycc_bench
from nycc_bench.publish import DATASET_NAME, DEFAULT_PACKAGE_SPEC, GIT_PACKAGE_SPEC
from nycc_bench.publish.stage import check_package_spec

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
TOKEN = "hf_" + "ReleaseTestToken" * 3
pytest.importorskip("build")


def source_files() -> list[str]:
    """What a clone holds: tracked files and untracked ones git does not ignore."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                         check=True).stdout.decode()
    return [f for f in out.split("\0") if f and (ROOT / f).is_file()]


def package_files() -> set[str]:
    """Every file of the package a clone holds (modules and data), as paths inside a wheel."""
    return {f for f in source_files() if f.startswith("nycc_bench/") and "__pycache__" not in f}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`python -m build` (sdist, then the wheel from the sdist) on a copy of the clone, offline."""
    tmp = tmp_path_factory.mktemp("release")
    src = tmp / "src"
    for rel in source_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, src / rel)
    run = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp / "dist"), str(src)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    wheels, sdists = list((tmp / "dist").glob("*.whl")), list((tmp / "dist").glob("*.tar.gz"))
    assert len(wheels) == len(sdists) == 1, list((tmp / "dist").iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0], "tmp": tmp}


def test_one_version_everywhere() -> None:
    assert nycc_bench.__version__ == VERSION
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{VERSION}]" in changelog and f"[{VERSION}]: " in changelog
    assert f"nycc-bench=={VERSION}" == DEFAULT_PACKAGE_SPEC and GIT_PACKAGE_SPEC.endswith(f"@v{VERSION}")
    check_package_spec(DEFAULT_PACKAGE_SPEC)
    check_package_spec(GIT_PACKAGE_SPEC)
    steps = (ROOT / "RELEASING.md").read_text()
    assert "git tag" in steps and "python -m build" in steps and "twine upload" in steps and "TWINE_PASSWORD" in steps


def test_spaces_pin_the_release() -> None:
    requirements = [*sorted(ROOT.glob("metrics/*/requirements.txt")), ROOT / "spaces/leaderboard/requirements.txt"]
    assert len(requirements) >= 7
    for path in requirements:
        pins = [line for line in path.read_text().splitlines() if line.startswith("nycc-bench")]
        assert len(pins) == 1 and pins[0].split("[")[0].split("=")[0] == "nycc-bench", (path, pins)
        assert pins[0].endswith(f"=={VERSION}"), (path, pins)


def test_wheel_carries_the_package_and_its_data(dist: dict[str, Path]) -> None:
    names = set(zipfile.ZipFile(dist["wheel"]).namelist())
    missing = sorted(package_files() - names)
    assert not missing, missing[:20]
    assert any(n.startswith("nycc_bench/tasks/") and n.endswith(".yaml") for n in names)
    assert any(n.startswith("nycc_bench/tasks/") and "/prompts/" in n for n in names)
    assert "nycc_bench/publish/card_template.md" in names and "nycc_bench/py.typed" in names
    assert any(n.startswith("nycc_bench/leaderboard/seed/results/") for n in names), "no leaderboard seed"
    assert not [n for n in names if "__pycache__" in n or n.startswith("tests/")]
    meta = zipfile.ZipFile(dist["wheel"]).read(f"nycc_bench-{VERSION}.dist-info/METADATA").decode()
    assert f"\nVersion: {VERSION}\n" in meta and "Requires-Python: >=3.11" in meta


def test_sdist_carries_the_sources_and_release_documents(dist: dict[str, Path]) -> None:
    with tarfile.open(dist["sdist"]) as tar:
        prefix = f"nycc_bench-{VERSION}/"
        names = {n.removeprefix(prefix) for n in tar.getnames()}
    assert {"pyproject.toml", "README.md", "CHANGELOG.md", "RELEASING.md", "PKG-INFO"} <= names
    missing = sorted(package_files() - names)
    assert not missing, missing[:20]


def test_releasing_says_the_order_and_the_changelog_claims_no_upload_that_did_not_happen() -> None:
    steps = (ROOT / "RELEASING.md").read_text()
    order = ["1. **build**", "2. **`twine check`**", "3. **upload**", "4. then **`nycc-bench publish`**"]
    assert [steps.index(s) for s in order] == sorted(steps.index(s) for s in order)
    body = steps.split("## 2.")[1]  # and the sections follow it: build and check, upload, then publish
    assert body.index("python -m build") < body.index("twine check") < body.index("twine upload") < \
        body.index("nycc-bench publish --dataset-dir")
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "First release on PyPI" not in changelog and "not uploaded" in changelog


def test_installed_wheel_finds_its_data_outside_the_checkout(dist: dict[str, Path]) -> None:
    target = dist["tmp"] / "site"
    run = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", "--target",
                          str(target), str(dist["wheel"])], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    probe = (
        "import json, nycc_bench\n"
        "from nycc_bench.paths import SEED_DIR, TASKS_DIR\n"
        "from nycc_bench.tasks import all_tasks\n"
        "from nycc_bench.results import read_results\n"
        "seeds = [read_results(p) for p in sorted((SEED_DIR / 'results').glob('*.json'))]\n"
        "print(json.dumps({'file': nycc_bench.__file__, 'version': nycc_bench.__version__, 'tasks': len(all_tasks()),"
        " 'seeds': len(seeds), 'tasks_dir': str(TASKS_DIR)}))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    out = subprocess.run([sys.executable, "-c", probe], cwd=dist["tmp"], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["file"].startswith(str(target)) and facts["tasks_dir"].startswith(str(target))
    assert facts["version"] == VERSION and facts["tasks"] >= 9 and facts["seeds"] >= 3


RELEASED: dict[str, str] = {}  # the local index the pushes check the Spaces' pin against (it holds this version)


@pytest.fixture(scope="module", autouse=True)
def _released() -> Iterator[None]:
    """A local package index holding this version's wheel and sdist, as PyPI does once it is uploaded."""
    with released(nycc_bench.__version__) as url:
        RELEASED["url"] = url
        yield


def upload(hub: LocalHub, *args: str, home: Path) -> subprocess.CompletedProcess:
    """upload.py in a clean environment: the token only in HF_TOKEN, the Hub on 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    env.update(HF_HOME=str(home), HF_TOKEN=TOKEN, NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost",
               PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(ROOT / "upload.py"), "--endpoint", hub.base_url,
                           "--index-url", RELEASED["url"], *args], env=env,
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


def test_publish_round_trip_of_every_repo_kind(sample_dataset: str, tmp_path: Path) -> None:
    common = ["--dataset-dir", sample_dataset, "--allow-sample", "--push-third-party"]
    metrics = sorted(p.parent.name for p in ROOT.glob("metrics/*/requirements.txt"))
    with LocalHub(TOKEN) as hub:
        first = upload(hub, *common, "--out", str(tmp_path / "staged"), home=tmp_path / "home")
        assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
        repos = set(hub.repos)
        assert ("dataset", f"nycc-bench/{DATASET_NAME}") in repos
        assert {("space", f"nycc-bench/{m}") for m in metrics} <= repos
        assert ("space", "nycc-bench/leaderboard") in repos
        models = {r for t, r in repos if t == "model"}
        assert len(models) >= 3
        board = hub.files("space", "nycc-bench/leaderboard")
        assert f"nycc-bench[judge,models]=={VERSION}".encode() in board["requirements.txt"]
        assert b"python_version" in board["README.md"] and "app.py" in board
        for m in metrics:
            assert f"nycc-bench=={VERSION}".encode() in hub.files("space", f"nycc-bench/{m}")["requirements.txt"]
        for model in models:
            card = hub.files("model", model)["README.md"]
            assert b"model-index" in card and b"newyorker-caption-contest" in card
        n_commits = len([r for r in hub.requests if r.method == "POST" and "/commit/" in r.path])
        assert n_commits == len(repos)

        mark = len(hub.requests)
        second = upload(hub, *common, home=tmp_path / "home")
        assert second.returncode == 0, second.stderr[-2000:]
        assert [r.path for r in hub.requests[mark:] if r.method == "POST" and "/commit/" in r.path] == []
        assert second.stdout.count("up to date") == len(repos)
    output = first.stdout + first.stderr + second.stdout + second.stderr
    assert TOKEN not in output and TOKEN not in "\n".join(map(repr, hub.requests))
