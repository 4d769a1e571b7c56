"""The push path of upload.py against a local stand-in for the Hub: repos created, files committed, a second push
with no change commits nothing, changes and removals commit only themselves, and the token never shows up."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from local_hub import LocalHub
from local_index import LocalIndex, released

import nycc_bench
from nycc_bench.builders import build_dataset
from nycc_bench.paths import SAMPLE_DIR, SEED_DIR
from nycc_bench.publish import DATASET_NAME, ROOT
from nycc_bench.publish.files import walk
from nycc_bench.results import read_results, write_results

TOKEN = "hf_" + "PushTestToken" * 3
DATASET = f"nycc-bench/{DATASET_NAME}"
KINDS = ["--only", "dataset", "--only", "metrics", "--only", "models"]


RELEASED: dict[str, str] = {}  # the local index the pushes check the Spaces' pin against (it holds this version)


@pytest.fixture(scope="module", autouse=True)
def _released() -> Iterator[None]:
    """A local package index holding this version's wheel and sdist, as PyPI does once it is uploaded."""
    with released(nycc_bench.__version__) as url:
        RELEASED["url"] = url
        yield


def upload(hub: LocalHub, *args: str, token: str | None = TOKEN, home: Path) -> subprocess.CompletedProcess:
    """upload.py in a clean environment: the token only in HF_TOKEN, no saved login, the Hub on 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    env.update(HF_HOME=str(home), NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    if token:
        env["HF_TOKEN"] = token
    return subprocess.run([sys.executable, str(ROOT / "upload.py"), "--endpoint", hub.base_url,
                           "--index-url", RELEASED["url"], *args], env=env,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def commit_posts(hub: LocalHub, since: int = 0) -> list[str]:
    return [r.path for r in hub.requests[since:] if r.method == "POST" and "/commit/" in r.path]


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dataset")
    build_dataset(SAMPLE_DIR, out, progress=False)
    return out


def test_push_then_push_again_commits_nothing_and_never_shows_the_token(dataset_dir: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(SEED_DIR / "results", results)
    common = ["--dataset-dir", str(dataset_dir), "--allow-sample", "--results", str(results), *KINDS]
    with LocalHub(TOKEN) as hub:
        first = upload(hub, *common, "--out", str(tmp_path / "staged"), home=tmp_path / "home")
        assert first.returncode == 0, first.stderr
        repos = {(t, r) for t, r in hub.repos}
        assert ("dataset", DATASET) in repos and ("space", "nycc-bench/nycc_accuracy") in repos
        assert ("model", "nycc-bench/baseline-random") in repos
        assert len(commit_posts(hub)) == len(repos) == 10
        files = hub.files("dataset", DATASET)
        assert files["README.md"] == (dataset_dir / "README.md").read_bytes()
        shards = {p for p in walk(dataset_dir)[0] if p.startswith("data/")}
        assert {p for p in files if p.endswith(".parquet")} == shards
        assert hub.commits("dataset", DATASET)[-1].message.startswith("Publish dataset with nycc-bench")
        staged_metric = (tmp_path / "staged" / "spaces" / "nycc_accuracy" / "requirements.txt").read_bytes()
        assert hub.files("space", "nycc-bench/nycc_accuracy")["requirements.txt"] == staged_metric

        mark = len(hub.requests)
        second = upload(hub, *common, home=tmp_path / "home")
        assert second.returncode == 0, second.stderr
        assert commit_posts(hub, mark) == [] and second.stdout.count("up to date") == 10
        assert [r.path for r in hub.requests[mark:] if r.method == "POST" and "/preupload/" in r.path] == []

        # one changed card and one file that is no longer staged: one commit, with exactly those two paths
        data = read_results(results / "seed-length.json")
        data["notes"] = [*data["notes"], "A note added after the first push."]
        write_results(results / "seed-length.json", data)
        hub.repos["space", "nycc-bench/nycc_accuracy"].commit("added on the Hub", "", {"stray.txt": b"x"})
        mark = len(hub.requests)
        third = upload(hub, *common, home=tmp_path / "home")
        assert third.returncode == 0, third.stderr
        assert sorted(commit_posts(hub, mark)) == ["/api/models/nycc-bench/baseline-length/commit/main",
                                                   "/api/spaces/nycc-bench/nycc_accuracy/commit/main"]
        assert hub.commits("model", "nycc-bench/baseline-length")[-1].paths == ("README.md",)
        assert hub.commits("space", "nycc-bench/nycc_accuracy")[-1].paths == ("stray.txt",)
        assert "stray.txt" not in hub.files("space", "nycc-bench/nycc_accuracy")
        assert b"A note added after the first push." in hub.files("model", "nycc-bench/baseline-length")["README.md"]

    assert {r.auth for r in hub.requests} == {"ok"}
    assert not [r for r in hub.requests if r.status >= 400 and r.status != 409]  # 409: create_repo, already there
    log = "\n".join(map(repr, hub.requests))
    for run in (first, second, third):
        assert TOKEN not in run.stdout + run.stderr
    assert TOKEN not in log
    for rel in walk(tmp_path / "staged")[0]:
        assert TOKEN.encode() not in (tmp_path / "staged" / rel).read_bytes()
    assert all(TOKEN.encode() not in data for r in hub.repos.values() for data in r.files.values())


def test_without_a_token_nothing_is_staged_or_sent(tmp_path: Path) -> None:
    with LocalHub(TOKEN) as hub:
        run = upload(hub, "--only", "metrics", token=None, home=tmp_path / "home")
    assert run.returncode == 2 and "no Hugging Face token: set HF_TOKEN" in run.stderr
    assert hub.requests == []


def test_a_rejected_token_fails_the_push_without_printing_it(tmp_path: Path) -> None:
    wrong = "hf_" + "WrongToken12" * 3
    with LocalHub(TOKEN) as hub:
        run = upload(hub, "--only", "metrics", token=wrong, home=tmp_path / "home")
    assert run.returncode == 1 and "pushing nycc-bench/" in run.stderr
    assert wrong not in run.stdout + run.stderr and {r.auth for r in hub.requests} == {"wrong"}
    assert hub.repos == {}


@pytest.mark.parametrize("json_api", [True, False], ids=["pep691", "pep503"])
def test_spaces_are_not_pushed_pinning_a_version_the_index_lacks(tmp_path: Path, json_api: bool) -> None:
    """The Spaces install nycc-bench==<version>: until the index has it, a push refuses before any request to the
    Hub (and before asking for a token), unless --package-spec says what to install instead."""
    version = nycc_bench.__version__
    older = {"nycc-bench": ["nycc_bench-0.1.0-py3-none-any.whl", "nycc_bench-0.1.0.tar.gz",
                            f"nycc_bench-{version}.post1.tar.gz", "nycc_bench-0.2.0rc1-py3-none-any.whl"]}
    with LocalHub(TOKEN) as hub, LocalIndex(older, json=json_api) as index:
        run = upload(hub, "--only", "metrics", "--index-url", index.url, home=tmp_path / "home")
        assert run.returncode == 2 and f"nycc-bench=={version}" in run.stderr and "RELEASING.md" in run.stderr
        assert "--package-spec" in run.stderr and hub.requests == [] and index.requests == ["/simple/nycc-bench/"]
        run = upload(hub, "--only", "metrics", "--index-url", index.url, token=None, home=tmp_path / "home")
        assert run.returncode == 2 and "no Hugging Face token" not in run.stderr  # refused first
        spec = f"nycc-bench @ git+https://github.com/nycc-bench/nycc-bench@v{version}"
        run = upload(hub, "--only", "metrics", "--index-url", index.url, "--package-spec", spec,
                     home=tmp_path / "home")
        assert run.returncode == 0, run.stderr
        assert spec.encode() in hub.files("space", "nycc-bench/nycc_accuracy")["requirements.txt"]
        assert len(index.requests) == 2  # the explicit spec is not checked against the index
    with LocalHub(TOKEN) as hub, LocalIndex({}) as empty:
        run = upload(hub, "--only", "dataset", "--only", "metrics", "--index-url", empty.url, home=tmp_path / "h2")
        assert run.returncode == 2 and "does not have" in run.stderr and hub.requests == []


def test_an_unreachable_index_refuses_with_the_way_out(tmp_path: Path) -> None:
    with LocalHub(TOKEN) as hub:
        run = upload(hub, "--only", "metrics", "--index-url", "http://127.0.0.1:9/simple", home=tmp_path / "home")
    assert run.returncode == 2 and "cannot read http://127.0.0.1:9/simple/nycc-bench/" in run.stderr
    assert "--package-spec" in run.stderr and hub.requests == []
